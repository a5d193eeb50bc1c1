package seed

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/google/uuid"
)

// uuidv is a UUID as 16 bytes.
//
// Generated ids have the UUIDv7 layout: a 48-bit prefix that grows in the order rows are
// loaded (company index << 32 | the row's sequence number in its table), then 74 bits from the
// PRNG. Loading random (v4) ids makes every primary-key and (company_id, id) index insert land
// on a random B-tree page, which with 128 MB of shared buffers costs about 8 µs per index and
// row (3M rows into a table with a uuid primary key and a (company_id, id) key: 64 s with random
// ids, 15 s with ordered ones); ordered ids append to the right-most page.
type uuidv [16]byte

func (u uuidv) UUID() uuid.UUID { return uuid.UUID(u) }

// mix64 is the SplitMix64 finaliser: it turns related inputs (a seed and a counter) into
// unrelated PCG seeds.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Stream tags: every entity draws from its own PCG stream, keyed by the company and the
// entity's index, so any part of the data set can be generated alone, in any order, by any
// number of goroutines, and still come out the same.
const (
	streamCompany uint64 = iota + 1
	streamUsers
	streamTemplates
	streamJobs
	streamATSExtras
	streamCandidate
	streamNames
)

// rng is a PCG generator with the helpers the generator needs. Reseed it per entity.
type rng struct {
	pcg rand.PCG
	r   *rand.Rand
}

func newRNG() *rng {
	g := &rng{}
	g.r = rand.New(&g.pcg)
	return g
}

// seed points g at the stream of entity index of kind stream under key.
func (g *rng) seed(key, stream, index uint64) {
	a := mix64(key ^ mix64(stream))
	g.pcg.Seed(a, mix64(a^index))
}

// id returns an id with the ordered prefix (the low 48 bits of prefix) and random bits.
func (g *rng) id(prefix uint64) uuidv {
	var u uuidv
	hi, lo := prefix<<16|g.r.Uint64()&0xffff, g.r.Uint64()
	for i := 0; i < 8; i++ {
		u[i] = byte(hi >> (56 - 8*i))
		u[8+i] = byte(lo >> (56 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 9562 variant
	return u
}

// setPrefix replaces the ordered prefix of an id made by rng.id.
func (u *uuidv) setPrefix(prefix uint64) {
	for i := 0; i < 6; i++ {
		u[i] = byte(prefix >> (40 - 8*i))
	}
}

// idPrefix is the ordered part of the id of row seq of a table of company index. Read as a
// UUIDv7 timestamp it is a date after mid-2024 (idEpoch), like ids made by a real system.
func idPrefix(index int, seq uint64) uint64 { return idEpoch + uint64(index)<<32 | seq&0xffffffff }

// idEpoch is 2024-06-10 in Unix milliseconds (0x0190_0000_0000).
const idEpoch = 0x0190_0000_0000

// hex32 writes 32 random hex digits into dst.
func (g *rng) hex32(dst *[32]byte) {
	var raw [16]byte
	hi, lo := g.r.Uint64(), g.r.Uint64()
	for i := 0; i < 8; i++ {
		raw[i] = byte(hi >> (56 - 8*i))
		raw[8+i] = byte(lo >> (56 - 8*i))
	}
	hex.Encode(dst[:], raw[:])
}

func (g *rng) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return g.r.IntN(n)
}

// between returns an int64 in [lo, hi]; lo when hi <= lo.
func (g *rng) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + g.r.Int64N(hi-lo+1)
}

func (g *rng) chance(p float64) bool { return g.r.Float64() < p }

func (g *rng) pick(items []string) string { return items[g.intn(len(items))] }

// norm returns a normal deviate with the given mean and standard deviation.
func (g *rng) norm(mean, sd float64) float64 { return mean + sd*g.r.NormFloat64() }

// weighted returns an index drawn with the given relative weights.
func (g *rng) weighted(w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := g.intn(total)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// poisson draws from a Poisson distribution by inversion (fine for small means).
func (g *rng) poisson(mean float64) int {
	if mean <= 0 {
		return 0
	}
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= g.r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// cumulative is a table for drawing indices by weight with a binary search.
type cumulative struct {
	sums  []int64
	items []int
}

func (c *cumulative) add(item int, weight int64) {
	if weight <= 0 {
		return
	}
	var last int64
	if n := len(c.sums); n > 0 {
		last = c.sums[n-1]
	}
	c.sums = append(c.sums, last+weight)
	c.items = append(c.items, item)
}

func (c *cumulative) empty() bool { return len(c.sums) == 0 }

func (c *cumulative) draw(g *rng) int {
	n := g.r.Int64N(c.sums[len(c.sums)-1])
	i := sort.Search(len(c.sums), func(i int) bool { return c.sums[i] > n })
	return c.items[i]
}

// Time helpers. Times are Unix microseconds; local times follow US daylight saving time
// (second Sunday of March to first Sunday of November, at 2:00 local time) computed here, so
// the data does not depend on the machine's time zone database.
const (
	second = int64(1_000_000)
	minute = 60 * second
	hour   = 60 * minute
	day    = 24 * hour
)

type dstYear struct{ startDay, endDay int64 } // Unix days of the transition Sundays

var dstTable = func() map[int]dstYear {
	m := map[int]dstYear{}
	for y := 1990; y <= 2100; y++ {
		mar := time.Date(y, time.March, 1, 0, 0, 0, 0, time.UTC)
		firstSun := (7 - int(mar.Weekday())) % 7
		start := mar.AddDate(0, 0, firstSun+7)
		nov := time.Date(y, time.November, 1, 0, 0, 0, 0, time.UTC)
		end := nov.AddDate(0, 0, (7-int(nov.Weekday()))%7)
		m[y] = dstYear{start.Unix() / 86400, end.Unix() / 86400}
	}
	return m
}()

// offset returns the zone's UTC offset in microseconds at instant t.
func (z zone) offset(t int64) int64 {
	std := int64(z.std) * hour
	if !z.dst {
		return std
	}
	y := time.UnixMicro(t).UTC().Year()
	d, ok := dstTable[y]
	if !ok {
		return std
	}
	start := d.startDay*day + 2*hour - std
	end := d.endDay*day + 2*hour - std - hour
	if t >= start && t < end {
		return std + hour
	}
	return std
}

// localDay returns the local calendar day (Unix days) of instant t.
func (z zone) localDay(t int64) int64 { return floorDiv(t+z.offset(t), day) }

// at returns the instant of local time-of-day tod (microseconds after midnight) on local day d.
func (z zone) at(d, tod int64) int64 {
	guess := d*day + tod - int64(z.std)*hour
	return d*day + tod - z.offset(guess)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// Hour-of-day weights (local time). Recruiters and ATS automations send invitations mostly in
// business hours; candidates take interviews in business hours and, often, in the evening.
var (
	inviteHours    = []int{1, 1, 1, 1, 1, 2, 4, 9, 15, 19, 19, 16, 12, 15, 17, 15, 13, 10, 7, 5, 4, 3, 2, 1}
	candidateHours = []int{2, 1, 1, 1, 1, 2, 3, 5, 8, 10, 11, 11, 10, 11, 11, 11, 10, 10, 10, 10, 9, 7, 5, 3}
)

// timeOfDay draws a local time of day from hour weights.
func (g *rng) timeOfDay(weights []int) int64 {
	return int64(g.weighted(weights))*hour + g.between(0, hour-1)
}

// weekday returns 0 for Sunday .. 6 for Saturday of Unix day d.
func weekday(d int64) int { return int((d%7 + 7 + 4) % 7) }
