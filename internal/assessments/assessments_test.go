package assessments

import (
	"testing"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/internal/store"
)

func TestPickApplication(t *testing.T) {
	ats := store.ApplicationRef{ID: uuid.New(), CandidateExternalID: "C-1", JobExternalID: "J-1"}
	manual := store.ApplicationRef{ID: uuid.New(), JobExternalID: "J-2"}
	apps := []store.ApplicationRef{ats, manual}
	tests := []struct {
		name, candidate, job string
		want                 uuid.UUID
		ok                   bool
	}{
		{"no cross-check", "", "", ats.ID, true},
		{"both match", "C-1", "J-1", ats.ID, true},
		{"candidate unknown on the second", "C-9", "J-2", manual.ID, true},
		{"job matches none", "", "J-9", uuid.Nil, false},
	}
	for _, tt := range tests {
		got, ok := PickApplication(apps, tt.candidate, tt.job)
		if ok != tt.ok || got.ID != tt.want {
			t.Errorf("PickApplication(%s) = %s, %v, want %s, %v", tt.name, got.ID, ok, tt.want, tt.ok)
		}
	}
}
