package atswrite

import (
	"testing"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

func TestRecordOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		refs store.ApplicationATSRefs
		want Record
		ok   bool
	}{
		{"nothing stored", store.ApplicationATSRefs{}, Record{}, false},
		{"HR suite, read-only even when synced", store.ApplicationATSRefs{HRSuite: true, ATSType: string(models.ATSTypeA), AggregatorRef: "agg-1", ExternalID: "e-1"}, Record{}, false},
		{"synced by the aggregator wins over the ATS id", store.ApplicationATSRefs{ATSType: string(models.ATSTypeB), AggregatorRef: "agg-1", ExternalID: "e-1"},
			Record{Target: models.ATSTargetAggregator, Ref: "agg-1"}, true},
		{"ATS-C under its job", store.ApplicationATSRefs{ATSType: string(models.ATSTypeC), ExternalID: "e-1", JobExternalID: "j-1"},
			Record{Target: string(models.ATSTypeC), Ref: "e-1", RefJob: "j-1"}, true},
		{"ATS-A", store.ApplicationATSRefs{ATSType: string(models.ATSTypeA), ExternalID: "e-2", JobExternalID: "j-2"},
			Record{Target: string(models.ATSTypeA), Ref: "e-2", RefJob: "j-2"}, true},
		{"no ATS id", store.ApplicationATSRefs{ATSType: string(models.ATSTypeA)}, Record{}, false},
		{"no ATS type", store.ApplicationATSRefs{ExternalID: "e-1"}, Record{}, false},
		{"a type without write-back", store.ApplicationATSRefs{ATSType: "OTHER", ExternalID: "e-1"}, Record{}, false},
	} {
		got, ok := RecordOf(tc.refs)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: RecordOf = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
