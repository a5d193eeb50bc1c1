package models

import (
	"slices"
	"time"

	"github.com/google/uuid"
)

// IntegrationState is the state of a company's HR-suite connection card
// (aggregator_integrations.state).
type IntegrationState string

const (
	IntegrationNotConnected   IntegrationState = "not_connected"
	IntegrationSyncing        IntegrationState = "syncing" // shown as "Syncing…"
	IntegrationConnected      IntegrationState = "connected"
	IntegrationNeedsAttention IntegrationState = "needs_attention"
)

var allIntegrationStates = []IntegrationState{IntegrationNotConnected, IntegrationSyncing, IntegrationConnected, IntegrationNeedsAttention}

// AllIntegrationStates returns every IntegrationState.
func AllIntegrationStates() []IntegrationState { return slices.Clone(allIntegrationStates) }

// Valid reports whether s is an IntegrationState.
func (s IntegrationState) Valid() bool { return slices.Contains(allIntegrationStates, s) }

// ParseIntegrationState parses s, ignoring case.
func ParseIntegrationState(s string) (IntegrationState, error) {
	return parseEnum("integrationState", s, allIntegrationStates)
}

// AggregatorIntegration is a company's connection to its HR suite through an integration
// aggregator (table aggregator_integrations). Credentials and WebhookSecret are sealed with
// secretbox bound to the company and never leave the process.
type AggregatorIntegration struct {
	CompanyID         uuid.UUID        `gorm:"column:company_id;type:uuid;primaryKey"`
	Provider          string           `gorm:"column:provider;default:kombo"`
	Credentials       []byte           `gorm:"column:credentials" json:"-"`
	WebhookSecret     []byte           `gorm:"column:webhook_secret" json:"-"`
	IntegrationID     *string          `gorm:"column:integration_id"`
	State             IntegrationState `gorm:"column:state;default:not_connected"`
	RemoteState       *string          `gorm:"column:remote_state"`
	SetupStatus       *string          `gorm:"column:setup_status"`
	Reason            *string          `gorm:"column:reason"`
	StateSince        time.Time        `gorm:"column:state_since;default:now()"`
	StateEventAt      *time.Time       `gorm:"column:state_event_at"`
	ConnectURL        *string          `gorm:"column:connect_url"`
	ConnectedAt       *time.Time       `gorm:"column:connected_at"`
	LastSyncAt        *time.Time       `gorm:"column:last_sync_at"`
	LastFullPassAt    *time.Time       `gorm:"column:last_full_pass_at"`
	ImportCursor      *time.Time       `gorm:"column:import_cursor"`
	ImportRequestedAt *time.Time       `gorm:"column:import_requested_at"`
	// ApplicationCursor, ApplicationsSyncedAt and ApplicationsFullPassAt are the application
	// sync's (companies whose applications come through the aggregator): the updated_after of
	// the next incremental pass, the end of the last pass, the start of the last full one.
	ApplicationCursor      *time.Time `gorm:"column:application_cursor"`
	ApplicationsSyncedAt   *time.Time `gorm:"column:applications_synced_at"`
	ApplicationsFullPassAt *time.Time `gorm:"column:applications_full_pass_at"`
	CreatedAt              time.Time  `gorm:"column:created_at"`
	UpdatedAt              time.Time  `gorm:"column:updated_at"`
}

// TableName implements gorm's tabler.
func (AggregatorIntegration) TableName() string { return "aggregator_integrations" }
