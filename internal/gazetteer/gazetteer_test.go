package gazetteer

import (
	"math"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	if n := Len(); n < 15000 || n > 20000 {
		t.Fatalf("Len() = %d, want the ~16,900 US and PR places of cities1000", n)
	}
	for _, s := range states {
		if _, ok := Lookup(s.name); !ok {
			t.Errorf("state %s does not resolve", s.name)
		}
	}
}

func TestLookup(t *testing.T) {
	tests := []struct {
		text  string
		want  string // Place.String(); "" when not found
		state string
		kind  Kind
	}{
		{"Austin, TX", "Austin, TX", "TX", City},
		{"austin texas", "Austin, TX", "TX", City},
		{"AUSTIN,TX", "Austin, TX", "TX", City},
		{"Austin, TX, USA", "Austin, TX", "TX", City},
		{"Austin, Texas, United States", "Austin, TX", "TX", City},
		{"Austin", "Austin, TX", "TX", City}, // the largest of AR, IN, MN, TX
		{"Austin, MN", "Austin, MN", "MN", City},
		{"Austin Minnesota", "Austin, MN", "MN", City},
		{"San Francisco", "San Francisco, CA", "CA", City},
		{"san francisco, ca", "San Francisco, CA", "CA", City},
		{"SF", "San Francisco, CA", "CA", City},
		{"NYC", "New York City, NY", "NY", City},
		{"New York City", "New York City, NY", "NY", City},
		{"New York", "New York City, NY", "NY", City},
		{"new york, ny", "New York City, NY", "NY", City},
		{"New York State", "New York", "NY", State},
		{"St. Louis", "St. Louis, MO", "MO", City},
		{"Saint Louis", "St. Louis, MO", "MO", City},
		{"st louis mo", "St. Louis, MO", "MO", City},
		{"Washington DC", "Washington, DC", "DC", City},
		{"Washington, D.C.", "Washington, DC", "DC", City},
		{"DC", "Washington, DC", "DC", City},
		{"Washington", "Washington", "WA", State},
		{"Texas", "Texas", "TX", State},
		{"tx", "Texas", "TX", State},
		{"North Carolina", "North Carolina", "NC", State},
		{"Portland", "Portland, OR", "OR", City},
		{"Portland, ME", "Portland, ME", "ME", City},
		{"Portland Maine", "Portland, ME", "ME", City},
		{"Springfield", "Springfield, MO", "MO", City},
		{"Springfield, IL", "Springfield, IL", "IL", City},
		{"Round Rock", "Round Rock, TX", "TX", City},
		{"Cañon City, CO", "Cañon City, CO", "CO", City},
		{"canon city", "Cañon City, CO", "CO", City},
		{"Ft. Worth", "Fort Worth, TX", "TX", City},
		{"Winston-Salem", "Winston-Salem, NC", "NC", City},
		{"Coeur d'Alene", "Coeur d'Alene, ID", "ID", City},
		{"LA", "Los Angeles, CA", "CA", City},
		{"Brooklyn", "Brooklyn, NY", "NY", City},
		{"San Juan, PR", "San Juan, PR", "PR", City},
		{"Springfield, ZZ", "", "", City},
		{"Xyzzyville", "", "", City},
		{"", "", "", City},
		{"  , ,, ", "", "", City},
		{"engineer", "", "", City},
	}
	for _, tt := range tests {
		p, ok := Lookup(tt.text)
		if tt.want == "" {
			if ok {
				t.Errorf("Lookup(%q) = %v, want no place", tt.text, p)
			}
			continue
		}
		if !ok || p.String() != tt.want || p.State != tt.state || p.Kind != tt.kind {
			t.Errorf("Lookup(%q) = %v (%s, kind %d, ok %v), want %s (%s, kind %d)", tt.text, p, p.State, p.Kind, ok, tt.want, tt.state, tt.kind)
		}
	}
}

func TestLookupCoordinates(t *testing.T) {
	austin, _ := Lookup("Austin, TX")
	rr, _ := Lookup("Round Rock, TX")
	dallas, _ := Lookup("Dallas, TX")
	if d := miles(austin, rr); d < 12 || d > 20 {
		t.Errorf("Austin-Round Rock = %.1f mi, want about 16", d)
	}
	if d := miles(austin, dallas); d < 175 || d > 190 {
		t.Errorf("Austin-Dallas = %.1f mi, want about 182", d)
	}
	if austin.Population < 500_000 {
		t.Errorf("Austin population %d", austin.Population)
	}
	tx, _ := Lookup("Texas")
	if tx.Lat != 0 || tx.Lon != 0 || tx.StateName() != "Texas" {
		t.Errorf("state place %+v", tx)
	}
}

func miles(a, b Place) float64 {
	const r = 3958.8
	la1, la2 := a.Lat*math.Pi/180, b.Lat*math.Pi/180
	dla, dlo := la2-la1, (b.Lon-a.Lon)*math.Pi/180
	h := math.Sin(dla/2)*math.Sin(dla/2) + math.Cos(la1)*math.Cos(la2)*math.Sin(dlo/2)*math.Sin(dlo/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}

func TestFindIn(t *testing.T) {
	tests := []struct {
		text   string
		want   string // Place.String(), "" for none
		span   string
		strong bool
	}{
		{"senior backend engineer with Go and Kubernetes, 5+ years, near Austin TX, ex-Google, CS degree, open to remote", "Austin, TX", "Austin TX", true},
		{"nurse in dallas", "Dallas, TX", "dallas", false},
		{"React developers in the Bay Area", "San Francisco, CA", "Bay Area", true},
		{"java developer in NYC", "New York City, NY", "NYC", true},
		{"data scientist Seattle", "Seattle, WA", "Seattle", false},
		{"sales rep near Mobile, AL", "Mobile, AL", "Mobile, AL", true},
		{"mobile developer", "", "", false},
		{"python engineer based in St. Louis", "St. Louis, MO", "St. Louis", true},
		{"engineers in Texas", "Texas", "Texas", true},
		{"designers in CA", "California", "CA", true},
		{"account executive located in Washington, D.C.", "Washington, DC", "Washington, D.C", true},
		{"ML engineer, Boston MA", "Boston, MA", "Boston MA", true},
		{"MS in computer science", "", "", false},
		{"PA with 3 years", "", "", false},
		{"engineer in OR", "Oregon", "OR", true},
		{"go or rust engineer", "", "", false},
		{"Spring Boot developer", "", "", false},
		{"warehouse worker in round rock", "Round Rock, TX", "round rock", false},
		{"within 30 miles of Round Rock, Texas", "Round Rock, TX", "Round Rock, Texas", true},
		{"Salt Lake City developers", "Salt Lake City, UT", "Salt Lake City", false},
		{"Austin or Dallas", "Austin, TX", "Austin", false},
		{"security engineer", "", "", false},
		{"nurse in LA", "Los Angeles, CA", "LA", true},
		{"la la land", "", "", false},
		{"", "", "", false},
	}
	for _, tt := range tests {
		m, ok := FindIn(tt.text)
		if tt.want == "" {
			if ok {
				t.Errorf("FindIn(%q) = %v (%q), want none", tt.text, m.Place, tt.text[m.Start:m.End])
			}
			continue
		}
		if !ok || m.Place.String() != tt.want || tt.text[m.Start:m.End] != tt.span || m.Strong != tt.strong {
			got := ""
			if ok {
				got = tt.text[m.Start:m.End]
			}
			t.Errorf("FindIn(%q) = %v %q strong=%v ok=%v, want %s %q strong=%v", tt.text, m.Place, got, m.Strong, ok, tt.want, tt.span, tt.strong)
		}
	}
}

func TestFindInNeverPanics(t *testing.T) {
	inputs := []string{"\xff\xfe", "’’’", ",,,,", "St.", "D.C.", strings.Repeat("new york ", 500), "a,b,c", "\u0301"}
	for _, in := range inputs {
		FindIn(in)
		Lookup(in)
	}
}

func FuzzFindIn(f *testing.F) {
	f.Add("near Austin, TX")
	f.Add("Washington, D.C.")
	f.Fuzz(func(t *testing.T, s string) {
		if m, ok := FindIn(s); ok && (m.Start < 0 || m.End > len(s) || m.Start >= m.End) {
			t.Fatalf("bad span %d-%d of %d", m.Start, m.End, len(s))
		}
		Lookup(s)
	})
}
