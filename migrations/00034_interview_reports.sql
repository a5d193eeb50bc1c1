-- The report of a completed interview session (docs/reports.md), produced once per session by an
-- evaluator (internal/report) from the stored transcript and the job's grading criteria.
--
-- status is ready (rating set: the mean of the scored criteria, 1.00 to 5.00, the scale of
-- interview_sessions.service_rating) or insufficient_data (rating NULL, reason set: the answers
-- were too thin to judge). rubric_version fingerprints the criteria the scores are against, so a
-- later change of the guide never rewrites an old report. criteria holds one object per criterion
-- (name, description, score 1-5 or null when no answer addresses it, rationale, evidence: verbatim
-- quotes with their turn's seq and question); tags one object per tagged structured question.
-- engine is the evaluator that produced it (local, openai) and model the model's name for openai.
--
-- status, reason and engine hold internal/report's enumerations (Status, Reason, Engine), not
-- models' ones; internal/report's TestMigrationEnums checks these patterns against them.

-- +goose Up
CREATE TABLE interview_reports (
    session_id     uuid PRIMARY KEY,
    company_id     uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    status         text NOT NULL CHECK (status ~ '^(ready|insufficient_data)$'),
    rating         numeric(4,2) CHECK (rating BETWEEN 1 AND 5),
    summary        text NOT NULL CHECK (length(summary) BETWEEN 1 AND 2000),
    reason         text CHECK (reason ~ '^(no-rubric|no-answers|too-few-words|short-answers|not-addressed|model)$'),
    rubric_version text NOT NULL CHECK (rubric_version ~ '^[a-z0-9]{1,20}:[0-9a-f]{1,64}$'),
    engine         text NOT NULL CHECK (engine ~ '^(local|openai)$'),
    model          text CHECK (length(model) BETWEEN 1 AND 200),
    criteria       jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(criteria) = 'array'),
    tags           jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(tags) = 'array'),
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((status = 'ready') = (rating IS NOT NULL)),
    CHECK ((status = 'insufficient_data') = (reason IS NOT NULL)),
    CHECK ((engine = 'openai') = (model IS NOT NULL)),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE interview_reports;
