// Package hrsuitereport applies the row rules of the HR-suite webhook (POST /webhook/hrsuite) to a
// delivery body: the HR suite's report rows. It is pure: no database, no Temporal, no HTTP, so
// the store records its outcomes and the feature (package hrsuite) uses it alike. Receiving a
// delivery calls Count to answer 200 or 400, the ingest calls Parse and then matches the
// applications to jobs.
//
// # The body
//
// A delivery is one JSON array, with nothing but whitespace around it, of report rows: one row
// per contact method of an application. Anything else (an object, a string, truncated JSON,
// garbage after the array) is ErrNotArray, and the whole delivery is refused. Everything inside
// the array is judged row by row: a bad row never fails the delivery.
//
// # Rows
//
// A row is a JSON object whose members are the report's columns, named exactly (spaces and
// capitals included; a name with other capitals is an unknown column). Unknown columns are
// ignored. Every known column holds a JSON string; the id columns (Candidate Id, Job Req Id,
// Job Posting Application Id) and Contact Method may also hold a JSON number, which is read as
// its plain decimal text (4.155552671E9 is "4155552671"), because report tools emit numbers.
// null is a missing cell. A cell's text has its NUL characters removed and surrounding white
// space trimmed, and may be at most 1,000 bytes long (after JSON decoding); invalid UTF-8 is
// replaced with U+FFFD, as encoding/json does. An object that names a known column twice (after
// JSON unescaping) is ambiguous: no value of it is chosen and the row is invalid.
//
// A row is invalid, and skipped on its own with a short reason, when (the first that applies):
//
//   - it is not a JSON object: not_an_object;
//   - it names a known column more than once: duplicate_column:<column> (the first such column
//     in the report's order);
//   - a known column holds a JSON value of another type: wrong_type:<column>, or a text longer
//     than the bound: cell_too_long:<column> (columns taken in the report's order);
//   - Job Posting Application Id, Candidate Id or Job Req Id is missing or blank:
//     missing_application_id, missing_candidate_id, missing_job_req_id;
//   - Do Not Hire Status is neither True nor False (any letter case) nor missing or blank:
//     invalid_do_not_hire;
//   - Contact Method is missing or blank: missing_contact;
//   - Contact Type Description is not Home, Mobile or Personal Email (any letter case):
//     unknown_contact_type;
//   - the contact cell cannot be used: an e-mail address that fails the syntax check, or a
//     phone cell with no digit or with anything but ASCII digits, phone punctuation, a
//     leading + and an extension (phone.LooksLikeNumber; letters, vanity numbers included,
//     are refused): unusable_contact.
//
// # Applications
//
// Rows are grouped by Job Posting Application Id, one Application per id, in the order the ids
// first appear (in any row, valid or not). An application is built from its valid rows only:
// the latest row's Candidate Id and Job Req Id, and the latest non-empty name, job title, job
// location and application date. An application with no valid row does not appear, unless it is
// excluded as do-not-hire.
//
// Do Not Hire Status True on any row of an application (a valid row or an invalid one, as long
// as the row has a usable Job Posting Application Id) excludes the application: it appears with
// DoNotHire set and must never be invited. A Do Not Hire Status that cannot be read (another
// spelling such as "Yes" or "Y", a JSON true or number, a cell too long) makes the row invalid
// and excludes the application too, since it may well be a do-not-hire mark; only "False", a
// blank or missing cell, and a JSON false (still the wrong type, so its row is invalid) do not
// exclude. A row that names Do Not Hire Status twice excludes its application whatever the
// values ("True" then "False" must not read as hireable), and a row that names Job Posting
// Application Id twice with a Do Not Hire Status that excludes excludes every application it
// names.
//
// The e-mail address comes from the Personal Email rows: the address must be a bare addr-spec
// for net/mail (no display name, no angle brackets, no comment) whose domain has a dot; its
// domain is lower-cased. The latest valid one wins.
//
// The phone number is chosen among the Home and Mobile rows, each normalised with
// phone.Normalize(cell, "US"): a number that validates beats one that does not, then Mobile
// beats Home, then the latest row wins. Phone is the E.164 form of a valid number; a number that
// does not validate is passed through as Normalize leaves it (a US-shaped one gains +1), with
// PhoneValid false and a Note "phone_not_validated" on its row.
//
// Reasons and notes never hold personal data: they name a rule and at most a column.
package hrsuitereport

import (
	"errors"
	"net/mail"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/recruitd/recruitd/internal/personname"
	"github.com/recruitd/recruitd/internal/phone"
)

// Column names, exact.
const (
	ColCandidateID   = "Candidate Id"
	ColFirstName     = "Candidate First Name"
	ColLastName      = "Candidate Last Name"
	ColContactMethod = "Contact Method"
	ColContactType   = "Contact Type Description"
	ColJobReqID      = "Job Req Id"
	ColJobLocation   = "Job Req Location"
	ColJobTitle      = "Job Req Title"
	ColAppliedAt     = "Application Date/Time"
	ColApplicationID = "Job Posting Application Id"
	ColDoNotHire     = "Do Not Hire Status"
)

// Outcome of a row. Invalid rows carry "invalid:<reason>" (use Invalid(reason)).
type Outcome string

const (
	Accepted   Outcome = "accepted"
	Duplicate  Outcome = "duplicate"
	DoNotHire  Outcome = "do_not_hire"
	UnknownJob Outcome = "unknown_job"
	NoTrigger  Outcome = "no_trigger"
)

// Invalid is the outcome of a row skipped for reason (a RowIssue's Reason).
func Invalid(reason string) Outcome { return Outcome("invalid:" + reason) }

// Reasons of invalid rows (RowIssue.Reason). The wrong-type and too-long reasons name the
// column after the colon.
const (
	ReasonNotAnObject          = "not_an_object"
	ReasonDuplicateColumn      = "duplicate_column:" // + column name
	ReasonWrongType            = "wrong_type:"       // + column name
	ReasonCellTooLong          = "cell_too_long:"    // + column name
	ReasonMissingApplicationID = "missing_application_id"
	ReasonMissingCandidateID   = "missing_candidate_id"
	ReasonMissingJobReqID      = "missing_job_req_id"
	ReasonInvalidDoNotHire     = "invalid_do_not_hire"
	ReasonMissingContact       = "missing_contact"
	ReasonUnknownContactType   = "unknown_contact_type"
	ReasonUnusableContact      = "unusable_contact"
)

// NotePhoneNotValidated is the Note on the row of a chosen number that did not validate.
const NotePhoneNotValidated = "phone_not_validated"

// MaxCellBytes bounds the text of a cell, after JSON decoding.
const MaxCellBytes = 1000

// ErrNotArray means the body is not one JSON array. Count and Parse wrap it with what the body is.
var ErrNotArray = errors.New("the body is not a JSON array")

// Count checks that body is one JSON array (whitespace around allowed, nothing after it) and
// returns its element count, cheaply: json.Valid and a scan over the bytes, no value per row.
func Count(body []byte) (int, error) {
	return elements(body, nil)
}

// Batch is what the rules make of a delivery.
type Batch struct {
	Rows         int           // elements in the array
	Applications []Application // one per Job Posting Application Id, in order of first appearance
	Invalid      []RowIssue    // rows skipped, each with its reason (sorted by Index)
	Notes        []RowIssue    // rows kept but worth a log line, e.g. "phone_not_validated" (sorted by Index)
}

// RowIssue is a row skipped or noted.
type RowIssue struct {
	Index  int    // the row's index in the array
	Reason string // a reason (Reason* constants) or a note (Note* constants)
	// ApplicationID is the row's Job Posting Application Id when it has a usable one, else "".
	ApplicationID string
}

// Application is one Job Posting Application Id of a delivery.
type Application struct {
	ExternalID  string // Job Posting Application Id (trimmed)
	CandidateID string // Candidate Id (latest non-empty row wins)
	JobReqID    string // Job Req Id (latest row wins)

	FirstName, LastName, JobTitle, JobLocation, AppliedAt string // latest non-empty

	Email      string // from Personal Email rows, syntax-checked, domain lower-cased; latest valid wins; "" none
	Phone      string // chosen number: E.164 when valid, else passed through (US-shaped gain +1); "" none
	PhoneValid bool
	DoNotHire  bool  // True on any row (case-insensitive, trimmed), or an unreadable Do Not Hire Status
	Rows       []int // indexes of this application's VALID rows
}

// Parse applies the row rules to a delivery body. Its only error wraps ErrNotArray.
func Parse(body []byte) (*Batch, error) {
	p := parser{apps: make(map[string]*appState)}
	n, err := elements(body, p.row)
	if err != nil {
		return nil, err
	}
	b := &Batch{Rows: n, Invalid: p.invalid}
	if len(p.order) > 0 {
		b.Applications = make([]Application, 0, len(p.order))
	}
	numbers := normalizeAll(p.order)
	for _, st := range p.order {
		if len(st.app.Rows) == 0 && !st.app.DoNotHire {
			continue
		}
		if note, ok := st.choosePhone(numbers); ok {
			b.Notes = append(b.Notes, note)
		}
		b.Applications = append(b.Applications, st.app)
	}
	slices.SortFunc(b.Notes, func(x, y RowIssue) int { return x.Index - y.Index })
	return b, nil
}

// Columns, in the report's order (which orders the wrong-type and too-long reasons).
const (
	cCandidateID = iota
	cFirstName
	cLastName
	cContactMethod
	cContactType
	cJobReqID
	cJobLocation
	cJobTitle
	cAppliedAt
	cApplicationID
	cDoNotHire
	numColumns
)

var columnNames = [numColumns]string{
	ColCandidateID, ColFirstName, ColLastName, ColContactMethod, ColContactType, ColJobReqID,
	ColJobLocation, ColJobTitle, ColAppliedAt, ColApplicationID, ColDoNotHire,
}

var columnIndex = func() map[string]int {
	m := make(map[string]int, numColumns)
	for i, name := range columnNames {
		m[name] = i
	}
	return m
}()

// numberColumns may hold a JSON number.
var numberColumns = [numColumns]bool{cCandidateID: true, cJobReqID: true, cApplicationID: true, cContactMethod: true}

// cellState is what a row's cell holds.
type cellState uint8

const (
	cellMissing   cellState = iota // absent, null
	cellText                       // text (possibly blank)
	cellWrongType                  // a JSON value of another type
	cellTooLong                    // text over MaxCellBytes
)

type row struct {
	state    [numColumns]cellState
	text     [numColumns]string
	dnhFalse bool // Do Not Hire Status is a JSON false (wrong type, but plainly not a mark)
	// named counts the members naming each column, up to 2: 2 is a duplicated column.
	named [numColumns]uint8
	// excluded: a Do Not Hire Status member was True or unreadable, or the column was named
	// twice. Every value counts, not only the last.
	excluded bool
	// appIDs are the usable Job Posting Application Id values, one per member naming it.
	appIDs []string
}

type contactKind uint8

const (
	contactUnknown contactKind = iota
	contactHome
	contactMobile
	contactEmail
)

type phoneRow struct {
	index  int
	mobile bool
	raw    string
}

type appState struct {
	app    Application
	phones []phoneRow
}

type normalized struct {
	e164 string
	ok   bool
}

type parser struct {
	apps    map[string]*appState
	order   []*appState
	invalid []RowIssue
}

func (p *parser) row(index int, elem []byte) {
	if len(elem) == 0 || elem[0] != '{' {
		p.invalid = append(p.invalid, RowIssue{Index: index, Reason: ReasonNotAnObject})
		return
	}
	var r row
	members(elem, func(key, val []byte) {
		c, ok := lookupColumn(key)
		if !ok {
			return
		}
		r.named[c] = min(r.named[c]+1, 2)
		r.set(c, val)
		switch c {
		case cDoNotHire:
			// An unreadable Do Not Hire Status may be a do-not-hire mark in another spelling
			// ("Yes", "Y", 1): excluding the application is the safe reading. So is any mark
			// among several values of the column, and the column named twice at all.
			dnh, readable := r.doNotHire()
			r.excluded = r.excluded || dnh || !readable || r.named[c] > 1
		case cApplicationID:
			if r.state[c] == cellText && r.text[c] != "" {
				r.appIDs = append(r.appIDs, r.text[c])
			}
		}
	})

	var st *appState
	appID := ""
	for _, id := range r.appIDs {
		s := p.apps[id]
		if s == nil {
			s = &appState{app: Application{ExternalID: id}}
			p.apps[id] = s
			p.order = append(p.order, s)
		}
		if r.excluded {
			s.app.DoNotHire = true
		}
		st, appID = s, id
	}
	_, dnhReadable := r.doNotHire()
	kind, reason := r.check(dnhReadable)
	if reason != "" {
		p.invalid = append(p.invalid, RowIssue{Index: index, Reason: reason, ApplicationID: appID})
		return
	}

	a := &st.app
	a.Rows = append(a.Rows, index)
	a.CandidateID = r.text[cCandidateID]
	a.JobReqID = r.text[cJobReqID]
	latest(&a.FirstName, personname.Clean(r.text[cFirstName]))
	latest(&a.LastName, personname.Clean(r.text[cLastName]))
	latest(&a.JobTitle, r.text[cJobTitle])
	latest(&a.JobLocation, r.text[cJobLocation])
	latest(&a.AppliedAt, r.text[cAppliedAt])
	switch kind {
	case contactEmail:
		a.Email = r.text[cContactMethod] // checked and normalised by check
	case contactHome, contactMobile:
		st.phones = append(st.phones, phoneRow{index: index, mobile: kind == contactMobile, raw: r.text[cContactMethod]})
	}
}

func latest(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// lookupColumn finds the column a member's key (a JSON string literal) names.
func lookupColumn(key []byte) (int, bool) {
	if len(key) < 2 {
		return 0, false
	}
	if containsByte(key, '\\') {
		c, ok := columnIndex[decodeString(key)]
		return c, ok
	}
	c, ok := columnIndex[string(key[1:len(key)-1])]
	return c, ok
}

// set records the JSON value val of column c; a later member naming c replaces it.
func (r *row) set(c int, val []byte) {
	r.text[c], r.state[c] = "", cellMissing
	r.dnhFalse = r.dnhFalse && c != cDoNotHire
	if len(val) == 0 {
		return
	}
	switch b := val[0]; {
	case b == 'n':
		return
	case b == '"':
		if len(val)-2 > 6*MaxCellBytes { // no escape is more than 6 bytes for one byte of text
			r.state[c] = cellTooLong
			return
		}
		s := decodeString(val)
		if len(s) > MaxCellBytes {
			r.state[c] = cellTooLong
			return
		}
		if strings.IndexByte(s, 0) >= 0 {
			s = strings.ReplaceAll(s, "\x00", "")
		}
		r.text[c], r.state[c] = strings.TrimSpace(s), cellText
	case b == '-' || b >= '0' && b <= '9':
		if !numberColumns[c] {
			r.state[c] = cellWrongType
			return
		}
		s, ok := decimalText(val, MaxCellBytes)
		if !ok {
			r.state[c] = cellTooLong
			return
		}
		r.text[c], r.state[c] = s, cellText
	default: // true, false, object, array
		r.state[c] = cellWrongType
		if c == cDoNotHire && b == 'f' {
			r.dnhFalse = true
		}
	}
}

// doNotHire reads Do Not Hire Status: dnh is true for "True"; readable is false when the cell
// is neither True, False, blank nor missing.
func (r *row) doNotHire() (dnh, readable bool) {
	switch r.state[cDoNotHire] {
	case cellMissing:
		return false, true
	case cellText:
		switch s := r.text[cDoNotHire]; {
		case s == "", strings.EqualFold(s, "false"):
			return false, true
		case strings.EqualFold(s, "true"):
			return true, true
		}
		return false, false
	case cellWrongType:
		return false, r.dnhFalse
	}
	return false, false // too long
}

// check applies the validity rules in order and returns the first reason that applies, or the
// contact kind of a valid row. A valid e-mail row's contact text is normalised in place.
func (r *row) check(dnhReadable bool) (contactKind, string) {
	for c := range numColumns {
		if r.named[c] > 1 {
			return 0, ReasonDuplicateColumn + columnNames[c]
		}
	}
	for c := range numColumns {
		switch r.state[c] {
		case cellWrongType:
			return 0, ReasonWrongType + columnNames[c]
		case cellTooLong:
			return 0, ReasonCellTooLong + columnNames[c]
		}
	}
	switch {
	case r.text[cApplicationID] == "":
		return 0, ReasonMissingApplicationID
	case r.text[cCandidateID] == "":
		return 0, ReasonMissingCandidateID
	case r.text[cJobReqID] == "":
		return 0, ReasonMissingJobReqID
	case !dnhReadable:
		return 0, ReasonInvalidDoNotHire
	case r.text[cContactMethod] == "":
		return 0, ReasonMissingContact
	}
	var kind contactKind
	switch t := r.text[cContactType]; {
	case strings.EqualFold(t, "Mobile"):
		kind = contactMobile
	case strings.EqualFold(t, "Home"):
		kind = contactHome
	case strings.EqualFold(t, "Personal Email"):
		kind = contactEmail
	default:
		return 0, ReasonUnknownContactType
	}
	if kind == contactEmail {
		addr, ok := checkEmail(r.text[cContactMethod])
		if !ok {
			return 0, ReasonUnusableContact
		}
		r.text[cContactMethod] = addr
	} else if !phone.LooksLikeNumber(r.text[cContactMethod]) {
		return 0, ReasonUnusableContact
	}
	return kind, ""
}

// checkEmail accepts a bare addr-spec (net/mail) whose domain has a dot between labels, and
// returns it with its domain lower-cased.
func checkEmail(s string) (string, bool) {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return "", false
	}
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.Contains(domain, "..") || strings.HasPrefix(domain, "[") {
		return "", false
	}
	return s[:at+1] + strings.ToLower(domain), true
}

// normalizeAll normalises each distinct phone cell of the applications once. Parsing a number
// is most of Parse's time (about 10 µs each), so large batches spread it over up to GOMAXPROCS
// goroutines (at most 8); the result does not depend on how.
func normalizeAll(apps []*appState) map[string]normalized {
	var raws []string
	seen := make(map[string]normalized)
	for _, st := range apps {
		for _, pr := range st.phones {
			if _, dup := seen[pr.raw]; !dup {
				seen[pr.raw] = normalized{}
				raws = append(raws, pr.raw)
			}
		}
	}
	out := make([]normalized, len(raws))
	workers := min(runtime.GOMAXPROCS(0), 8, len(raws)/64)
	if workers <= 1 {
		for i, raw := range raws {
			out[i].e164, out[i].ok = phone.Normalize(raw, "US")
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i := int(next.Add(1) - 1)
					if i >= len(raws) {
						return
					}
					out[i].e164, out[i].ok = phone.Normalize(raws[i], "US")
				}
			})
		}
		wg.Wait()
	}
	for i, raw := range raws {
		seen[raw] = out[i]
	}
	return seen
}

// choosePhone sets the application's phone from its phone rows (see the package doc), given
// every number normalised, and returns the note to log when the number did not validate.
func (st *appState) choosePhone(numbers map[string]normalized) (RowIssue, bool) {
	var best *phoneRow
	var bestN normalized
	for i := range st.phones {
		pr := &st.phones[i]
		n := numbers[pr.raw]
		if best == nil || better(n.ok, pr, bestN.ok, best) {
			best, bestN = pr, n
		}
	}
	if best == nil {
		return RowIssue{}, false
	}
	st.app.Phone, st.app.PhoneValid = bestN.e164, bestN.ok
	if bestN.ok {
		return RowIssue{}, false
	}
	return RowIssue{Index: best.index, Reason: NotePhoneNotValidated, ApplicationID: st.app.ExternalID}, true
}

// better reports whether phone row a (valid: aOK) is preferred to row b: a valid number, then
// Mobile, then the latest row.
func better(aOK bool, a *phoneRow, bOK bool, b *phoneRow) bool {
	if aOK != bOK {
		return aOK
	}
	if a.mobile != b.mobile {
		return a.mobile
	}
	return a.index > b.index
}
