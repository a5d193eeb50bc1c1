package bulkload

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
)

// Table is a table a load writes: its name and the columns its rows give, in order.
type Table struct {
	Name    string
	Columns string
	// Freeze copies the rows frozen and all-visible, so that no later reader or VACUUM visits
	// them to set hint bits; only for a table given new storage in the transaction (NewStorage).
	Freeze bool
}

func (t Table) copySQL() string {
	if t.Freeze {
		return "COPY " + t.Name + " (" + t.Columns + ") FROM STDIN (FORMAT binary, FREEZE)"
	}
	return "COPY " + t.Name + " (" + t.Columns + ") FROM STDIN (FORMAT binary)"
}

// Part is some rows of one table and how many of the load's units (the seed's candidates) they
// stand for, which the progress board counts.
type Part struct {
	Buf   *Buf
	Units int64
}

// Copy streams the parts received on in into t, through one COPY, until in is closed, counting
// them on p (which goes from Pending to Copying with the first part). free gets each Buf back
// once sent, for reuse. When ctx ends the error is ctx's.
func Copy(ctx context.Context, tx pgx.Tx, t Table, in <-chan Part, p *TableProgress, free func(*Buf)) error {
	s := &stream{ctx: ctx, in: in, prog: p, free: free}
	if _, err := tx.Conn().PgConn().CopyFrom(ctx, s, t.copySQL()); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("copy %s: %w", t.Name, err)
	}
	p.copied()
	return nil
}

// CopyBuf copies the rows of b into t, counting them on p (nil for none).
func CopyBuf(ctx context.Context, tx pgx.Tx, t Table, b *Buf, p *TableProgress) error {
	if p != nil {
		p.SetState(Copying)
	}
	r := io.MultiReader(bytes.NewReader(header), bytes.NewReader(b.b), bytes.NewReader(trailer))
	if _, err := tx.Conn().PgConn().CopyFrom(ctx, r, t.copySQL()); err != nil {
		return fmt.Errorf("copy %s: %w", t.Name, err)
	}
	if p != nil {
		p.rows.Store(int64(b.rows))
		p.copied()
	}
	return nil
}

// stream is the binary COPY data of one table: the header, the buffer of each part as it
// arrives, the trailer.
type stream struct {
	ctx     context.Context
	in      <-chan Part
	prog    *TableProgress
	free    func(*Buf)
	cur     []byte
	held    *Buf
	started bool
	ended   bool
}

func (s *stream) Read(p []byte) (int, error) {
	for len(s.cur) == 0 {
		if s.held != nil {
			s.free(s.held)
			s.held = nil
		}
		switch {
		case !s.started:
			s.started, s.cur = true, header
			continue
		case s.ended:
			return 0, io.EOF
		}
		select {
		case <-s.ctx.Done():
			return 0, s.ctx.Err()
		case part, ok := <-s.in:
			if !ok {
				s.ended, s.cur = true, trailer
				continue
			}
			if s.prog.state.Load() == int32(Pending) {
				s.prog.SetState(Copying)
			}
			s.held = part.Buf
			s.cur = s.held.b
			s.prog.rows.Add(int64(s.held.rows))
			s.prog.units.Add(part.Units)
		}
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}
