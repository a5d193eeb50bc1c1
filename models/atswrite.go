package models

import (
	"time"

	"github.com/google/uuid"
)

// ATSWrite is one write of a result back to a company's ATS (table ats_writes): a session's
// report note or a decision's stage move, done once per Key.
type ATSWrite struct {
	ID            uuid.UUID  `gorm:"column:id;type:uuid;primaryKey;default:gen_random_uuid()"`
	CompanyID     uuid.UUID  `gorm:"column:company_id;type:uuid"`
	SessionID     uuid.UUID  `gorm:"column:session_id;type:uuid"`
	ApplicationID uuid.UUID  `gorm:"column:application_id;type:uuid"`
	Key           string     `gorm:"column:key"`
	Op            string     `gorm:"column:op"`     // ATSWriteNote or ATSWriteStage
	Target        string     `gorm:"column:target"` // an ATSType (A-C) or ATSTargetAggregator
	Ref           string     `gorm:"column:ref"`
	RefJob        string     `gorm:"column:ref_job"`
	Decision      *Decision  `gorm:"column:decision"`
	Field         string     `gorm:"column:field"`
	Value         string     `gorm:"column:value"`
	Status        string     `gorm:"column:status;default:pending"`
	Attempts      int        `gorm:"column:attempts"`
	LastError     string     `gorm:"column:last_error"`
	CreatedAt     time.Time  `gorm:"column:created_at"`
	UpdatedAt     time.Time  `gorm:"column:updated_at"`
	DoneAt        *time.Time `gorm:"column:done_at"`
}

// TableName implements gorm's tabler.
func (ATSWrite) TableName() string { return "ats_writes" }

// Final reports whether the write will not be attempted again: done, failed or superseded.
func (w *ATSWrite) Final() bool {
	return w.Status == ATSWriteDone || w.Status == ATSWriteFailed || w.Status == ATSWriteSuperseded
}

// The ops, targets and statuses of an ATSWrite.
const (
	ATSWriteNote        = "note"
	ATSWriteStage       = "stage"
	ATSTargetAggregator = "aggregator"
	ATSWritePending     = "pending"
	ATSWriteSending     = "sending"
	ATSWriteDone        = "done"
	ATSWriteFailed      = "failed"
	// ATSWriteSuperseded is a stage write whose decision stopped being the session's current
	// one before it was sent: it is never sent.
	ATSWriteSuperseded = "superseded"
)

// ATSWriteOps lists the ops of ats_writes.op.
func ATSWriteOps() []string { return []string{ATSWriteNote, ATSWriteStage} }

// ATSWriteTargets lists the targets of ats_writes.target: the ATS types with write-back, and the
// aggregator.
func ATSWriteTargets() []string {
	return []string{string(ATSTypeA), string(ATSTypeB), string(ATSTypeC), ATSTargetAggregator}
}

// ATSWriteStatuses lists the statuses of ats_writes.status.
func ATSWriteStatuses() []string {
	return []string{ATSWritePending, ATSWriteSending, ATSWriteDone, ATSWriteFailed, ATSWriteSuperseded}
}
