package docsearch_test

import (
	"database/sql"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/recruitd/recruitd/docs"
	"github.com/recruitd/recruitd/internal/docsearch"
	"github.com/recruitd/recruitd/internal/links"
	"github.com/recruitd/recruitd/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const linkBase = "https://app.example.com"

// docURL is how the tool server builds the links (links.Builder.Doc).
var docURL = links.New(linkBase, "").Doc

// syncedDB returns a database indexed from the real docs, as pgtest builds every test database
// (the way recruitd migrate does).
func syncedDB(t testing.TB) *sql.DB {
	t.Helper()
	db := pgtest.New(t).SQL
	want, err := docsearch.Hash(docs.FS)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := docsearch.IndexedHash(t.Context(), db); err != nil || got != want {
		t.Fatalf("IndexedHash(pgtest database) = %q, %v; want the docs' hash %q", got, err, want)
	}
	return db
}

// unindexedDB returns a migrated database whose documentation index was never built.
func unindexedDB(t testing.TB) *sql.DB {
	t.Helper()
	db := pgtest.New(t).SQL
	if _, err := db.ExecContext(t.Context(), `DELETE FROM doc_sections; DELETE FROM doc_index_state`); err != nil {
		t.Fatal(err)
	}
	return db
}

func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSync(t *testing.T) {
	db := unindexedDB(t)
	ctx := t.Context()
	v1 := fstest.MapFS{
		"a.md":      {Data: []byte("# Alpha\n\nintro\n\n## One\n\nfirst body\n\n## Empty\n\n## Two\n\nsecond body\n")},
		"b.md":      {Data: []byte("# Beta\n\n## One\n\nbeta body\n")},
		"notes.txt": {Data: []byte("# not a doc")},
	}
	changed, err := docsearch.Sync(ctx, db, v1)
	if err != nil || !changed {
		t.Fatalf("first Sync = %v, %v; want true, nil", changed, err)
	}
	// The empty section is not stored; the h1 sections with intro text are.
	if n := count(t, db, `SELECT count(*) FROM doc_sections`); n != 4 {
		t.Errorf("%d sections stored, want 4", n)
	}
	var title, docTitle string
	var pos int
	if err := db.QueryRowContext(ctx, `SELECT title, doc_title, position FROM doc_sections WHERE doc = 'a' AND anchor = 'two'`).Scan(&title, &docTitle, &pos); err != nil {
		t.Fatal(err)
	}
	if title != "Two" || docTitle != "Alpha" || pos != 3 {
		t.Errorf("a#two = %q, %q, position %d; want Two, Alpha, 3", title, docTitle, pos)
	}
	var indexedAt time.Time
	if err := db.QueryRowContext(ctx, `SELECT indexed_at FROM doc_index_state`).Scan(&indexedAt); err != nil {
		t.Fatal(err)
	}

	if changed, err := docsearch.Sync(ctx, db, v1); err != nil || changed {
		t.Fatalf("second Sync = %v, %v; want false, nil", changed, err)
	}
	var again time.Time
	if err := db.QueryRowContext(ctx, `SELECT indexed_at FROM doc_index_state`).Scan(&again); err != nil || !again.Equal(indexedAt) {
		t.Errorf("indexed_at moved on an unchanged Sync: %v -> %v (%v)", indexedAt, again, err)
	}

	v2 := fstest.MapFS{"a.md": {Data: []byte("# Alpha\n\n## Three\n\nthird body\n")}}
	if changed, err := docsearch.Sync(ctx, db, v2); err != nil || !changed {
		t.Fatalf("Sync after a change = %v, %v; want true, nil", changed, err)
	}
	if n := count(t, db, `SELECT count(*) FROM doc_sections`); n != 1 {
		t.Errorf("%d sections after the change, want 1 (old rows replaced)", n)
	}
	if n := count(t, db, `SELECT count(*) FROM doc_sections WHERE doc = 'a' AND anchor = 'three' AND search @@ to_tsquery('english', 'third')`); n != 1 {
		t.Error("the new section is not searchable")
	}
}

func TestSyncConcurrent(t *testing.T) {
	db := unindexedDB(t)
	var wg sync.WaitGroup
	results := make([]bool, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Go(func() { results[i], errs[i] = docsearch.Sync(t.Context(), db, docs.FS) })
	}
	wg.Wait()
	changed := 0
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("Sync %d: %v", i, errs[i])
		}
		if results[i] {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("%d concurrent Syncs rebuilt the index, want exactly 1", changed)
	}
	if n := count(t, db, `SELECT count(DISTINCT (doc, anchor)) FROM doc_sections`); n == 0 || n != count(t, db, `SELECT count(*) FROM doc_sections`) {
		t.Errorf("doc_sections holds duplicates or nothing (%d distinct)", n)
	}
}

// TestSearchRealDocs asks the questions users ask and checks the section cited first.
func TestSearchRealDocs(t *testing.T) {
	db := syncedDB(t)
	tests := []struct {
		query string
		want  []string // acceptable first citations, "doc#anchor"
	}{
		{"how do I create a job", []string{"getting-started#create-your-first-job", "jobs#create-a-job"}},
		{"How do I connect an MCP client?", []string{"mcp#connect-an-mcp-client", "mcp#server-url-and-api-key"}},
		{"what happens when my partner callback endpoint is down", []string{"partner-callbacks#what-happens-when-your-callback-endpoint-is-down"}},
		{"how do I verify the callback signature", []string{"partner-callbacks#verify-the-callback-signature"}},
		{"how do I redeliver a callback", []string{"partner-callbacks#redeliver-a-callback"}},
		{"how do I rotate an API key", []string{"authentication#getting-rotating-and-revoking-keys"}},
		{"connect Claude Desktop", []string{"mcp#claude-desktop"}},
		{"companyId is not in your accessible companies", []string{"mcp#choose-the-company-companyid"}},
		{"what is the io.recruitd/jobId meta key", []string{"mcp#send-the-current-job-as-context"}},
		{"what does a fraud score below 50 mean", []string{"integrity-checks#fraud-signals", "integrity-checks#integrity-fields-in-candidate-reports"}},
		{"HR-suite webhook duplicates and replay", []string{"hrsuite-webhook#duplicates-and-replay"}},
		{"ATS credential fields", []string{"ats#ats-credential-fields"}},
		{"how do I change a workflow", []string{"workflows#change-a-workflow"}},
		{"interview guide template adoption", []string{"templates#interview-guide-templates", "templates#templates"}},
		{"what does NO_PARTNER_TRIGGER mean", []string{"partners#answers-in-the-order-they-are-checked", "partners#before-the-first-submission"}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			a, err := docsearch.Search(t.Context(), db, tt.query, links.New(linkBase+"/", "").Doc)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Found || len(a.Citations) == 0 {
				t.Fatalf("Search(%q) found nothing:\n%s", tt.query, a.Text)
			}
			first := a.Citations[0].Doc + "#" + a.Citations[0].Anchor
			if !slices.Contains(tt.want, first) {
				t.Errorf("Search(%q) cites %s first, want one of %v\n%s", tt.query, first, tt.want, a.Text)
			}
			checkAnswer(t, a)
		})
	}
}

// checkAnswer checks the shape every found answer has.
func checkAnswer(t *testing.T, a *docsearch.Answer) {
	t.Helper()
	if n := len(a.Points); n < 1 || n > docsearch.MaxPoints {
		t.Errorf("%d points, want 1 to %d", n, docsearch.MaxPoints)
	}
	for _, p := range a.Points {
		if p.Citation < 1 || p.Citation > len(a.Citations) || strings.TrimSpace(p.Text) == "" {
			t.Errorf("point %+v: empty or cites nothing", p)
		}
	}
	for _, c := range a.Citations {
		wantURL := linkBase + "/docs/" + c.Doc + "#" + c.Anchor
		if c.URL != wantURL || c.Snippet == "" || !strings.Contains(c.Title, " › ") {
			t.Errorf("citation %+v: want URL %s, a snippet and a title <doc> › <section>", c, wantURL)
		}
		if !strings.Contains(a.Text, c.URL) {
			t.Errorf("Text does not link %s:\n%s", c.URL, a.Text)
		}
	}
}

func TestSearchAnswersAreShort(t *testing.T) {
	db := syncedDB(t)
	for _, q := range []string{"how do I create a job", "how do I verify the callback signature", "what are the tools of the MCP server", "integrity checks"} {
		a, err := docsearch.Search(t.Context(), db, q, docURL)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Points) < docsearch.MinPoints {
			t.Errorf("Search(%q): %d points, want at least %d:\n%s", q, len(a.Points), docsearch.MinPoints, a.Text)
		}
		prose := 0
		for _, p := range a.Points {
			prose += len([]rune(p.Text))
		}
		if prose > docsearch.MaxAnswerRunes+docsearch.MaxUnitRunes {
			t.Errorf("Search(%q): %d characters of points, want a short answer:\n%s", q, prose, a.Text)
		}
	}
}

func TestSearchNoMatch(t *testing.T) {
	db := syncedDB(t)
	for _, q := range []string{"quantum banana spaceship", "how do I?", "what is it", "xylophone zeppelin"} {
		a, err := docsearch.Search(t.Context(), db, q, docURL)
		if err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
		if a.Found || len(a.Points) != 0 || len(a.Citations) != 0 || !strings.HasPrefix(a.Text, "No matching documentation") {
			t.Errorf("Search(%q) = %+v, want the no-match answer", q, a)
		}
	}
}

func TestSearchFallbackToSomeTerms(t *testing.T) {
	db := syncedDB(t)
	// No section holds "unicorn"; sections holding the other terms answer.
	a, err := docsearch.Search(t.Context(), db, "partner callback signature unicorn", docURL)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Found || a.Match != "some" || a.Citations[0].Doc != "partner-callbacks" {
		t.Errorf("Search = found %v, match %q, first %+v; want the partner-callbacks docs by some terms\n%s", a.Found, a.Match, a.Citations, a.Text)
	}
	// One known term out of four is not enough.
	a, err = docsearch.Search(t.Context(), db, "unicorn rainbow glitter callback", docURL)
	if err != nil {
		t.Fatal(err)
	}
	if a.Found {
		t.Errorf("Search with 1 of 4 terms found %+v, want no match", a.Citations)
	}
}

func TestSearchQueryValidation(t *testing.T) {
	db := syncedDB(t)
	for _, tt := range []struct {
		query string
		want  error
	}{
		{"", docsearch.ErrEmptyQuery},
		{" \t\n ", docsearch.ErrEmptyQuery},
		{"\x00\x01", docsearch.ErrEmptyQuery},
		{strings.Repeat("job ", 125) + "x", docsearch.ErrQueryTooLong},
		{strings.Repeat("job ", 125), nil},
		{strings.Repeat("é", 500), nil},
		{"create\x00job\xff", nil},
		{`"partner callback" -signature or job`, nil},
		{`'():*&|!<> -- ; DROP TABLE doc_sections; \`, nil},
		{"²³ ¼ job", nil},
		{"-", nil},
		{`"`, nil},
	} {
		_, err := docsearch.Search(t.Context(), db, tt.query, docURL)
		if !errors.Is(err, tt.want) {
			t.Errorf("Search(%q) error = %v, want %v", tt.query, err, tt.want)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM doc_sections`); n == 0 {
		t.Error("doc_sections is empty after odd queries")
	}
}

func TestSearchBeforeSync(t *testing.T) {
	db := unindexedDB(t)
	a, err := docsearch.Search(t.Context(), db, "create a job", docURL)
	if err != nil || a.Found {
		t.Errorf("Search on an empty index = %+v, %v; want not found, nil", a, err)
	}
}

// TestSearchLatency measures Search over a mix of questions; the corpus is small, so p95 must
// stay far below 100 ms even on a busy test machine.
func TestSearchLatency(t *testing.T) {
	db := syncedDB(t)
	queries := []string{
		"how do I create a job", "how do I connect an MCP client", "what happens when my partner callback endpoint is down",
		"how do I verify the callback signature", "quantum banana spaceship", "what does a fraud score below 50 mean",
		"HR-suite webhook rows", "assessment link retries", "interview guide template adoption", "rotate an API key",
	}
	for _, q := range queries { // warm the connection pool and the plans
		if _, err := docsearch.Search(t.Context(), db, q, docURL); err != nil {
			t.Fatal(err)
		}
	}
	var d []time.Duration
	for range 20 {
		for _, q := range queries {
			start := time.Now()
			if _, err := docsearch.Search(t.Context(), db, q, docURL); err != nil {
				t.Fatal(err)
			}
			d = append(d, time.Since(start))
		}
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	p50, p95, p99 := d[len(d)/2], d[len(d)*95/100], d[len(d)*99/100]
	t.Logf("Search latency over %d queries: p50 %v, p95 %v, p99 %v, max %v", len(d), p50, p95, p99, d[len(d)-1])
	// A guard against a lost index or a plan gone wrong (the median, which a busy machine moves
	// little); the latency target itself is measured by make bench (bench mcp).
	if p50 > 100*time.Millisecond {
		t.Errorf("p50 = %v, want well under 100ms", p50)
	}
}

func BenchmarkSearch(b *testing.B) {
	db := syncedDB(b)
	for b.Loop() {
		if _, err := docsearch.Search(b.Context(), db, "what happens when my partner callback endpoint is down", docURL); err != nil {
			b.Fatal(err)
		}
	}
}
