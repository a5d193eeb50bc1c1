package report

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/recruitd/recruitd/models"
)

// The questions of the strong transcript.
const (
	qComms    = "Tell me about a time you explained a technical problem to a customer."
	qNetwork  = "How do you troubleshoot a network that keeps dropping?"
	qLicence  = "Do you hold a valid driver's licence?"
	qWhy      = "Why do you want this role?"
	qMore     = "Could you tell me more? Please describe one situation from your own experience: what you did and what happened."
	qWeekends = "Are you able to work weekends?"
)

// The answers of the strong transcript.
const (
	aComms = "At my last job at Comcast I explained a router outage to a hospital customer. " +
		"I kept them informed every 30 minutes by phone and wrote a plain summary for their manager. " +
		"The customer renewed the contract, and our satisfaction score increased to 92%."
	aNetwork = "I start with the physical layer and work up the network stack. " +
		"For example, last year a warehouse lost Wi-Fi every afternoon; I checked the logs in Wireshark, found a failing switch, replaced it and resolved the drops within 2 hours. " +
		"I documented the fix for the team."
	aWhy      = "I like fixing things."
	aMore     = "I enjoy hands-on work with customers and seeing a fault fixed, and this team supports the whole region."
	aWeekends = "Yes, most weekends."
)

var rubric = []Criterion{
	{Name: "Customer communication", Description: "Explains technical issues to customers in plain language and keeps them informed."},
	{Name: "Troubleshooting", Description: "Diagnoses and resolves network and hardware problems methodically."},
	{Name: "Safety", Description: "Follows electrical safety procedures and lockout rules."},
}

// strongInput is a field technician's interview: detailed answers with examples on two of the
// three criteria, one follow-up, a structured choice and a structured text question, both tagged.
func strongInput() Input {
	return Input{Criteria: rubric, Turns: []Turn{
		{Seq: 1, StepIndex: 1, Source: models.TurnSourceGuide, Question: qComms, Answer: aComms},
		{Seq: 2, StepIndex: 2, Source: models.TurnSourceGuide, Question: qNetwork, Answer: aNetwork},
		{Seq: 3, StepIndex: 3, Source: models.TurnSourceStructured, Question: qLicence, Choices: []string{"Yes", "No"}, Answer: "Yes",
			TagName: "licensed", TagInstructions: "Yes -> licensed; No -> not licensed"},
		{Seq: 4, StepIndex: 4, Source: models.TurnSourceAdditional, Question: qWhy, Answer: aWhy},
		{Seq: 5, StepIndex: 4, Source: models.TurnSourceFollowUp, Question: qMore, Answer: aMore},
		{Seq: 6, StepIndex: 5, Source: models.TurnSourceStructured, Question: qWeekends, Answer: aWeekends,
			TagName: "weekends", TagInstructions: "Tag yes or no."},
	}}
}

func dump(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func mustUUID(s string) uuid.UUID { return uuid.MustParse(s) }
