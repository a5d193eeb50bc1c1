package bulkload

import (
	"encoding/binary"
	"math"
)

// Buf accumulates tuples in PostgreSQL's binary COPY format (without the stream's header and
// trailer, which Copy adds). Writing the wire format directly costs a few nanoseconds per value
// and allocates nothing; pgx.Conn.CopyFrom would box every value in an interface and look up its
// encode plan, which costs more CPU than Postgres spends storing a narrow row.
//
// The encodings are those of the receive functions of the column types: uuid (16 bytes), text
// (UTF-8 bytes), bool, int4, float8, timestamptz (int64 microseconds since 2000-01-01 UTC), date
// (int32 days since 2000-01-01), numeric, text[] and jsonb (version byte 1 and the JSON text).
// Each value follows a Row call that announced its tuple's field count, in column order.
type Buf struct {
	b    []byte
	rows int
}

// header starts a binary COPY stream: signature, flags and header extension length.
var header = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// trailer ends a binary COPY stream.
var trailer = []byte{0xff, 0xff}

const (
	pgEpochMicros = 946_684_800 * 1_000_000 // 2000-01-01 in Unix microseconds
	pgEpochDays   = 10_957                  // 2000-01-01 in days since 1970-01-01
	oidText       = 25
)

// Reset empties c for reuse, keeping its memory.
func (c *Buf) Reset() { c.b, c.rows = c.b[:0], 0 }

// Rows is the number of tuples in c.
func (c *Buf) Rows() int { return c.rows }

// Bytes is the encoded tuples.
func (c *Buf) Bytes() []byte { return c.b }

// Row starts a tuple of n fields.
func (c *Buf) Row(n int) {
	c.b = binary.BigEndian.AppendUint16(c.b, uint16(n))
	c.rows++
}

// Null writes NULL.
func (c *Buf) Null() { c.b = binary.BigEndian.AppendUint32(c.b, 0xffffffff) }

// UUID writes a uuid.
func (c *Buf) UUID(u [16]byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, 16)
	c.b = append(c.b, u[:]...)
}

// OptUUID writes u, or NULL for the zero UUID.
func (c *Buf) OptUUID(u [16]byte) {
	if u == [16]byte{} {
		c.Null()
		return
	}
	c.UUID(u)
}

// Text writes a text value.
func (c *Buf) Text(s string) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(s)))
	c.b = append(c.b, s...)
}

// TextBytes writes a text value held in bytes, valid UTF-8.
func (c *Buf) TextBytes(s []byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(s)))
	c.b = append(c.b, s...)
}

// OptText writes s, or NULL when s is empty.
func (c *Buf) OptText(s string) {
	if s == "" {
		c.Null()
		return
	}
	c.Text(s)
}

// Bool writes a bool.
func (c *Buf) Bool(v bool) {
	c.b = binary.BigEndian.AppendUint32(c.b, 1)
	if v {
		c.b = append(c.b, 1)
	} else {
		c.b = append(c.b, 0)
	}
}

// Int4 writes an int4; v must fit in 32 bits.
func (c *Buf) Int4(v int) {
	c.b = binary.BigEndian.AppendUint32(c.b, 4)
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(int32(v)))
}

// Int2 writes an int2; v must fit in 16 bits.
func (c *Buf) Int2(v int) {
	c.b = binary.BigEndian.AppendUint32(c.b, 2)
	c.b = binary.BigEndian.AppendUint16(c.b, uint16(int16(v)))
}

// Int8 writes an int8.
func (c *Buf) Int8(v int64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 8)
	c.b = binary.BigEndian.AppendUint64(c.b, uint64(v))
}

// OptInt4 writes v, or NULL when v is negative.
func (c *Buf) OptInt4(v int) {
	if v < 0 {
		c.Null()
		return
	}
	c.Int4(v)
}

// Float8 writes a float8.
func (c *Buf) Float8(v float64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 8)
	c.b = binary.BigEndian.AppendUint64(c.b, math.Float64bits(v))
}

// TS writes a timestamptz given in Unix microseconds.
func (c *Buf) TS(unixMicros int64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 8)
	c.b = binary.BigEndian.AppendUint64(c.b, uint64(unixMicros-pgEpochMicros))
}

// OptTS writes a timestamptz, or NULL when unixMicros is 0.
func (c *Buf) OptTS(unixMicros int64) {
	if unixMicros == 0 {
		c.Null()
		return
	}
	c.TS(unixMicros)
}

// Date writes a date given in days since 1970-01-01.
func (c *Buf) Date(unixDays int64) {
	c.b = binary.BigEndian.AppendUint32(c.b, 4)
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(int32(unixDays-pgEpochDays)))
}

// Hundredths writes the numeric v/100 (0 <= v < 100,000,000) with scale 2.
func (c *Buf) Hundredths(v int) {
	whole, frac := v/100, v%100
	var digits [3]uint16 // base-10000 digits, most significant first
	n, weight := 0, 0
	switch {
	case whole >= 10000:
		digits[0], digits[1] = uint16(whole/10000), uint16(whole%10000)
		n, weight = 2, 1
	case whole > 0:
		digits[0] = uint16(whole)
		n, weight = 1, 0
	default:
		weight = -1
	}
	if frac != 0 {
		digits[n] = uint16(frac * 100)
		n++
	}
	if n == 0 {
		weight = 0
	}
	// Trailing zero digits are dropped (the canonical form).
	for n > 0 && digits[n-1] == 0 {
		n--
	}
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(8+2*n))
	c.b = binary.BigEndian.AppendUint16(c.b, uint16(n))
	c.b = binary.BigEndian.AppendUint16(c.b, uint16(int16(weight)))
	c.b = binary.BigEndian.AppendUint16(c.b, 0) // sign: positive
	c.b = binary.BigEndian.AppendUint16(c.b, 2) // display scale
	for _, d := range digits[:n] {
		c.b = binary.BigEndian.AppendUint16(c.b, d)
	}
}

// OptHundredths writes v/100, or NULL when v is negative.
func (c *Buf) OptHundredths(v int) {
	if v < 0 {
		c.Null()
		return
	}
	c.Hundredths(v)
}

// TextArray writes a one-dimensional text[] without NULL elements.
func (c *Buf) TextArray(items []string) {
	if len(items) == 0 {
		c.b = binary.BigEndian.AppendUint32(c.b, 12)
		c.b = binary.BigEndian.AppendUint32(c.b, 0) // dimensions
		c.b = binary.BigEndian.AppendUint32(c.b, 0) // has nulls
		c.b = binary.BigEndian.AppendUint32(c.b, oidText)
		return
	}
	size := 20
	for _, s := range items {
		size += 4 + len(s)
	}
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(size))
	c.b = binary.BigEndian.AppendUint32(c.b, 1)
	c.b = binary.BigEndian.AppendUint32(c.b, 0)
	c.b = binary.BigEndian.AppendUint32(c.b, oidText)
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(items)))
	c.b = binary.BigEndian.AppendUint32(c.b, 1) // lower bound
	for _, s := range items {
		c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(s)))
		c.b = append(c.b, s...)
	}
}

// JSONB writes a jsonb value from its JSON text.
func (c *Buf) JSONB(js []byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(1+len(js)))
	c.b = append(c.b, 1)
	c.b = append(c.b, js...)
}

// Binary writes a value already in its type's binary format (the receive function's input).
func (c *Buf) Binary(v []byte) {
	c.b = binary.BigEndian.AppendUint32(c.b, uint32(len(v)))
	c.b = append(c.b, v...)
}
