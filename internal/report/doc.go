// Package report turns a completed interview session's transcript into its report: per grading
// criterion of the job's guide (the rubric) a score with verbatim evidence and a one-sentence
// rationale, the overall rating and a short review that the session's service_rating and
// service_review get, the tags of the structured questions, or insufficient data when the
// answers are too thin to judge. docs/reports.md is the reader's version of these rules.
//
// # Input and rubric
//
// NewInput (or InputFromSources, from store.ReportSources) builds the Input from stored rows:
// the criteria in Position order, the turns in seq order with their question, source, choices
// and answer, and for structured questions their tagName and tagInstructions. RubricVersion
// fingerprints the criteria's names and descriptions; every report stores it with its scores,
// and a report is never rewritten, so a later change of the guide leaves old reports as they
// were.
//
// # Scale
//
// A criterion's score is an integer from MinScore (1) to MaxScore (5), or nil when no answer
// addresses it. The rating is the mean of the scores, rounded to two decimals: 1.00 to 5.00,
// the scale of service_rating (the demo seed's ratings are on it too).
//
// # Evaluators
//
// NewEvaluator chooses the engine like the interviewer's: Local when LLM_BASE_URL is empty,
// else OpenAI, which falls back to Local on any failure. Local's rules (insufficient data,
// terms, specifics, example markers, answer length, follow-ups, evidence, tags) are on its type
// and on localTag; OpenAI's checks of the model's reply are on parseModelReport.
//
// # Storage
//
// Produce makes a session's report once (store.SaveReport keeps the first) and Load reads it;
// Report.Record and FromRecord convert to and from the store's row.
package report
