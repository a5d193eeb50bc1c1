package channels

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Outbox sends nothing: it prints each message to a writer (the `recruitd dev` console) so that
// a developer can follow the interview link, and reports it sent. It accepts any channel and
// address.
type Outbox struct {
	mu sync.Mutex
	w  io.Writer
}

var _ Provider = (*Outbox)(nil)

// NewOutbox returns an outbox printing to w; nil discards.
func NewOutbox(w io.Writer) *Outbox {
	if w == nil {
		w = io.Discard
	}
	return &Outbox{w: w}
}

// Name returns "outbox".
func (o *Outbox) Name() string { return "outbox" }

const outboxWidth = 50

// Send prints m as one block and returns ProviderMessageID "outbox-<uuid>". The HTML part is
// not printed, only noted.
func (o *Outbox) Send(ctx context.Context, m Message) (Receipt, error) {
	var b strings.Builder
	head := fmt.Sprintf("── outbox · %s → %s ", m.Channel, m.To)
	b.WriteString(head)
	b.WriteString(strings.Repeat("─", max(2, outboxWidth-utf8.RuneCountInString(head))))
	b.WriteByte('\n')
	if m.Subject != "" {
		fmt.Fprintf(&b, "Subject: %s\n", m.Subject)
	}
	if text := strings.TrimRight(m.Text, "\n"); text != "" {
		b.WriteString(text)
		b.WriteByte('\n')
	}
	if m.HTML != "" {
		fmt.Fprintf(&b, "(+ HTML part, %d bytes)\n", len(m.HTML))
	}
	b.WriteString(strings.Repeat("─", outboxWidth))
	b.WriteByte('\n')

	o.mu.Lock()
	defer o.mu.Unlock()
	if _, err := io.WriteString(o.w, b.String()); err != nil {
		return Receipt{}, &Error{Provider: o.Name(), Err: fmt.Errorf("print %s message: %w", m.Channel, err)}
	}
	return Receipt{Provider: o.Name(), ProviderMessageID: "outbox-" + uuid.NewString()}, nil
}
