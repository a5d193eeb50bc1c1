package seed

import (
	"context"
	"errors"
	"fmt"

	"github.com/recruitd/recruitd/internal/store"
	"github.com/recruitd/recruitd/models"
)

// DemoATSSlug is the slug of the demo company whose ATS is connected through the aggregator.
const DemoATSSlug = "demo-ats"

// DemoATSStages are the decision-stage pairs of the demo ATS company: the aggregator's stage ids
// of the stages an ACCEPTED and a REJECTED decision move the application to.
var DemoATSStages = []models.SyncField{
	{Field: "stage", Value: "kmb_stage_Interview Passed", Decision: models.DecisionAccepted},
	{Field: "stage", Value: "kmb_stage_Rejected", Decision: models.DecisionRejected},
}

// DemoATS creates, once, the demo company whose ATS (ATS-D) is connected through the aggregator,
// as a customer of that kind is set up: not an HR suite, automatic job import on, the
// decision-stage pairs of DemoATSStages and the platform's default workflows saved (among them
// 'New Application from ATS', so that the applications its first sync brings are invited). Its
// jobs, candidates and applications come from the aggregator, none are seeded here. It makes
// sure the company has a usable API key as Demo does. Running it again changes nothing else.
func DemoATS(ctx context.Context, st *store.Store, key string) (*DemoResult, error) {
	res := &DemoResult{}
	c, err := st.CompanyBySlug(ctx, DemoATSSlug)
	switch {
	case errors.Is(err, store.ErrNotFound):
		atsD := models.ATSTypeD
		ops := "ops@demo-ats.example.com"
		c = &models.Company{
			Slug: DemoATSSlug, Name: "Harbor Clinics", ATSType: &atsD, DefaultJobStatus: models.JobStatusActive,
			FraudDetectionEnabled: true, ModelCheatDetectionEnabled: true, CheatThreshold: models.DefaultCheatThreshold,
			AutoJobImportEnabled: true, OperationsEmail: &ops, DecisionSyncFields: models.NewJSON(DemoATSStages),
			Features: models.NewJSON(map[string]bool{models.FeatureResumeFit: true}),
		}
		if err := st.DB().WithContext(ctx).Create(c).Error; err != nil {
			return nil, fmt.Errorf("create demo ATS company: %w", err)
		}
		res.CompanyCreated = true
	case err != nil:
		return nil, err
	}
	res.Company = c
	if err := ensureDefinitions(ctx, st, c.ID); err != nil {
		return nil, err
	}
	if err := ensureKey(ctx, st, c, key, res); err != nil {
		return nil, err
	}
	return res, nil
}
