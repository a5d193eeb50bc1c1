package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/recruitd/recruitd/models"
)

// insertInterviewEvent records one entry of a session's timeline inside tx. detail holds
// enumerations, counts and times only. A non-empty onceKey records the event at most once per
// session (a retried step's second record is dropped).
func insertInterviewEvent(tx *gorm.DB, companyID, sessionID uuid.UUID, kind string, detail map[string]any, onceKey string) error {
	ev := models.InterviewEvent{CompanyID: companyID, SessionID: sessionID, Kind: kind, Detail: models.NewJSON(detail)}
	q := tx
	if onceKey != "" {
		ev.OnceKey = &onceKey
		q = tx.Clauses(clause.OnConflict{DoNothing: true})
	}
	if ev.Detail.V == nil {
		ev.Detail.V = map[string]any{}
	}
	if err := q.Omit("id", "at").Create(&ev).Error; err != nil {
		return fmt.Errorf("record %s event of session %s: %w", kind, sessionID, err)
	}
	return nil
}

// Interview is what the candidate page shows of a session: the session, its company and job,
// the plan fixed at consent (nil before) and the transcript so far, in order.
type Interview struct {
	Session models.InterviewSession
	Company models.Company
	Job     models.Job
	Plan    *models.InterviewPlan
	Turns   []models.InterviewTurn
}

// InterviewByToken loads the session a link token opens. The token is the credential: this is
// the one query of the interview that no company scopes, and every query after it is scoped by
// the session's company. ErrNotFound for a token that opens nothing.
func (s *Store) InterviewByToken(ctx context.Context, token string) (*Interview, error) {
	return s.interview(ctx, "s.link_token = ?", []any{token}, "interview link")
}

// Interview loads a company's session as InterviewByToken does.
func (s *Store) Interview(ctx context.Context, companyID, sessionID uuid.UUID) (*Interview, error) {
	return s.interview(ctx, "s.company_id = ? AND s.id = ?", []any{companyID, sessionID}, "session "+sessionID.String())
}

// sessionTurns is a session row with its transcript, in order, as a JSON array.
type sessionTurns struct {
	models.InterviewSession
	Turns []byte `gorm:"column:turns_json"`
}

// turnJSON is a transcript row as json_agg writes it (the columns' names).
type turnJSON struct {
	ID         uuid.UUID             `json:"id"`
	CompanyID  uuid.UUID             `json:"company_id"`
	SessionID  uuid.UUID             `json:"session_id"`
	Seq        int                   `json:"seq"`
	StepIndex  int                   `json:"step_index"`
	Source     string                `json:"source"`
	QuestionID *uuid.UUID            `json:"question_id"`
	Question   string                `json:"question"`
	Skill      *string               `json:"skill"`
	Choices    models.StringArray    `json:"choices"`
	AskedAt    time.Time             `json:"asked_at"`
	Answer     *string               `json:"answer"`
	AnsweredAt *time.Time            `json:"answered_at"`
	Engine     *string               `json:"engine"`
	Reason     *string               `json:"reason"`
	Channel    *models.AnswerChannel `json:"channel"`
}

// interview loads the session that where selects and its transcript in one statement (a page
// request reads them on every screen), then its company, job and plan (cached: pageCache).
func (s *Store) interview(ctx context.Context, where string, args []any, what string) (*Interview, error) {
	db := s.db.WithContext(ctx)
	var rows []sessionTurns
	err := db.Raw(`SELECT s.*, coalesce((SELECT json_agg(t ORDER BY t.seq) FROM interview_turns t
        WHERE t.company_id = s.company_id AND t.session_id = s.id), '[]') AS turns_json
FROM interview_sessions s WHERE `+where+` LIMIT 1`, args...).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", what, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	iv := Interview{Session: rows[0].InterviewSession}
	var turns []turnJSON
	if err := json.Unmarshal(rows[0].Turns, &turns); err != nil {
		return nil, fmt.Errorf("read transcript of session %s: %w", iv.Session.ID, err)
	}
	iv.Turns = make([]models.InterviewTurn, len(turns))
	for i, t := range turns {
		iv.Turns[i] = models.InterviewTurn{ID: t.ID, CompanyID: t.CompanyID, SessionID: t.SessionID, Seq: t.Seq, StepIndex: t.StepIndex,
			Source: t.Source, QuestionID: t.QuestionID, Question: t.Question, Skill: t.Skill, Choices: t.Choices, AskedAt: t.AskedAt,
			Answer: t.Answer, AnsweredAt: t.AnsweredAt, Engine: t.Engine, Reason: t.Reason, Channel: t.Channel}
	}
	if err := s.loadInterview(db, &iv); err != nil {
		return nil, err
	}
	return &iv, nil
}

func (s *Store) loadInterview(db *gorm.DB, iv *Interview) error {
	co, id := iv.Session.CompanyID, iv.Session.ID
	now := time.Now()
	if c, ok := s.pages.company(co, now); ok {
		iv.Company = c
	} else if err := db.First(&iv.Company, "id = ?", co).Error; err != nil {
		return fmt.Errorf("load company of session %s: %w", id, err)
	} else {
		s.pages.putCompany(iv.Company, now)
	}
	if j, ok := s.pages.job(iv.Session.JobID, now); ok && j.CompanyID == co {
		iv.Job = j
	} else if err := db.First(&iv.Job, "company_id = ? AND id = ?", co, iv.Session.JobID).Error; err != nil {
		return fmt.Errorf("load job of session %s: %w", id, err)
	} else {
		s.pages.putJob(iv.Job, now)
	}
	if p, ok := s.pages.plan(id); ok && p.CompanyID == co {
		iv.Plan = &p
	} else {
		var plans []models.InterviewPlan
		if err := db.Where("company_id = ? AND session_id = ?", co, id).Limit(1).Find(&plans).Error; err != nil {
			return fmt.Errorf("load plan of session %s: %w", id, err)
		}
		if len(plans) == 1 {
			iv.Plan = &plans[0]
			s.pages.putPlan(plans[0])
		}
	}
	return nil
}

// ErrSessionClosed means a session is no longer INVITED or STARTED as a change needs; the
// caller reloads it to show its state.
var ErrSessionClosed = errors.New("the interview is closed")

// ErrTurnAnswered means an answer came for a turn that has one already (another tab, a double
// submit with other text); ErrNotCurrentTurn for a turn that is not the session's current one.
var (
	ErrTurnAnswered   = errors.New("this question was answered already")
	ErrNotCurrentTurn = errors.New("this is not the current question")
)

// lockSession locks a company's session row for the rest of tx. The job's rollups take no lock
// of their own: the sessions' trigger appends the job's counts to job_rollup_deltas (migration
// 00050), so the sessions of one job never wait on a shared row.
func lockSession(tx *gorm.DB, companyID, sessionID uuid.UUID) (*models.InterviewSession, error) {
	var sess models.InterviewSession
	if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).First(&sess, "company_id = ? AND id = ?", companyID, sessionID).Error; err != nil {
		return nil, notFound(err, "session "+sessionID.String())
	}
	return &sess, nil
}

// StartInterviewInput is a consent: the plan fixed for the session, its first question, the
// deadline of the incomplete window, and the renewed start that signals the session's run.
type StartInterviewInput struct {
	CompanyID, SessionID uuid.UUID
	At, ExpiresAt        time.Time
	Plan                 models.InterviewPlan
	First                models.InterviewTurn
	Signal               models.WorkflowStart
}

// StartInterview records the candidate's consent: an INVITED session becomes STARTED with its
// plan and first question, in one transaction with the signal's start row. A session that is
// not INVITED is left as it is (ErrSessionClosed), also when a second tab consented first.
func (s *Store) StartInterview(ctx context.Context, in StartInterviewInput) error {
	return s.transactionRetryingDeadlocks(ctx, func(tx *gorm.DB) error {
		sess, err := lockSession(tx, in.CompanyID, in.SessionID)
		if err != nil {
			return err
		}
		if sess.Status != models.SessionStatusInvited {
			return ErrSessionClosed
		}
		in.Plan.CompanyID, in.Plan.SessionID = in.CompanyID, in.SessionID
		if err := tx.Omit("created_at").Create(&in.Plan).Error; err != nil {
			return fmt.Errorf("store plan of session %s: %w", in.SessionID, err)
		}
		in.First.CompanyID, in.First.SessionID, in.First.AskedAt = in.CompanyID, in.SessionID, in.At
		if err := tx.Create(&in.First).Error; err != nil {
			return fmt.Errorf("ask first question of session %s: %w", in.SessionID, err)
		}
		if err := insertInterviewEvent(tx, in.CompanyID, in.SessionID, models.EventConsented, nil, ""); err != nil {
			return err
		}
		if _, err := renewStart(tx, in.Signal); err != nil {
			return err
		}
		// The status change comes last: its rollup trigger updates the company's shared rows
		// (session_daily, journey_daily), which stay locked only until the commit that follows.
		err = tx.Model(&models.InterviewSession{}).Where("company_id = ? AND id = ?", in.CompanyID, in.SessionID).
			Updates(map[string]any{"status": models.SessionStatusStarted, "consented_at": in.At, "started_at": in.At, "expires_at": in.ExpiresAt}).Error
		if err != nil {
			return fmt.Errorf("start session %s: %w", in.SessionID, err)
		}
		return nil
	})
}

// DeclineInterview records that the candidate declined the notice: an INVITED session becomes
// DECLINED, in one transaction with the signal's start row; ErrSessionClosed otherwise.
func (s *Store) DeclineInterview(ctx context.Context, companyID, sessionID uuid.UUID, at time.Time, signal models.WorkflowStart) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		sess, err := lockSession(tx, companyID, sessionID)
		if err != nil {
			return err
		}
		if sess.Status != models.SessionStatusInvited {
			return ErrSessionClosed
		}
		err = tx.Model(&models.InterviewSession{}).Where("company_id = ? AND id = ?", companyID, sessionID).
			Updates(map[string]any{"status": models.SessionStatusDeclined, "ended_at": at}).Error
		if err != nil {
			return fmt.Errorf("decline session %s: %w", sessionID, err)
		}
		if err := insertInterviewEvent(tx, companyID, sessionID, models.EventDeclined, nil, ""); err != nil {
			return err
		}
		_, err = renewStart(tx, signal)
		return err
	})
}

// AnswerTurn stores the answer to turn seq of a STARTED session. The same answer to a turn
// answered already is a repeat (a double submit) and changes nothing; another answer is
// ErrTurnAnswered. ErrSessionClosed when the session is not STARTED or its expires_at is not
// after at (the deadline holds while its run cannot act), ErrNotCurrentTurn when seq is not a
// turn of the session. The answer is one statement (the turn awaiting an answer, of a STARTED
// session within its deadline); only a refused one looks further. channel is the surface that
// received the answer; a repeat keeps the first one's.
func (s *Store) AnswerTurn(ctx context.Context, companyID, sessionID uuid.UUID, seq int, answer string, channel models.AnswerChannel, at time.Time) (repeat bool, err error) {
	db := s.db.WithContext(ctx)
	res := db.Exec(`
UPDATE interview_turns SET answer = ?, answered_at = ?, channel = ?
WHERE company_id = ? AND session_id = ? AND seq = ? AND answer IS NULL
  AND EXISTS (SELECT 1 FROM interview_sessions WHERE company_id = ? AND id = ? AND status = 'STARTED'
              AND (expires_at IS NULL OR expires_at > ?))`,
		answer, at, channel, companyID, sessionID, seq, companyID, sessionID, at)
	if res.Error != nil {
		return false, fmt.Errorf("store answer %d of session %s: %w", seq, sessionID, res.Error)
	}
	if res.RowsAffected == 1 {
		return false, nil
	}
	var turns []models.InterviewTurn
	if err := db.Where("company_id = ? AND session_id = ? AND seq = ?", companyID, sessionID, seq).Limit(1).Find(&turns).Error; err != nil {
		return false, fmt.Errorf("load turn %d of session %s: %w", seq, sessionID, err)
	}
	switch {
	case len(turns) == 0:
		return false, ErrNotCurrentTurn
	case turns[0].Answer != nil && *turns[0].Answer == answer:
		return true, nil
	case turns[0].Answer != nil:
		return false, ErrTurnAnswered
	default:
		return false, ErrSessionClosed
	}
}

// AskTurn adds the next question to a STARTED session's transcript; false when the turn's seq is
// taken (another request asked it first) or the session is not STARTED.
func (s *Store) AskTurn(ctx context.Context, t models.InterviewTurn) (bool, error) {
	res := s.db.WithContext(ctx).Exec(`
INSERT INTO interview_turns (company_id, session_id, seq, step_index, source, question_id, question, skill, choices, asked_at, engine, reason)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE EXISTS (SELECT 1 FROM interview_sessions WHERE company_id = ? AND id = ? AND status = 'STARTED')
ON CONFLICT (company_id, session_id, seq) DO NOTHING`,
		t.CompanyID, t.SessionID, t.Seq, t.StepIndex, t.Source, t.QuestionID, t.Question, t.Skill, t.Choices, t.AskedAt, t.Engine, t.Reason,
		t.CompanyID, t.SessionID)
	if res.Error != nil {
		return false, fmt.Errorf("ask turn %d of session %s: %w", t.Seq, t.SessionID, res.Error)
	}
	return res.RowsAffected == 1, nil
}

// MaxTurnSeconds caps the answering time one turn adds to a session's duration_seconds: a
// candidate who leaves a question open overnight did not answer for a night.
const MaxTurnSeconds = 600

// CompleteInterview completes a STARTED session whose every turn is answered, in one
// transaction with the signal's start row: completed_at is the last answer's time and
// duration_seconds the time spent answering (each turn from asked to answered, at most
// MaxTurnSeconds). ErrSessionClosed when it is not STARTED (a second tab completed it).
func (s *Store) CompleteInterview(ctx context.Context, companyID, sessionID uuid.UUID, signal models.WorkflowStart) error {
	return s.transactionRetryingDeadlocks(ctx, func(tx *gorm.DB) error {
		sess, err := lockSession(tx, companyID, sessionID)
		if err != nil {
			return err
		}
		if sess.Status != models.SessionStatusStarted {
			return ErrSessionClosed
		}
		if err := insertInterviewEvent(tx, companyID, sessionID, models.EventCompleted, nil, ""); err != nil {
			return err
		}
		if _, err := renewStart(tx, signal); err != nil {
			return err
		}
		// The status change comes last (its rollup trigger's shared rows stay locked only until
		// the commit), the skipped identity step after it (a job without the check inserts nothing).
		res := tx.Exec(`
UPDATE interview_sessions s SET status = 'COMPLETED', completed_at = t.last, duration_seconds = t.seconds
FROM (SELECT max(answered_at) AS last,
             coalesce(sum(least(extract(epoch FROM answered_at - asked_at), ?)), 0)::int AS seconds,
             count(*) FILTER (WHERE answer IS NULL) AS open
      FROM interview_turns WHERE company_id = ? AND session_id = ?) t
WHERE s.company_id = ? AND s.id = ? AND t.open = 0 AND t.last IS NOT NULL`, MaxTurnSeconds, companyID, sessionID, companyID, sessionID)
		if res.Error != nil {
			return fmt.Errorf("complete session %s: %w", sessionID, res.Error)
		}
		if res.RowsAffected != 1 {
			return fmt.Errorf("complete session %s: %w", sessionID, ErrNotCurrentTurn)
		}
		return recordSkippedIdentity(tx, companyID, sessionID)
	})
}

// pageTTL is how long the candidate page reuses a company's and a job's row: a renamed job or a
// changed setting shows on the page at most this late. Plans never change once written.
const pageTTL = 2 * time.Second

// pageCacheMax bounds each of the cache's maps; a full map is emptied.
const pageCacheMax = 10_000

// pageCache keeps the rows every request of the candidate page reads and that hardly ever
// change: a company's and a job's (for pageTTL) and a session's plan (fixed at consent), so an
// answer and the next screen read only the session and its transcript.
type pageCache struct {
	mu        sync.Mutex
	companies map[uuid.UUID]cached[models.Company]
	jobs      map[uuid.UUID]cached[models.Job]
	plans     map[uuid.UUID]models.InterviewPlan
}

type cached[T any] struct {
	v  T
	at time.Time
}

func (c *pageCache) company(id uuid.UUID, now time.Time) (models.Company, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.companies[id]
	return e.v, ok && now.Sub(e.at) < pageTTL
}

func (c *pageCache) putCompany(v models.Company, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.companies == nil || len(c.companies) >= pageCacheMax {
		c.companies = map[uuid.UUID]cached[models.Company]{}
	}
	c.companies[v.ID] = cached[models.Company]{v, now}
}

func (c *pageCache) job(id uuid.UUID, now time.Time) (models.Job, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.jobs[id]
	return e.v, ok && now.Sub(e.at) < pageTTL
}

func (c *pageCache) putJob(v models.Job, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jobs == nil || len(c.jobs) >= pageCacheMax {
		c.jobs = map[uuid.UUID]cached[models.Job]{}
	}
	c.jobs[v.ID] = cached[models.Job]{v, now}
}

func (c *pageCache) plan(sessionID uuid.UUID) (models.InterviewPlan, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.plans[sessionID]
	return p, ok
}

func (c *pageCache) putPlan(p models.InterviewPlan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plans == nil || len(c.plans) >= pageCacheMax {
		c.plans = map[uuid.UUID]models.InterviewPlan{}
	}
	c.plans[p.SessionID] = p
}
