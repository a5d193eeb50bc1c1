package models

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recruitd/recruitd/internal/hrsuitereport"
)

var (
	upSectionRE   = regexp.MustCompile(`(?s)-- \+goose Up\n(.*?)(?:-- \+goose Down|\z)`)
	lineCommentRE = regexp.MustCompile(`--[^\n]*`)
	tableStmtRE   = regexp.MustCompile(`(?is)^\s*(?:CREATE|ALTER)\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+|ONLY\s+)?(\w+)`)
	checkInRE     = regexp.MustCompile(`(?i)CHECK\s*\(\s*(\w+)\s+IN\s*\(([^)]*)\)\s*\)`)
	quotedRE      = regexp.MustCompile(`'([^']*)'`)
)

// checkConstraints returns the values of every CHECK (column IN (...)) constraint in the Up
// sections of ../migrations/*.sql, keyed by "table.column"; later migrations override earlier
// ones.
func checkConstraints(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("../migrations/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no migrations found: %v", err)
	}
	slices.Sort(files)
	checks := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := upSectionRE.FindSubmatch(b)
		if m == nil {
			t.Fatalf("%s: no -- +goose Up section", f)
		}
		up := lineCommentRE.ReplaceAllString(string(m[1]), "")
		for _, stmt := range strings.Split(up, ";") {
			tm := tableStmtRE.FindStringSubmatch(stmt)
			if tm == nil {
				continue
			}
			for _, c := range checkInRE.FindAllStringSubmatch(stmt, -1) {
				var values []string
				for _, q := range quotedRE.FindAllStringSubmatch(c[2], -1) {
					values = append(values, q[1])
				}
				checks[strings.ToLower(tm[1]+"."+c[1])] = values
			}
		}
	}
	return checks
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func TestEnumsMatchCheckConstraints(t *testing.T) {
	checks := checkConstraints(t)
	enums := map[string][]string{
		"interview_sessions.decision":              strs(AllDecisions()),
		"ats_writes.decision":                      strs(AllDecisions()),
		"ats_writes.op":                            ATSWriteOps(),
		"ats_writes.target":                        ATSWriteTargets(),
		"ats_writes.status":                        ATSWriteStatuses(),
		"interview_sessions.medium_type":           strs(AllMediumTypes()),
		"interview_sessions.status":                strs(AllSessionStatuses()),
		"interview_turns.source":                   strs(AllTurnSources()),
		"interview_turns.channel":                  strs(AllAnswerChannels()),
		"interview_thread_signals.channel":         strs(ThreadChannels()),
		"thread_windows.channel":                   strs(ThreadChannels()),
		"identity_webhook_deliveries.outcome":      IdentityWebhookOutcomes(),
		"jobs.status":                              strs(AllJobStatuses()),
		"companies.default_job_status":             {string(JobStatusActive), string(JobStatusPaused)},
		"companies.ats_type":                       strs(AllATSTypes()),
		"ats_coverage_weeks.ats_type":              strs(AllATSTypes()),
		"company_memberships.role":                 strs(AllMembershipRoles()),
		"messages.channel":                         strs(AllMessageChannels()),
		"messages.status":                          strs(AllMessageStatuses()),
		"messages.direction":                       strs(AllMessageDirections()),
		"applications.source":                      strs(AllApplicationSources()),
		"templates.type":                           strs(AllTemplateTypes()),
		"identity_verifications.status":            strs(AllIdentityStatuses()),
		"interview_questions.source":               strs(AllQuestionSources()),
		"workflow_definitions.trigger":             strs(AllFlowTriggers()),
		"aggregator_integrations.state":            strs(AllIntegrationStates()),
		"partner_applications.status":              strs(AllPartnerStatuses()),
		"callbacks.status":                         strs(AllPartnerStatuses()[1:]),
		"callbacks.state":                          strs(AllCallbackStates()),
		"oauth_clients.kind":                       AllOAuthClientKinds(),
		"oauth_clients.token_endpoint_auth_method": AllTokenEndpointAuthMethods(),
		"oauth_tokens.kind":                        AllOAuthTokenKinds(),
		// The outcomes a per-company application record keeps (the final ones, and no_trigger).
		"hrsuite_applications.outcome":     {string(hrsuitereport.Accepted), string(hrsuitereport.DoNotHire), string(hrsuitereport.NoTrigger)},
		"hrsuite_deliveries.body_encoding": AllBodyEncodings(),
	}
	for column, want := range enums {
		got, ok := checks[column]
		if !ok {
			t.Errorf("%s: no CHECK (... IN (...)) constraint in migrations", column)
			continue
		}
		got, want = slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: CHECK allows %q, Go enum has %q", column, got, want)
		}
	}
	for column := range checks {
		if _, ok := enums[column]; !ok {
			t.Errorf("%s: CHECK (... IN (...)) constraint has no Go enumeration in this test", column)
		}
	}
}

// checkEnum verifies that every member parses to itself (also in other case) and is valid, and
// that the zero value is neither.
func checkEnum[T ~string](t *testing.T, name string, all []T, parse func(string) (T, error)) {
	t.Helper()
	if len(all) == 0 {
		t.Fatalf("All%ss() is empty", name)
	}
	valid := func(v T) bool { return any(v).(interface{ Valid() bool }).Valid() }
	for _, v := range all {
		for _, in := range []string{string(v), strings.ToLower(string(v)), strings.ToUpper(string(v))} {
			got, err := parse(in)
			if err != nil || got != v {
				t.Errorf("Parse%s(%q) = %q, %v, want %q, nil", name, in, got, err, v)
			}
		}
		if !valid(v) {
			t.Errorf("%s(%q).Valid() = false, want true", name, v)
		}
	}
	if valid("") {
		t.Errorf("%s(\"\").Valid() = true, want false", name)
	}
	if _, err := parse(""); err == nil {
		t.Errorf("Parse%s(\"\") succeeded, want error", name)
	}
	all[0] = "mutated"
	if _, err := parse("mutated"); err == nil {
		t.Errorf("All%ss() returns the package's own slice", name)
	}
}

func TestEnumMembers(t *testing.T) {
	checkEnum(t, "Decision", AllDecisions(), func(s string) (Decision, error) { return ParseDecision(strings.ToUpper(s)) })
	checkEnum(t, "MediumType", AllMediumTypes(), ParseMediumType)
	checkEnum(t, "SessionStatus", AllSessionStatuses(), ParseSessionStatus)
	checkEnum(t, "JobStatus", AllJobStatuses(), ParseJobStatus)
	checkEnum(t, "ATSType", AllATSTypes(), ParseATSType)
	checkEnum(t, "MembershipRole", AllMembershipRoles(), ParseMembershipRole)
	checkEnum(t, "MessageChannel", AllMessageChannels(), ParseMessageChannel)
	checkEnum(t, "MessageStatus", AllMessageStatuses(), ParseMessageStatus)
	checkEnum(t, "MessageDirection", AllMessageDirections(), ParseMessageDirection)
	checkEnum(t, "ApplicationSource", AllApplicationSources(), ParseApplicationSource)
	checkEnum(t, "TemplateType", AllTemplateTypes(), ParseTemplateType)
	checkEnum(t, "IdentityStatus", AllIdentityStatuses(), ParseIdentityStatus)
	checkEnum(t, "QuestionSource", AllQuestionSources(), ParseQuestionSource)
	checkEnum(t, "IntegrationState", AllIntegrationStates(), ParseIntegrationState)
}

func TestParseEnum(t *testing.T) {
	tests := []struct {
		name    string
		parse   func(string) (string, error)
		in      string
		want    string
		wantErr string
	}{
		{"medium exact", wrap(ParseMediumType), "PHONE_SMS", "PHONE_SMS", ""},
		{"medium lower case", wrap(ParseMediumType), "whatsapp", "WHATSAPP", ""},
		{"medium unknown", wrap(ParseMediumType), "FOO", "", `invalid mediumType "FOO": want one of VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS, NONE`},
		{"medium padded", wrap(ParseMediumType), " VIDEO", "", `invalid mediumType " VIDEO": want one of VIDEO, PHONE, EXTERNAL, BOTH, WHATSAPP, PHONE_SMS, SMS, NONE`},
		{"decision", wrap(ParseDecision), "HIRED", "HIRED", ""},
		{"decision lower case", wrap(ParseDecision), "hired", "", `invalid decision "hired": want one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED`},
		{"decision empty", wrap(ParseDecision), "", "", `invalid decision "": want one of NONE, ACCEPTED, REJECTED, SUBMITTED, PLACED, HIRED`},
		{"template type mixed case", wrap(ParseTemplateType), "RESUMEFIT", "resumeFit", ""},
		{"template type unknown", wrap(ParseTemplateType), "resume_fit", "", `invalid templateType "resume_fit": want one of resumeFit, interviewGuide`},
		{"ats type", wrap(ParseATSType), "ats-c", "ATS-C", ""},
		{"ats type unknown", wrap(ParseATSType), "ATS-E", "", `invalid atsType "ATS-E": want one of ATS-A, ATS-B, ATS-C, ATS-D`},
		{"session status", wrap(ParseSessionStatus), "Completed", "COMPLETED", ""},
		{"job status unknown", wrap(ParseJobStatus), "CLOSED", "", `invalid jobStatus "CLOSED": want one of GENERATING, ACTIVE, PAUSED, FAILED`},
		{"role", wrap(ParseMembershipRole), "Admin", "admin", ""},
		{"channel unknown", wrap(ParseMessageChannel), "fax", "", `invalid messageChannel "fax": want one of email, sms, whatsapp, phone, outbox`},
		{"source", wrap(ParseApplicationSource), "hrsuite_webhook", "hrsuite_webhook", ""},
		{"identity status", wrap(ParseIdentityStatus), "failed", "FAILED", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("parse(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				var ee *EnumError
				if !errors.As(err, &ee) || ee.Value != tt.in {
					t.Fatalf("parse(%q) error %T is not an *EnumError for the input", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("parse(%q) = %q, %v, want %q, nil", tt.in, got, err, tt.want)
			}
		})
	}
}

func wrap[T ~string](parse func(string) (T, error)) func(string) (string, error) {
	return func(s string) (string, error) {
		v, err := parse(s)
		return string(v), err
	}
}

func TestSyncFieldFor(t *testing.T) {
	pairs := []SyncField{{Field: "status", Value: "Passed"}, {Field: "status", Value: "Rejected", Decision: DecisionRejected},
		{Field: "status", Value: "", Decision: DecisionHired}}
	for d, want := range map[Decision]string{DecisionAccepted: "Passed", DecisionRejected: "Rejected", DecisionHired: "", DecisionNone: "", DecisionPlaced: ""} {
		got, ok := SyncFieldFor(pairs, d)
		if ok != (want != "") || got.Value != want {
			t.Errorf("SyncFieldFor(%s) = %+v %v, want %q", d, got, ok, want)
		}
	}
}
