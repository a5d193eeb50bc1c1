package hrsuitereport

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigBody is a delivery of rows rows, two per application (a phone row and a Personal Email
// row), with every tenth number not validating and every fourth phone a Home one: about 2 MB
// for 5,000 rows.
func bigBody(tb testing.TB, rows int) []byte {
	tb.Helper()
	areas := []string{"415", "212", "312", "617", "206", "512", "303", "404"}
	out := make([]any, 0, rows)
	for i := range rows {
		a := i / 2
		id := fmt.Sprintf("APP-%07d", a)
		contact, kind := fmt.Sprintf("(%s) 555-%04d", areas[a%len(areas)], 1000+a%9000), "Mobile"
		switch {
		case i%2 == 1:
			contact, kind = fmt.Sprintf("candidate.%d@Example.com", a), "Personal Email"
		case a%10 == 0:
			contact = fmt.Sprintf("(123) 456-%04d", a%10000)
		case a%4 == 0:
			kind = "Home"
		}
		out = append(out, map[string]any{
			ColCandidateID:   fmt.Sprintf("C-%07d", a),
			ColFirstName:     "Augusta Ada",
			ColLastName:      "King-Noel",
			ColContactMethod: contact,
			ColContactType:   kind,
			ColJobReqID:      fmt.Sprintf("REQ-%04d", a%300),
			ColJobLocation:   "Austin, TX 78701",
			ColJobTitle:      "Registered Nurse - Med/Surg (Nights)",
			ColAppliedAt:     "2026-11-21 14:05:00",
			ColApplicationID: id,
			ColDoNotHire:     "False",
		})
	}
	b, err := json.Marshal(out)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func BenchmarkParse(b *testing.B) {
	body := bigBody(b, 5000)
	if _, err := Parse(body); err != nil { // loads the phone metadata outside the timing
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	body := bigBody(b, 5000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Count(body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseBig checks the shape of the benchmark's body and what Parse makes of it. Its speed
// is BenchmarkParse's and make bench's business, not a unit test's.
func TestParseBig(t *testing.T) {
	body := bigBody(t, 5000)
	if _, err := Parse(body); err != nil {
		t.Fatal(err)
	}
	b, err := Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if b.Rows != 5000 || len(b.Applications) != 2500 || len(b.Invalid) != 0 || len(b.Notes) != 250 {
		t.Fatalf("%d rows, %d applications, %d invalid, %d notes", b.Rows, len(b.Applications), len(b.Invalid), len(b.Notes))
	}
}
