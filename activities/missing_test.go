package activities

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/recruitd/recruitd/internal/kinds"
	"github.com/recruitd/recruitd/internal/pgtest"
	"github.com/recruitd/recruitd/internal/store"
)

// TestMissingRowIsPermanent: workflows start only after their rows commit, so an activity that
// finds its row missing fails for good instead of retrying on it forever.
func TestMissingRowIsPermanent(t *testing.T) {
	st, err := store.FromSQL(pgtest.New(t).SQL, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := &Activities{Store: st, Log: slog.New(slog.DiscardHandler)}
	ctx := t.Context()
	company, id := uuid.New(), uuid.New()
	calls := map[string]error{}
	_, calls["PreparePartner"] = a.PreparePartner(ctx, PrepareInput{CompanyID: company, PartnerApplicationID: id})
	_, calls["GenerateGuide"] = a.GenerateGuide(ctx, company, id)
	_, calls["SendInvite"] = a.SendInvite(ctx, SendInviteInput{CompanyID: company, SessionID: id})
	_, calls["SettlePartner"] = a.SettlePartner(ctx, SettleInput{CompanyID: company, PartnerApplicationID: id, SessionID: id})
	_, calls["LoadFlow"] = a.LoadFlow(ctx, kinds.FlowInput{CompanyID: company, SessionID: id})
	_, calls["LoadInterview"] = a.LoadInterview(ctx, InterviewAt{CompanyID: company, SessionID: id})
	_, calls["SendReminder"] = a.SendReminder(ctx, SendReminderInput{CompanyID: company, SessionID: id, Key: "reminder/first"})
	_, calls["FinalizeInterview"] = a.FinalizeInterview(ctx, company, id)
	_, calls["CancelSession"] = a.CancelSession(ctx, CancelSessionInput{CompanyID: company, SessionID: id, Reason: "late"})
	for name, err := range calls {
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || !app.NonRetryable() {
			t.Errorf("%s(missing row) = %v, want a non-retryable error", name, err)
		}
	}
}
