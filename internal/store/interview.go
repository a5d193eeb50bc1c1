package store

import (
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// insertInterviewEvent records one entry of a session's timeline inside tx. detail holds
// enumerations, counts and times only. A non-empty onceKey records the event at most once per
// session (a retried step's second record is dropped).
func insertInterviewEvent(tx *gorm.DB, companyID, sessionID uuid.UUID, kind string, detail map[string]any, onceKey string) error {
	ev := models.InterviewEvent{CompanyID: companyID, SessionID: sessionID, Kind: kind, Detail: models.NewJSON(detail)}
	q := tx
	if onceKey != "" {
		ev.OnceKey = &onceKey
		q = tx.Clauses(clause.OnConflict{DoNothing: true})
	}
	if ev.Detail.V == nil {
		ev.Detail.V = map[string]any{}
	}
	if err := q.Omit("id", "at").Create(&ev).Error; err != nil {
		return fmt.Errorf("record %s event of session %s: %w", kind, sessionID, err)
	}
	return nil
}
