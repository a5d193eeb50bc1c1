package jobtools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recruitd/recruitd/mcpserver/toolkit"
	"github.com/recruitd/recruitd/models"
)

// feature is one reported company feature: its stable machine name, label and what it is.
type feature struct {
	name, label, about string
}

// features lists the reported features in output order.
var features = []feature{
	{"fraudDetection", "Fraud detection", "identity-signal checks (disposable e-mail, VOIP phone, VPN/proxy IP, thin profile, footprint anomalies); gates getFraudVerificationStats and getCheatingDetectionStats"},
	{"modelCheatDetection", "Model cheat detection", "scores interviews for cheating; a session is flagged at or above the cheat threshold; gates getCheatingDetectionStats"},
	{"identityVerification", "Identity verification", "government ID plus selfie, switched on per job; enabled when at least one active job has it"},
	{"resumeFit", "Resume fit", "scores resumes against the job with resume-fit templates"},
	{"talentMatch", "Talent match", "matches the talent pool to jobs"},
	{"coordinator", "Coordinator", "the interview-coordination assistant"},
	{"whatsappChannel", "Messaging-app channel (WhatsApp)", "invites and interviews candidates over WhatsApp"},
	{"customLogo", "Custom logo", "the company's own logo on candidate-facing pages"},
	{"hrSuiteAccount", "HR-suite account", "the company's HR suite sends applications by webhook (read-only connection)"},
}

// featureKeys maps features stored in companies.features to their keys there.
var featureKeys = map[string]string{
	"resumeFit":       models.FeatureResumeFit,
	"talentMatch":     models.FeatureTalentMatch,
	"coordinator":     models.FeatureCoordinator,
	"whatsappChannel": models.FeatureWhatsAppChannel,
	"customLogo":      models.FeatureCustomLogo,
}

func featureNames() []string {
	out := make([]string, len(features))
	for i, f := range features {
		out[i] = f.name
	}
	return out
}

func registerFeatures(s *mcp.Server, env *toolkit.Env) {
	toolkit.Add(s, env, &mcp.Tool{
		Name:  "getCompanyFeatures",
		Title: "Company features",
		Description: "Which product features are enabled for the company. Call it before answering questions that depend on a " +
			"feature (for example whether cheating or fraud data can exist) or when asked what the company has switched on.\n" +
			"Features (machine name: meaning): fraudDetection; modelCheatDetection (with the cheat threshold); " +
			"identityVerification (per job; reported with how many active jobs have it); resumeFit; talentMatch; coordinator; " +
			"whatsappChannel (messaging-app channel); customLogo; hrSuiteAccount.\n" +
			"featureName (optional, any case, spaces or underscores allowed) returns just that feature; omitted, all of them.",
		InputSchema: toolkit.InputSchema[FeaturesInput](nil),
	}, companyFeatures)
}

// FeaturesInput are getCompanyFeatures' arguments.
type FeaturesInput struct {
	FeatureName string `json:"featureName,omitempty" jsonschema:"one feature to report, e.g. fraudDetection, modelCheatDetection, identityVerification, resumeFit, talentMatch, coordinator, whatsappChannel, customLogo, hrSuiteAccount; omitted means all"`
	toolkit.CompanyArg
}

// FeaturesOutput is getCompanyFeatures' structured result.
type FeaturesOutput struct {
	Features []featureStatus `json:"features"`
	toolkit.Notices
}

type featureStatus struct {
	Name        string   `json:"name" jsonschema:"stable machine name"`
	Label       string   `json:"label"`
	Enabled     bool     `json:"enabled"`
	Description string   `json:"description"`
	Threshold   *float64 `json:"cheatThreshold,omitempty" jsonschema:"modelCheatDetection: sessions with a cheating score at or above it are flagged (0-100)"`
	ActiveJobs  *int     `json:"activeJobs,omitempty" jsonschema:"identityVerification: active jobs (status ACTIVE, not deleted)"`
	JobsEnabled *int     `json:"activeJobsWithFeature,omitempty" jsonschema:"identityVerification: active jobs that have it switched on"`
}

func normFeature(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
}

func companyFeatures(ctx context.Context, call *toolkit.Call, in FeaturesInput) (FeaturesOutput, *toolkit.Text, error) {
	out := FeaturesOutput{Features: []featureStatus{}}
	want := ""
	if n := strings.TrimSpace(in.FeatureName); n != "" {
		for _, f := range features {
			if normFeature(f.name) == normFeature(n) {
				want = f.name
			}
		}
		if want == "" {
			return out, nil, toolkit.Errorf("unknown featureName %q: must be one of %s", n, strings.Join(featureNames(), ", "))
		}
	}
	var (
		fraud, cheat, hrSuite bool
		threshold             float64
		flagsJSON             []byte
		activeJobs, ivJobs    int
	)
	err := call.DB.QueryRowContext(ctx, `
		SELECT c.fraud_detection_enabled, c.model_cheat_detection_enabled, c.cheat_threshold::float8,
		       c.hr_suite_account, c.features,
		       (SELECT coalesce(sum(n.jobs), 0) FROM job_counts n WHERE n.company_id = $1 AND n.status = 'ACTIVE' AND NOT n.is_deleted),
		       (SELECT coalesce(sum(n.jobs), 0) FROM job_counts n WHERE n.company_id = $1 AND n.status = 'ACTIVE' AND NOT n.is_deleted
		                                                        AND n.identity)
		FROM companies c WHERE c.id = $1`, call.Company.ID).
		Scan(&fraud, &cheat, &threshold, &hrSuite, &flagsJSON, &activeJobs, &ivJobs)
	if err != nil {
		return out, nil, err
	}
	flags := map[string]any{}
	if err := json.Unmarshal(flagsJSON, &flags); err != nil {
		return out, nil, fmt.Errorf("companies.features: %w", err)
	}
	for _, f := range features {
		if want != "" && f.name != want {
			continue
		}
		st := featureStatus{Name: f.name, Label: f.label, Description: f.about}
		switch f.name {
		case "fraudDetection":
			st.Enabled = fraud
		case "modelCheatDetection":
			st.Enabled, st.Threshold = cheat, &threshold
		case "identityVerification":
			a, n := activeJobs, ivJobs
			st.Enabled, st.ActiveJobs, st.JobsEnabled = n > 0, &a, &n
		case "hrSuiteAccount":
			st.Enabled = hrSuite
		default:
			st.Enabled = flags[featureKeys[f.name]] == true
		}
		out.Features = append(out.Features, st)
	}
	return out, featuresText(&out), nil
}

func featuresText(o *FeaturesOutput) *toolkit.Text {
	var t toolkit.Text
	t.H1("Company features")
	rows := make([][]string, 0, len(o.Features))
	for _, f := range o.Features {
		state := onOff(f.Enabled)
		switch {
		case f.Threshold != nil:
			state += fmt.Sprintf(" (cheat threshold %s)", toolkit.Num(f.Threshold))
		case f.JobsEnabled != nil:
			state += fmt.Sprintf(" (%d of %d active jobs)", *f.JobsEnabled, *f.ActiveJobs)
		}
		rows = append(rows, []string{f.Label, f.Name, state})
	}
	t.Table([]string{"Feature", "Name", "State"}, rows, "")
	t.Blank()
	for _, f := range o.Features {
		t.Line("- %s: %s", f.Name, f.Description)
	}
	return &t
}
