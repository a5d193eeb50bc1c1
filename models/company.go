package models

import (
	"time"

	"github.com/google/uuid"
)

// Feature names used as keys of Company.Features.
const (
	FeatureResumeFit       = "resume_fit"
	FeatureTalentMatch     = "talent_match"
	FeatureCoordinator     = "coordinator"
	FeatureWhatsAppChannel = "whatsapp_channel"
	FeatureCustomLogo      = "custom_logo"
)

// DefaultCheatThreshold is the database default of companies.cheat_threshold.
const DefaultCheatThreshold = 70

// Company is a tenant (table companies).
//
// ATSCredentials is the AES-GCM ciphertext of a JSON object of credential fields (base URL
// included), encrypted by the application; ATSCredentialFields names the populated fields so
// presence can be reported without decrypting. CheatThreshold has a GORM default: creating a
// Company with CheatThreshold 0 stores DefaultCheatThreshold (an update can set 0).
type Company struct {
	ID                         uuid.UUID             `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	Slug                       string                `gorm:"column:slug"`
	Name                       string                `gorm:"column:name"`
	ATSType                    *ATSType              `gorm:"column:ats_type"`
	ATSCredentials             []byte                `gorm:"column:ats_credentials" json:"-"`
	ATSCredentialFields        StringArray           `gorm:"column:ats_credential_fields;type:text[]"`
	HRSuiteAccount             bool                  `gorm:"column:hr_suite_account"`
	DefaultJobStatus           JobStatus             `gorm:"column:default_job_status;default:ACTIVE"`
	FraudDetectionEnabled      bool                  `gorm:"column:fraud_detection_enabled"`
	ModelCheatDetectionEnabled bool                  `gorm:"column:model_cheat_detection_enabled"`
	CheatThreshold             float64               `gorm:"column:cheat_threshold;type:numeric(5,2);default:70"`
	AutoJobImportEnabled       bool                  `gorm:"column:auto_job_import_enabled"`
	DecisionSyncFields         JSON[[]SyncField]     `gorm:"column:decision_sync_fields;type:jsonb"`
	KomboIntegrationID         *string               `gorm:"column:kombo_integration_id"`
	KomboStatus                *string               `gorm:"column:kombo_status"`
	Features                   JSON[map[string]bool] `gorm:"column:features;type:jsonb"`
	OperationsEmail            *string               `gorm:"column:operations_email"`
	PartnerDeadlineSeconds     int                   `gorm:"column:partner_deadline_seconds;default:600"`
	// Interview settings (docs/interviews.md): the invitation's expiry, the window to finish a
	// started interview, the two reminders (the first when not started this long after the
	// invitation, the last this long before the deadline), the candidates' quiet hours ("HH:MM",
	// local time) and the zone used when a candidate's is unknown (IANA name).
	InterviewExpirySeconds        int    `gorm:"column:interview_expiry_seconds;default:604800"`
	InterviewIncompleteSeconds    int    `gorm:"column:interview_incomplete_seconds;default:345600"`
	InterviewRemindersEnabled     bool   `gorm:"column:interview_reminders_enabled;default:true"`
	InterviewFirstReminderSeconds int    `gorm:"column:interview_first_reminder_seconds;default:86400"`
	InterviewLastReminderSeconds  int    `gorm:"column:interview_last_reminder_seconds;default:86400"`
	QuietHoursStart               string `gorm:"column:quiet_hours_start;default:21:00"`
	QuietHoursEnd                 string `gorm:"column:quiet_hours_end;default:08:00"`
	TimeZone                      string `gorm:"column:time_zone;default:UTC"`
	// InvitationWaitSeconds is how long a flow's invitation to a job whose interview is not
	// ready waits for it before the run ends with nothing sent.
	InvitationWaitSeconds int       `gorm:"column:invitation_wait_seconds;default:259200"`
	CreatedAt             time.Time `gorm:"column:created_at"`
	UpdatedAt             time.Time `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (Company) TableName() string { return "companies" }

// SyncField is one decision-stage pair written back to the ATS: the ATS field and the value
// that marks the stage. Decision names the recruiter decision the pair is written for; a pair
// without one is the ACCEPTED pair (the decision stage of the earlier, decision-less settings).
// For an ATS connected through the aggregator the field is "stage" and the value the
// aggregator's stage id.
type SyncField struct {
	Field    string   `json:"field"`
	Value    string   `json:"value"`
	Decision Decision `json:"decision,omitempty"`
}

// SyncFieldFor returns the pair written for decision d: the first pair naming d, else, for
// ACCEPTED, the first pair naming none. NONE has no pair.
func SyncFieldFor(pairs []SyncField, d Decision) (SyncField, bool) {
	if d == DecisionNone {
		return SyncField{}, false
	}
	for _, p := range pairs {
		if p.Decision == d && p.Field != "" && p.Value != "" {
			return p, true
		}
	}
	if d == DecisionAccepted {
		for _, p := range pairs {
			if p.Decision == "" && p.Field != "" && p.Value != "" {
				return p, true
			}
		}
	}
	return SyncField{}, false
}
