// Package integrity holds the rules of the integrity signals that recruitd computes itself
// (docs/integrity-checks.md): cheating signals from the interview page (ScoreCheating, from the
// per-answer payload that internal/pagesignal parses) and fraud signals from the
// candidate's contact details (ScoreFraud, with the disposable-domain list of
// internal/integrity/disposable). Service runs them for one session or candidate through the
// store when the company's flag is on. A signal is evidence for a recruiter: nothing here stops,
// refuses or slows a candidate.
package integrity
