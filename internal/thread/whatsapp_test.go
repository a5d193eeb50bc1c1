package thread_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/recruitd/recruitd/internal/channels"
	"github.com/recruitd/recruitd/internal/conversation"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/internal/thread"
	"github.com/recruitd/recruitd/models"
)

func TestInWindow(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		last time.Time
		ok   bool
		want bool
	}{
		{time.Time{}, false, false},
		{now, true, true},
		{now.Add(-23*time.Hour - 59*time.Minute), true, true},
		{now.Add(-24 * time.Hour), true, false},
		{now.Add(-48 * time.Hour), true, false},
		{now.Add(time.Hour), true, false}, // a clock far ahead is not trusted
	} {
		if got := thread.InWindow(c.last, c.ok, now); got != c.want {
			t.Errorf("InWindow(%s, %v) = %v, want %v", now.Sub(c.last), c.ok, got, c.want)
		}
	}
}

// TestAdmit: a free-form WhatsApp message goes only inside the company's window with the number;
// a template and an SMS always go; another company's window opens nothing.
func TestAdmit(t *testing.T) {
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	acme := &models.Company{Slug: "acme", Name: "Acme", DefaultJobStatus: models.JobStatusActive}
	globex := &models.Company{Slug: "globex", Name: "Globex", DefaultJobStatus: models.JobStatusActive}
	for _, c := range []*models.Company{acme, globex} {
		if err := st.CreateCompany(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	const number = "+14155550123"
	now := time.Now()
	free := channels.Message{Channel: models.MessageChannelWhatsApp, To: number, Text: "Question 2 of 5: ..."}
	refused := func(err error) bool { return errors.Is(err, thread.ErrOutsideWindow) && channels.IsPermanent(err) }

	if err := thread.Admit(t.Context(), st, acme.ID, free, now); !refused(err) {
		t.Errorf("no window: %v, want a permanent ErrOutsideWindow", err)
	}
	tpl := thread.WhatsAppTemplate(nil, conversation.TemplateNudge, number, "Acme", "Nurse", "Mon 30 Nov 17:00 PST", "https://x.test/i/abc")
	if err := thread.Admit(t.Context(), st, acme.ID, tpl, now); err != nil {
		t.Errorf("a template outside the window: %v", err)
	}
	if tpl.TemplateID != conversation.DevTemplateIDs[conversation.TemplateNudge] || tpl.TemplateVariables["2"] != "Nurse" ||
		!strings.Contains(tpl.Text, "Your interview with Acme for Nurse") {
		t.Errorf("template message = %+v", tpl)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, channels.Message{Channel: models.MessageChannelSMS, To: number, Text: "hi"}, now); err != nil {
		t.Errorf("an SMS: %v", err)
	}
	if err := st.TouchThreadWindow(t.Context(), globex.ID, "whatsapp", number, now); err != nil {
		t.Fatal(err)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, free, now); !refused(err) {
		t.Errorf("another company's window: %v, want refused", err)
	}
	if err := st.TouchThreadWindow(t.Context(), acme.ID, "whatsapp", number, now.Add(-25*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, free, now); !refused(err) {
		t.Errorf("a window closed an hour ago: %v, want refused", err)
	}
	if err := st.TouchThreadWindow(t.Context(), acme.ID, "whatsapp", number, now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, free, now); err != nil {
		t.Errorf("inside the window: %v", err)
	}
	// An older message (a late webhook) does not move the window back.
	if err := st.TouchThreadWindow(t.Context(), acme.ID, "whatsapp", number, now.Add(-30*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, free, now); err != nil {
		t.Errorf("after a late older message: %v", err)
	}
	if err := thread.Admit(t.Context(), st, acme.ID, free, now.Add(24*time.Hour)); !refused(err) {
		t.Errorf("a day later: %v, want refused", err)
	}
}
