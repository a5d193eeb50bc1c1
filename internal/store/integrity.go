package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"github.com/recruitd/recruitd/internal/pagesignal"
)

// SaveAnswerSignals stores what the interview page reported with the answer of the session's
// turn seq (table interview_answer_signals). The first report of an answer is kept: a repeat
// changes nothing and stored is false. ErrNotFound when the company's session has no such turn.
func (s *Store) SaveAnswerSignals(ctx context.Context, companyID, sessionID uuid.UUID, seq int, sig pagesignal.Signals) (stored bool, err error) {
	res := s.db.WithContext(ctx).Exec(`INSERT INTO interview_answer_signals (company_id, session_id, seq, pasted_chars, paste_events,
			hidden_ms, hidden_count, blur_ms, blur_count, keystrokes, typing_ms, answer_chars)
		SELECT t.company_id, t.session_id, t.seq, ?, ?, ?, ?, ?, ?, ?, ?, ?
		FROM interview_turns t WHERE t.company_id = ? AND t.session_id = ? AND t.seq = ?
		ON CONFLICT (company_id, session_id, seq) DO NOTHING`,
		sig.PastedChars, sig.PasteEvents, sig.HiddenMs, sig.HiddenCount, sig.BlurMs, sig.BlurCount, sig.Keystrokes, sig.TypingMs, sig.AnswerChars,
		companyID, sessionID, seq)
	if res.Error != nil {
		return false, fmt.Errorf("store signals of answer %d of session %s: %w", seq, sessionID, res.Error)
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	var turns int64
	if err := s.db.WithContext(ctx).Table("interview_turns").Where("company_id = ? AND session_id = ? AND seq = ?", companyID, sessionID, seq).
		Count(&turns).Error; err != nil {
		return false, fmt.Errorf("find turn %d of session %s: %w", seq, sessionID, err)
	}
	if turns == 0 {
		return false, fmt.Errorf("turn %d of session %s: %w", seq, sessionID, ErrNotFound)
	}
	return false, nil
}

// AnsweredTurn is one answered turn of a session, as the cheating rules read it: the answer's
// length (never its text), the time from asking to answering, and the page's report.
type AnsweredTurn struct {
	Seq         int
	AnswerChars int
	DurationMs  int64
	Signals     *pagesignal.Signals // nil when the page reported nothing for the answer
	// IdenticalTo are other candidates of the company (at most MaxIdenticalCandidates) whose
	// answer in another session is the same text, case and runs of white space ignored, for
	// answers of at least MinIdenticalChars characters.
	IdenticalTo []uuid.UUID
}

// Bounds of the identical-answer lookup: shorter answers ("Yes", a city) are alike by nature.
const (
	MinIdenticalChars      = 40
	MaxIdenticalCandidates = 10
)

// AnsweredTurns lists the session's answered turns in order, with the signals the page reported.
func (s *Store) AnsweredTurns(ctx context.Context, companyID, sessionID uuid.UUID) ([]AnsweredTurn, error) {
	// The identical answers go through interview_turns_answer_print_idx (migration 00040): the
	// expression and the length bound are the index's.
	rows, err := s.sql.QueryContext(ctx, `SELECT t.seq, char_length(t.answer),
			greatest(0, floor(extract(epoch FROM t.answered_at - t.asked_at) * 1000))::bigint,
			g.pasted_chars, g.paste_events, g.hidden_ms, g.hidden_count, g.blur_ms, g.blur_count, g.keystrokes, g.typing_ms, g.answer_chars,
			coalesce(same.ids, '')
		FROM interview_turns t
		JOIN interview_sessions s ON s.company_id = t.company_id AND s.id = t.session_id
		LEFT JOIN interview_answer_signals g ON g.company_id = t.company_id AND g.session_id = t.session_id AND g.seq = t.seq
		LEFT JOIN LATERAL (
			SELECT string_agg(x.candidate_id::text, ',' ORDER BY x.candidate_id) AS ids FROM (
				SELECT DISTINCT os.candidate_id
				FROM interview_turns ot JOIN interview_sessions os ON os.company_id = ot.company_id AND os.id = ot.session_id
				WHERE length(t.answer) >= $3 AND ot.company_id = t.company_id AND ot.answer IS NOT NULL AND length(ot.answer) >= 40
				  AND md5(lower(regexp_replace(ot.answer, '\s+', ' ', 'g'))) = md5(lower(regexp_replace(t.answer, '\s+', ' ', 'g')))
				  AND os.candidate_id <> s.candidate_id
				ORDER BY os.candidate_id LIMIT $4) x) same ON true
		WHERE t.company_id = $1 AND t.session_id = $2 AND t.answer IS NOT NULL
		ORDER BY t.seq`, companyID, sessionID, MinIdenticalChars, MaxIdenticalCandidates)
	if err != nil {
		return nil, fmt.Errorf("load answered turns of session %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []AnsweredTurn
	for rows.Next() {
		var t AnsweredTurn
		var v [9]sql.NullInt64
		var same string
		if err := rows.Scan(&t.Seq, &t.AnswerChars, &t.DurationMs, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &same); err != nil {
			return nil, fmt.Errorf("load answered turns of session %s: %w", sessionID, err)
		}
		for _, id := range strings.Split(same, ",") {
			if u, err := uuid.Parse(id); err == nil {
				t.IdenticalTo = append(t.IdenticalTo, u)
			}
		}
		if v[0].Valid {
			i := func(k int) int { return int(v[k].Int64) }
			t.Signals = &pagesignal.Signals{PastedChars: i(0), PasteEvents: i(1), HiddenMs: i(2), HiddenCount: i(3), BlurMs: i(4),
				BlurCount: i(5), Keystrokes: i(6), TypingMs: i(7), AnswerChars: i(8)}
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load answered turns of session %s: %w", sessionID, err)
	}
	return out, nil
}

// CheatingEvaluationInput is a session's cheating evaluation computed by recruitd: the
// text-interview scores (the video sub-scores stay null) and the evidence, a JSON object.
type CheatingEvaluationInput struct {
	SessionID       uuid.UUID
	CheatingScore   float64
	TranscriptScore *float64
	Evidence        []byte
}

// SaveCheatingEvaluation writes the session's evaluation, one row per session: the first is
// inserted; a later one with other figures replaces it, with the time of the new evaluation;
// the same figures again change nothing (changed is false), so a retried step writes once. The
// statement goes through the table's triggers: the candidate and job are filled in from the
// session and the rollups (migration 00007) follow. ErrNotFound when the company has no such
// session.
func (s *Store) SaveCheatingEvaluation(ctx context.Context, companyID uuid.UUID, in CheatingEvaluationInput) (changed bool, err error) {
	if !jsonObject(in.Evidence) {
		return false, fmt.Errorf("cheating evaluation of session %s: evidence is not a JSON object", in.SessionID)
	}
	res := s.db.WithContext(ctx).Exec(`INSERT INTO cheating_evaluations AS ce (company_id, session_id, cheating_score, transcript_score, evidence)
		SELECT s.company_id, s.id, ?, ?, ?::jsonb FROM interview_sessions s WHERE s.company_id = ? AND s.id = ?
		ON CONFLICT (session_id) DO UPDATE SET cheating_score = excluded.cheating_score, transcript_score = excluded.transcript_score,
			eye_tracking_score = NULL, head_tracking_score = NULL, voice_score = NULL, multi_person_score = NULL,
			evidence = excluded.evidence, created_at = now()
		WHERE ce.company_id = excluded.company_id
			AND (ce.cheating_score, ce.transcript_score, ce.eye_tracking_score, ce.head_tracking_score, ce.voice_score, ce.multi_person_score, ce.evidence)
			IS DISTINCT FROM (excluded.cheating_score, excluded.transcript_score, NULL::numeric, NULL::numeric, NULL::numeric, NULL::numeric, excluded.evidence)`,
		in.CheatingScore, in.TranscriptScore, string(in.Evidence), companyID, in.SessionID)
	if res.Error != nil {
		return false, fmt.Errorf("save cheating evaluation of session %s: %w", in.SessionID, res.Error)
	}
	if res.RowsAffected == 1 {
		return true, nil
	}
	if _, err := s.Session(ctx, companyID, in.SessionID); err != nil {
		return false, err
	}
	return false, nil
}

// FraudVerificationInput is a candidate's fraud verification computed by recruitd. The columns
// are those the tools read; Signals (a JSON object) holds every signal with its evidence.
type FraudVerificationInput struct {
	CandidateID uuid.UUID
	SessionID   *uuid.UUID // nil: a check of the candidate tied to no session
	Score       float64
	// The signal columns; recruitd leaves VPNProxyIP, ThinProfile and FootprintAnomaly false
	// (not checked).
	DisposableEmail, VoIPPhone, VPNProxyIP, ThinProfile, FootprintAnomaly bool
	Signals                                                               []byte
}

// SaveFraudVerification writes the candidate's verification for the session. The first check
// (at invitation) inserts the row; a refresh (after the interview) updates that row in place,
// its time included, so a candidate has one verification per session and the tools' "latest"
// is the refreshed one, while a refresh adds nothing to the verification counts. Concurrent
// saves for one candidate and session are serialised. ErrNotFound when the company has no such
// candidate, or no such session of the candidate.
func (s *Store) SaveFraudVerification(ctx context.Context, companyID uuid.UUID, in FraudVerificationInput) (id uuid.UUID, refreshed bool, err error) {
	if !jsonObject(in.Signals) {
		return uuid.Nil, false, fmt.Errorf("fraud verification of candidate %s: signals are not a JSON object", in.CandidateID)
	}
	session := "none"
	var sessionArg any
	if in.SessionID != nil {
		session, sessionArg = in.SessionID.String(), *in.SessionID
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))",
			"fraud-verification|"+companyID.String()+"|"+in.CandidateID.String()+"|"+session).Error; err != nil {
			return fmt.Errorf("lock fraud verification: %w", err)
		}
		var found int64
		q := tx.Table("candidates").Where("company_id = ? AND id = ?", companyID, in.CandidateID)
		what := "candidate " + in.CandidateID.String()
		if in.SessionID != nil {
			q = tx.Table("interview_sessions").Where("company_id = ? AND id = ? AND candidate_id = ?", companyID, *in.SessionID, in.CandidateID)
			what = "session " + session + " of candidate " + in.CandidateID.String()
		}
		if err := q.Count(&found).Error; err != nil {
			return fmt.Errorf("find %s: %w", what, err)
		}
		if found == 0 {
			return fmt.Errorf("%s: %w", what, ErrNotFound)
		}
		cols := []any{in.Score, in.DisposableEmail, in.VoIPPhone, in.VPNProxyIP, in.ThinProfile, in.FootprintAnomaly, string(in.Signals)}
		var ids []uuid.UUID
		if err := tx.Raw(`UPDATE fraud_verifications SET overall_verification_score = ?, disposable_email = ?, voip_phone = ?,
				vpn_proxy_ip = ?, thin_profile = ?, footprint_anomaly = ?, signals = ?::jsonb, created_at = now()
			WHERE company_id = ? AND id = (SELECT f.id FROM fraud_verifications f
				WHERE f.company_id = ? AND f.candidate_id = ? AND f.session_id IS NOT DISTINCT FROM ?::uuid
				ORDER BY f.created_at DESC, f.id LIMIT 1)
			RETURNING id`, append(cols, companyID, companyID, in.CandidateID, sessionArg)...).Scan(&ids).Error; err != nil {
			return fmt.Errorf("refresh fraud verification of %s: %w", what, err)
		}
		if len(ids) == 1 {
			id, refreshed = ids[0], true
			return nil
		}
		if err := tx.Raw(`INSERT INTO fraud_verifications (overall_verification_score, disposable_email, voip_phone, vpn_proxy_ip,
				thin_profile, footprint_anomaly, signals, company_id, candidate_id, session_id)
			VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::uuid) RETURNING id`,
			append(cols, companyID, in.CandidateID, sessionArg)...).Scan(&ids).Error; err != nil {
			return fmt.Errorf("save fraud verification of %s: %w", what, err)
		}
		if len(ids) != 1 {
			return fmt.Errorf("save fraud verification of %s: no row returned", what)
		}
		id = ids[0]
		return nil
	})
	if err != nil {
		return uuid.Nil, false, err
	}
	return id, refreshed, nil
}

// LatestFraudSignals returns the signals (JSON) of the candidate's latest verification, of any
// session; found is false without one.
func (s *Store) LatestFraudSignals(ctx context.Context, companyID, candidateID uuid.UUID) (signals []byte, found bool, err error) {
	err = s.sql.QueryRowContext(ctx, `SELECT signals FROM fraud_verifications WHERE company_id = $1 AND candidate_id = $2
		ORDER BY created_at DESC, id LIMIT 1`, companyID, candidateID).Scan(&signals)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("load latest fraud verification of candidate %s: %w", candidateID, err)
	}
	return signals, true, nil
}

// SharedContacts counts the company's other candidates with the same contact details.
type SharedContacts struct {
	SameEmail int64 // the same e-mail address, case-insensitive
	SamePhone int64 // the same phone number as stored (E.164 when it validated)
}

// SharedContactsOf counts the company's candidates other than candidateID whose e-mail address
// or phone number is email or phone (an empty one matches nothing).
func (s *Store) SharedContactsOf(ctx context.Context, companyID, candidateID uuid.UUID, email, phone string) (SharedContacts, error) {
	var out SharedContacts
	var e, p any
	if email = strings.ToLower(strings.TrimSpace(email)); email != "" {
		e = email
	}
	if phone = strings.TrimSpace(phone); phone != "" {
		p = phone
	}
	if e == nil && p == nil {
		return out, nil
	}
	err := s.sql.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE lower(email) = $3::text), count(*) FILTER (WHERE phone = $4::text)
		FROM candidates WHERE company_id = $1 AND id <> $2 AND (lower(email) = $3::text OR phone = $4::text)`,
		companyID, candidateID, e, p).Scan(&out.SameEmail, &out.SamePhone)
	if err != nil {
		return out, fmt.Errorf("count candidates sharing the contact of candidate %s: %w", candidateID, err)
	}
	return out, nil
}

// jsonObject reports whether b starts, after white space, with '{' (Postgres checks the rest).
func jsonObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
