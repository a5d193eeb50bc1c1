package jobtools

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/internal/ats"
	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// atsLabels are the human names of the ATS types.
var atsLabels = map[models.ATSType]string{
	models.ATSTypeA: "ATS-A (job-submission records)",
	models.ATSTypeB: "ATS-B (opportunity-resource records)",
	models.ATSTypeC: "ATS-C (person-on-job records)",
	models.ATSTypeD: "ATS-D (assessment-order applications)",
}

// atsDCredentialFields are the credential fields expected of an ATS-D connection. internal/ats
// has no ATS-D client (ATS-D only routes assessment links, which the provider pushes to us), so
// it lists none; an ATS-D connection is configured like the other API-key ATSs, with the API
// root and a key.
var atsDCredentialFields = []string{ats.FieldBaseURL, ats.FieldAPIKey}

// expectedCredentialFields are the credential field names a connection of t needs.
func expectedCredentialFields(t models.ATSType) []string {
	if f := ats.ExpectedCredentialFields(t); f != nil {
		return f
	}
	if t == models.ATSTypeD {
		return slices.Clone(atsDCredentialFields)
	}
	return []string{}
}

func registerATS(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getAtsConnection",
		Title: "ATS connection",
		Description: "The company's applicant-tracking-system (ATS) connection, for questions like \"is our ATS connected\", " +
			"\"which credential is missing\" or \"are jobs imported automatically\". Returns atsType and atsLabel, connected " +
			"(at least one expected credential field is populated), the expected, configured and missing credential field " +
			"NAMES (never their values), the aggregator (kombo: integrationId, status, configured), " +
			"autoJobImportEnabled, syncFieldsConfigured (at least one decision-stage field/value pair is set to be written " +
			"to the ATS) and applicationSync (candidates and applications synced from the ATS through the aggregator: enabled, " +
			"last sync, last full pass, counts) and writeBack (results written back to the ATS: last write, last write error, " +
			"failed and pending counts). It never returns keys, tokens, passwords or other secrets.",
		InputSchema: toolkit.InputSchema[ATSInput](nil),
	}, atsConnection)
}

// ATSInput are getAtsConnection's arguments.
type ATSInput struct {
	toolkit.CompanyArg
}

// ATSOutput is getAtsConnection's structured result (the spec's fields).
type ATSOutput struct {
	ATSType                    *string   `json:"atsType" jsonschema:"ATS-A, ATS-B, ATS-C or ATS-D; null when no ATS is configured"`
	ATSLabel                   *string   `json:"atsLabel" jsonschema:"human name of the ATS type; null when none"`
	Connected                  bool      `json:"connected" jsonschema:"at least one expected credential field is populated"`
	ExpectedCredentialFields   []string  `json:"expectedCredentialFields" jsonschema:"credential field names the ATS type needs"`
	ConfiguredCredentialFields []string  `json:"configuredCredentialFields" jsonschema:"credential field names that hold a value (names only)"`
	MissingCredentialFields    []string  `json:"missingCredentialFields" jsonschema:"expected field names without a value"`
	Kombo                      komboInfo `json:"kombo" jsonschema:"the integration aggregator the HR-suite jobs arrive through"`
	AutoJobImportEnabled       bool      `json:"autoJobImportEnabled" jsonschema:"new ATS jobs are imported automatically"`
	SyncFieldsConfigured       bool      `json:"syncFieldsConfigured" jsonschema:"at least one decision-stage field/value pair is configured"`
	ApplicationSync            appSync   `json:"applicationSync" jsonschema:"candidates and applications synced from the ATS through the aggregator"`
	WriteBack                  writeBack `json:"writeBack" jsonschema:"results written back to the ATS: report notes and decision stages"`
	toolkit.Notices
}

// appSync is the application sync of a company that connected its ATS through the aggregator.
type appSync struct {
	Enabled            bool    `json:"enabled" jsonschema:"candidates and applications come from the ATS through the aggregator (an HR suite's come by webhook)"`
	LastSyncAt         *string `json:"lastSyncAt" jsonschema:"end of the last application pass (RFC 3339); null before the first"`
	LastFullPassAt     *string `json:"lastFullPassAt" jsonschema:"start of the last full pass, which catches changes and deletions no webhook announced; null before the first"`
	ApplicationsSynced int64   `json:"applicationsSynced" jsonschema:"applications synced from the ATS"`
	ClosedApplications int64   `json:"closedApplications" jsonschema:"synced applications deleted at the ATS (kept, with status closed)"`
	CandidatesSynced   int64   `json:"candidatesSynced" jsonschema:"distinct candidates of the synced applications"`
}

// writeBack is what was written back to the ATS (docs/ats.md, "Write-back"); never to an HR suite.
type writeBack struct {
	Enabled       bool    `json:"enabled" jsonschema:"results are written back (an ATS company; an HR-suite connection is read-only)"`
	LastWriteAt   *string `json:"lastWriteAt" jsonschema:"when the last write was done (RFC 3339); null before the first"`
	LastWriteOp   *string `json:"lastWriteOp" jsonschema:"note (a report's result and link) or stage (a decision's field/value pair)"`
	LastErrorAt   *string `json:"lastErrorAt" jsonschema:"when the last write that met an error was updated; null when none did"`
	LastError     *string `json:"lastError" jsonschema:"that error (status and reason, never credentials)"`
	FailedWrites  int64   `json:"failedWrites" jsonschema:"writes refused by the ATS or given up after retries"`
	PendingWrites int64   `json:"pendingWrites" jsonschema:"writes not done yet (being retried)"`
}

type komboInfo struct {
	IntegrationID *string `json:"integrationId"`
	Status        *string `json:"status"`
	Configured    bool    `json:"configured" jsonschema:"an integration id is set"`
}

func atsConnection(ctx context.Context, call *toolkit.Call, _ ATSInput) (ATSOutput, *toolkit.Text, error) {
	var out ATSOutput
	var (
		atsType, komboID, komboStatus sql.NullString
		configured                    models.StringArray
		appsSynced, appsFull          sql.NullTime
	)
	// Only presence columns are read: ats_credentials and the aggregator's sealed credentials are
	// never selected. The kombo object is the HR-suite connection card (aggregator_integrations:
	// not_connected, syncing, connected, needs_attention) when the company has one.
	err := call.DB.QueryRowContext(ctx, `
		SELECT c.ats_type, c.ats_credential_fields,
		       coalesce(ai.integration_id, c.kombo_integration_id), coalesce(ai.state, c.kombo_status), c.auto_job_import_enabled,
		       EXISTS (SELECT 1 FROM jsonb_array_elements(c.decision_sync_fields) e
		               WHERE jsonb_typeof(e) = 'object'
		                 AND btrim(coalesce(e->>'field', '')) <> '' AND btrim(coalesce(e->>'value', '')) <> ''),
		       coalesce(ai.integration_id IS NOT NULL AND NOT c.hr_suite_account, false), ai.applications_synced_at, ai.applications_full_pass_at
		FROM companies c LEFT JOIN aggregator_integrations ai ON ai.company_id = c.id
		WHERE c.id = $1`, call.Company.ID).
		Scan(&atsType, &configured, &komboID, &komboStatus, &out.AutoJobImportEnabled, &out.SyncFieldsConfigured,
			&out.ApplicationSync.Enabled, &appsSynced, &appsFull)
	if err != nil {
		return out, nil, err
	}
	out.ApplicationSync.LastSyncAt, out.ApplicationSync.LastFullPassAt = toolkit.NullTime(appsSynced), toolkit.NullTime(appsFull)
	if out.ApplicationSync.Enabled {
		a := &out.ApplicationSync
		err := call.DB.QueryRowContext(ctx, `
			SELECT count(*), count(*) FILTER (WHERE upstream_status = 'closed'), count(DISTINCT ats_candidate_id)
			FROM aggregator_applications WHERE company_id = $1`, call.Company.ID).Scan(&a.ApplicationsSynced, &a.ClosedApplications, &a.CandidatesSynced)
		if err != nil {
			return out, nil, err
		}
	}
	if err := readWriteBack(ctx, call, &out.WriteBack); err != nil {
		return out, nil, err
	}
	out.ExpectedCredentialFields = []string{}
	if atsType.Valid {
		t := models.ATSType(atsType.String)
		label := atsLabels[t]
		if label == "" {
			label = atsType.String
		}
		out.ATSType, out.ATSLabel = &atsType.String, &label
		out.ExpectedCredentialFields = expectedCredentialFields(t)
	}
	out.ConfiguredCredentialFields = nonNil(configured)
	slices.Sort(out.ConfiguredCredentialFields)
	out.MissingCredentialFields = []string{}
	for _, f := range out.ExpectedCredentialFields {
		if slices.Contains(out.ConfiguredCredentialFields, f) {
			out.Connected = true
		} else {
			out.MissingCredentialFields = append(out.MissingCredentialFields, f)
		}
	}
	if komboID.Valid && strings.TrimSpace(komboID.String) != "" {
		out.Kombo.IntegrationID, out.Kombo.Configured = &komboID.String, true
	}
	out.Kombo.Status = toolkit.NullString(komboStatus)
	return out, atsText(&out), nil
}

// readWriteBack reads the company's writes back to the ATS: the last done, the last with an
// error (its text bounded), and the counts.
func readWriteBack(ctx context.Context, call *toolkit.Call, w *writeBack) error {
	var lastAt, errAt sql.NullTime
	var lastOp, lastErr sql.NullString
	err := call.DB.QueryRowContext(ctx, `
		SELECT NOT c.hr_suite_account AND c.ats_type IS NOT NULL,
		       (SELECT done_at FROM ats_writes WHERE company_id = c.id AND status = 'done' ORDER BY done_at DESC LIMIT 1),
		       (SELECT op FROM ats_writes WHERE company_id = c.id AND status = 'done' ORDER BY done_at DESC LIMIT 1),
		       (SELECT updated_at FROM ats_writes WHERE company_id = c.id AND last_error <> '' ORDER BY updated_at DESC LIMIT 1),
		       (SELECT left(last_error, 300) FROM ats_writes WHERE company_id = c.id AND last_error <> '' ORDER BY updated_at DESC LIMIT 1),
		       (SELECT count(*) FROM ats_writes WHERE company_id = c.id AND status = 'failed'),
		       (SELECT count(*) FROM ats_writes WHERE company_id = c.id AND status IN ('pending', 'sending'))
		FROM companies c WHERE c.id = $1`, call.Company.ID).Scan(&w.Enabled, &lastAt, &lastOp, &errAt, &lastErr, &w.FailedWrites, &w.PendingWrites)
	if err != nil {
		return err
	}
	w.LastWriteAt, w.LastErrorAt = toolkit.NullTime(lastAt), toolkit.NullTime(errAt)
	w.LastWriteOp, w.LastError = toolkit.NullString(lastOp), toolkit.NullString(lastErr)
	return nil
}

func atsText(o *ATSOutput) *toolkit.Text {
	var t toolkit.Text
	t.H1("ATS connection")
	list := func(v []string) string {
		if len(v) == 0 {
			return "none"
		}
		return strings.Join(v, ", ")
	}
	label := "none configured"
	if o.ATSLabel != nil {
		label = *o.ATSLabel
	}
	t.KV(
		"ATS", label,
		"Connected", yesNo(o.Connected)+" (at least one expected credential field populated)",
		"Expected credential fields", list(o.ExpectedCredentialFields),
		"Configured credential fields", list(o.ConfiguredCredentialFields),
		"Missing credential fields", list(o.MissingCredentialFields),
		"Auto job import", onOff(o.AutoJobImportEnabled),
		"Decision sync fields", map[bool]string{true: "configured", false: "not configured"}[o.SyncFieldsConfigured],
	)
	t.H2("Integration aggregator (kombo)")
	t.KV("Configured", yesNo(o.Kombo.Configured), "Integration id", toolkit.Str(o.Kombo.IntegrationID), "Status", toolkit.Str(o.Kombo.Status))
	t.H2("Application sync from the ATS")
	if a := o.ApplicationSync; a.Enabled {
		t.KV("Enabled", "yes (candidates and applications come from the ATS through the aggregator)",
			"Last sync", toolkit.Str(a.LastSyncAt), "Last full pass", toolkit.Str(a.LastFullPassAt),
			"Applications synced", fmt.Sprint(a.ApplicationsSynced), "Closed (deleted at the ATS)", fmt.Sprint(a.ClosedApplications),
			"Candidates synced", fmt.Sprint(a.CandidatesSynced))
	} else {
		t.KV("Enabled", "no")
	}
	t.H2("Write-back to the ATS")
	if w := o.WriteBack; w.Enabled {
		t.KV("Enabled", "yes (report notes and decision stages)", "Last write", toolkit.Str(w.LastWriteAt)+" ("+toolkit.Str(w.LastWriteOp)+")",
			"Last write error", toolkit.Str(w.LastError)+" at "+toolkit.Str(w.LastErrorAt),
			"Failed writes", fmt.Sprint(w.FailedWrites), "Pending writes", fmt.Sprint(w.PendingWrites))
	} else {
		t.KV("Enabled", "no")
	}
	t.Blank()
	t.Line("Credential values are never shown; only field names are reported.")
	return &t
}
