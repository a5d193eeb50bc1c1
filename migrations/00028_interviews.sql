-- The interview a candidate takes at the invitation's link (docs/interviews.md).
--
-- interview_sessions gains its lifecycle: the consent, the deadline its workflow waits for
-- (expires_at: the invitation's expiry while INVITED, the end of the incomplete window once
-- STARTED; `recruitd sessions extend` moves it), when it ended other than by completing, and the
-- customer-flow run that invited it (signalled when it completes). Two statuses join the five:
-- INCOMPLETE (started, not finished within the company's window) and DECLINED (the candidate
-- declined the notice on automated evaluation).
--
-- interview_plans: the steps of a session's interview as they were when the candidate started
-- (a guide regenerated later changes no running interview, nor the transcript's questions).
-- interview_turns: the transcript, one row per question asked (with its source and text) and its
-- answer. interview_events: the session's timeline (no answer text, no contact details).
--
-- companies gains the interview settings: expiry, incomplete window, reminders, quiet hours and
-- the zone used when the candidate's is unknown.

-- +goose Up
ALTER TABLE interview_sessions DROP CONSTRAINT interview_sessions_status_check;
ALTER TABLE interview_sessions ADD CONSTRAINT interview_sessions_status_check
    CHECK (status IN ('INVITED', 'STARTED', 'COMPLETED', 'EXPIRED', 'CANCELLED', 'INCOMPLETE', 'DECLINED'));
ALTER TABLE interview_sessions
    ADD COLUMN consented_at     timestamptz,
    ADD COLUMN expires_at       timestamptz,
    ADD COLUMN ended_at         timestamptz,
    ADD COLUMN flow_workflow_id text CHECK (length(flow_workflow_id) <= 1000);

ALTER TABLE companies
    ADD COLUMN interview_expiry_seconds          integer NOT NULL DEFAULT 604800 CHECK (interview_expiry_seconds > 0),
    ADD COLUMN interview_incomplete_seconds      integer NOT NULL DEFAULT 345600 CHECK (interview_incomplete_seconds > 0),
    ADD COLUMN interview_reminders_enabled       boolean NOT NULL DEFAULT true,
    ADD COLUMN interview_first_reminder_seconds  integer NOT NULL DEFAULT 86400 CHECK (interview_first_reminder_seconds > 0),
    ADD COLUMN interview_last_reminder_seconds   integer NOT NULL DEFAULT 86400 CHECK (interview_last_reminder_seconds > 0),
    ADD COLUMN quiet_hours_start                 text NOT NULL DEFAULT '21:00' CHECK (quiet_hours_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    ADD COLUMN quiet_hours_end                   text NOT NULL DEFAULT '08:00' CHECK (quiet_hours_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
    ADD COLUMN time_zone                         text NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64);

CREATE TABLE interview_plans (
    session_id uuid PRIMARY KEY,
    company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    guide_id   uuid,
    steps      jsonb NOT NULL CHECK (jsonb_typeof(steps) = 'array'),
    created_at timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);

CREATE TABLE interview_turns (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    session_id  uuid NOT NULL,
    seq         integer NOT NULL CHECK (seq >= 1),
    step_index  integer NOT NULL CHECK (step_index >= 1),
    source      text NOT NULL CHECK (source IN ('guide', 'additional', 'structured', 'follow-up')),
    question_id uuid,
    question    text NOT NULL CHECK (length(question) BETWEEN 1 AND 10000),
    skill       text,
    choices     text[],
    asked_at    timestamptz NOT NULL DEFAULT now(),
    answer      text CHECK (length(answer) <= 5000),
    answered_at timestamptz,
    -- The interviewer that asked a follow-up (local, openai) and why (short, no-example, model).
    engine      text,
    reason      text,
    UNIQUE (company_id, session_id, seq),
    CHECK ((answer IS NULL) = (answered_at IS NULL)),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);

CREATE TABLE interview_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    session_id uuid NOT NULL,
    kind       text NOT NULL CHECK (kind ~ '^[a-z][a-z_-]{0,40}$'),
    detail     jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(detail) = 'object'),
    -- once_key makes an event that a retried step records happen once (transcript_final,
    -- reminder_sent/<n>).
    once_key   text,
    at         timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);
CREATE INDEX interview_events_session_idx ON interview_events (company_id, session_id, at);
CREATE UNIQUE INDEX interview_events_once_key ON interview_events (company_id, session_id, once_key)
    WHERE once_key IS NOT NULL;

-- +goose Down
DROP TABLE interview_events;
DROP TABLE interview_turns;
DROP TABLE interview_plans;
ALTER TABLE companies
    DROP COLUMN interview_expiry_seconds,
    DROP COLUMN interview_incomplete_seconds,
    DROP COLUMN interview_reminders_enabled,
    DROP COLUMN interview_first_reminder_seconds,
    DROP COLUMN interview_last_reminder_seconds,
    DROP COLUMN quiet_hours_start,
    DROP COLUMN quiet_hours_end,
    DROP COLUMN time_zone;
ALTER TABLE interview_sessions
    DROP COLUMN consented_at,
    DROP COLUMN expires_at,
    DROP COLUMN ended_at,
    DROP COLUMN flow_workflow_id;
UPDATE interview_sessions SET status = 'EXPIRED' WHERE status IN ('INCOMPLETE', 'DECLINED');
ALTER TABLE interview_sessions DROP CONSTRAINT interview_sessions_status_check;
ALTER TABLE interview_sessions ADD CONSTRAINT interview_sessions_status_check
    CHECK (status IN ('INVITED', 'STARTED', 'COMPLETED', 'EXPIRED', 'CANCELLED'));
