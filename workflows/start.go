package workflows

import (
	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/recruitd/recruitd/internal/kinds"
)

// Functions maps each workflow type to its function: what temporal.Register registers, and
// where a kind's Workflow (kinds.All) must be found.
func Functions() map[string]any {
	return map[string]any{
		kinds.Ping.Workflow:               Ping,
		kinds.JobGeneration.Workflow:      JobGeneration,
		kinds.Invite.Workflow:             CustomerFlow, // also NewJob's and NewApplication's
		kinds.PartnerApplication.Workflow: PartnerApplication,
		kinds.Callback.Workflow:           DeliverCallback,
		kinds.JobImport.Workflow:          JobImport,
		kinds.AssessmentLink.Workflow:     AssessmentLinkDelivery,
		kinds.AssessmentLinkHold.Workflow: AssessmentLinkHold,
		kinds.HRSuiteDelivery.Workflow:    HRSuiteDelivery,
		kinds.HRSuiteReplay.Workflow:      HRSuiteReplay,
		kinds.Interview.Workflow:          InterviewSession,
		kinds.ATSWrite.Workflow:           ATSWrite,
	}
}

// callbackChild is how a partner run starts its callback's delivery as a child: the ID and
// search attribute of kinds.CallbackStart, and a delivery that outlives the customer workflow.
func callbackChild(ctx workflow.Context, slug string, callbackID uuid.UUID) workflow.Context {
	return workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            kinds.Callback.ID(slug, callbackID.String()),
		ParentClosePolicy:     enumspb.PARENT_CLOSE_POLICY_ABANDON,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		TypedSearchAttributes: temporal.NewSearchAttributes(kinds.CompanySlugKey.ValueSet(slug)),
	})
}
