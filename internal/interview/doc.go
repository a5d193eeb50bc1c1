// Package interview holds the rules of a candidate's interview that need no storage: the plan
// of steps built from a job's stored guide, the interviewer that decides on follow-ups, and the
// checks of the answers a candidate sends; and the core of the interview, Sessions, which takes
// a session (by link token or by company and id) and answers with a Prompt: what the session
// asks now (the consent, an identity check, a question with its choices, follow-up or not, and
// its place) or how it ended. The surfaces word the prompt: the web page
// (httpapi/interviewpage) as screens, the message thread (internal/thread) as texts. Consent,
// answers, follow-ups, the resume, the completion and the lifecycle are Sessions' alone.
//
// # The plan
//
// NewPlan turns a guide (models.InterviewGuide and its questions) into the steps the candidate
// meets: the intro (DefaultIntro when the guide's is blank), every question in the guide's
// Position order (the generated ones, the job's additionalQuestions and its
// structuredAdditionalQuestions, as the generator placed them, the structured ones with their
// answers as Choices), then the outro (DefaultOutro when blank). Step.Index is 0 for the intro,
// 1 to N for the questions and N+1 for the outro (the surfaces show "Question 3 of 9"). A
// follow-up (Step.FollowUp) keeps its question's index and has SourceFollowUp.
//
// # Follow-ups
//
// An Interviewer asks at most one follow-up per question: only after the answer to a generated
// or additional question (Eligible), never after a structured question (scripted, one answer)
// nor after a follow-up. NewInterviewer chooses the engine like the generator's: Local when
// LLM_BASE_URL is empty, else OpenAI.
//
// Local, deterministic, asks:
//   - when the answer has fewer than MinAnswerWords (20) words (a word is a run of non-space
//     characters holding a letter or a digit): "Could you tell me more about your experience
//     with <skill>? Please describe one situation: what you did and what happened.";
//   - else when it gives no example: "Could you give a specific example from your own work
//     with <skill>: the situation, what you did, and the result?".
//
// Without a skill on the question (or one over 100 characters) the texts say "your own
// experience" instead. An answer gives an example when, compared word by word in lower case
// (English only), it holds a word with a digit (a number, year, date or percentage), a month's
// name (not "may"), one of the phrases "for example", "for instance", "such as", "e.g.",
// "once", "one time", "there was a time", "when I", "when we", "when my", "I remember",
// "at my last", "in my last", "in my previous", "in my current", "at my current",
// "last year", "last month", "last week", "ago", or a past-tense action verb such as "built",
// "led", "fixed", "managed", "resolved" or "trained" (the full list is pastActions in local.go).
//
// OpenAI asks the model in one chat-completions request, in JSON mode, for
// {"followUp": boolean, "question": string}, within its timeout (DefaultOpenAITimeout, at most
// MaxOpenAITimeout) and without retries. It falls back to Local when the request fails, times
// out, or the reply is not exactly that object with a question of 1 to MaxFollowUpLen (300)
// characters and no control character. The fallback's log line names the model and the kind
// of failure only: never the answer, the model's reply, or an error text that could quote them.
//
// # Answers
//
// Answers come from an untrusted page. CleanAnswer refuses raw input over MaxAnswerBytes
// (32 KiB), invalid UTF-8 and control characters other than tab and line breaks (NUL included);
// it turns CRLF and CR into LF, trims white space, and refuses an empty answer or one over
// MaxAnswerLen (5,000) characters. CheckAnswer applies it to the answer of a step and, for a
// question with choices, requires the cleaned answer to equal one of them exactly. Their errors
// never quote the answer.
package interview
