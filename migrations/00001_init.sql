-- Initial schema. Conventions:
--   * Every tenant-owned table carries company_id and its indexes lead with it.
--   * Tenant tables expose UNIQUE (company_id, id) so that children reference their parents by
--     (company_id, parent_id): a row can never point at another company's row.
--   * Nullable references use ON DELETE SET NULL (column) so company_id stays intact.
--   * Enumerations are text with CHECK (column IN (...)); models/enums.go must list the same
--     values (models/enums_test.go parses these constraints).

-- +goose Up

-- +goose StatementBegin
CREATE FUNCTION set_updated_at() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.updated_at IS NOT DISTINCT FROM OLD.updated_at THEN
        NEW.updated_at := now();
    END IF;
    RETURN NEW;
END
$$;
-- +goose StatementEnd

CREATE TABLE companies (
    id                            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    slug                          text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name                          text NOT NULL,
    ats_type                      text CHECK (ats_type IN ('ATS-A', 'ATS-B', 'ATS-C', 'ATS-D')),
    ats_credentials               bytea,
    ats_credential_fields         text[] NOT NULL DEFAULT '{}',
    hr_suite_account              boolean NOT NULL DEFAULT false,
    default_job_status            text NOT NULL DEFAULT 'ACTIVE' CHECK (default_job_status IN ('ACTIVE', 'PAUSED')),
    fraud_detection_enabled       boolean NOT NULL DEFAULT false,
    model_cheat_detection_enabled boolean NOT NULL DEFAULT false,
    cheat_threshold               numeric(5,2) NOT NULL DEFAULT 70 CHECK (cheat_threshold BETWEEN 0 AND 100),
    auto_job_import_enabled       boolean NOT NULL DEFAULT false,
    decision_sync_fields          jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(decision_sync_fields) = 'array'),
    kombo_integration_id          text,
    kombo_status                  text,
    features                      jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(features) = 'object'),
    operations_email              text,
    created_at                    timestamptz NOT NULL DEFAULT now(),
    updated_at                    timestamptz NOT NULL DEFAULT now()
);
CREATE TRIGGER companies_set_updated_at BEFORE UPDATE ON companies
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE users (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email             text NOT NULL,
    name              text NOT NULL DEFAULT '',
    is_platform_admin boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    deleted_at        timestamptz
);
CREATE UNIQUE INDEX users_email_active_key ON users (lower(email)) WHERE deleted_at IS NULL;
CREATE TRIGGER users_set_updated_at BEFORE UPDATE ON users
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE company_memberships (
    company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('admin', 'recruiter', 'viewer')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, user_id)
);
CREATE INDEX company_memberships_user_idx ON company_memberships (user_id);

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    name         text NOT NULL DEFAULT '',
    prefix       text NOT NULL,
    key_hash     bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_prefix_idx ON api_keys (prefix);
CREATE INDEX api_keys_company_idx ON api_keys (company_id, created_at);

CREATE TABLE templates (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    type       text NOT NULL CHECK (type IN ('resumeFit', 'interviewGuide')),
    name       text NOT NULL,
    content    jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id)
);
CREATE INDEX templates_company_type_name_idx ON templates (company_id, type, name);
CREATE TRIGGER templates_set_updated_at BEFORE UPDATE ON templates
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- jobs_company_id_external_id_key covers soft-deleted rows too: a deleted job's externalJobId
-- stays taken.
CREATE TABLE jobs (
    id                           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id                   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    external_id                  text NOT NULL CHECK (external_id <> ''),
    interviewer_id               text NOT NULL UNIQUE,
    title                        text NOT NULL DEFAULT '',
    external_title               text NOT NULL DEFAULT '',
    description                  text NOT NULL DEFAULT '',
    status                       text NOT NULL DEFAULT 'GENERATING' CHECK (status IN ('GENERATING', 'ACTIVE', 'PAUSED', 'FAILED')),
    failure_reason               text,
    is_open                      boolean NOT NULL DEFAULT true,
    is_deleted                   boolean NOT NULL DEFAULT false,
    enable_identity_verification boolean NOT NULL DEFAULT false,
    resume_fit_template_id       uuid,
    created_by_user_id           uuid REFERENCES users(id) ON DELETE SET NULL,
    generation_options           jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(generation_options) = 'object'),
    created_at                   timestamptz NOT NULL DEFAULT now(),
    updated_at                   timestamptz NOT NULL DEFAULT now(),
    generated_at                 timestamptz,
    UNIQUE (company_id, external_id),
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, resume_fit_template_id) REFERENCES templates (company_id, id)
        ON DELETE SET NULL (resume_fit_template_id)
);
CREATE INDEX jobs_company_status_idx ON jobs (company_id, status);
CREATE INDEX jobs_company_created_idx ON jobs (company_id, created_at);
CREATE INDEX jobs_company_resume_fit_template_idx ON jobs (company_id, resume_fit_template_id)
    WHERE resume_fit_template_id IS NOT NULL;
CREATE INDEX jobs_created_by_user_idx ON jobs (created_by_user_id) WHERE created_by_user_id IS NOT NULL;
CREATE TRIGGER jobs_set_updated_at BEFORE UPDATE ON jobs
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE interview_guides (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id          uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    job_id              uuid NOT NULL UNIQUE,
    intro               text NOT NULL DEFAULT '',
    outro               text NOT NULL DEFAULT '',
    learning_objectives text[] NOT NULL DEFAULT '{}',
    skills              text[] NOT NULL DEFAULT '{}',
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX interview_guides_company_idx ON interview_guides (company_id, created_at);
CREATE TRIGGER interview_guides_set_updated_at BEFORE UPDATE ON interview_guides
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- template_id marks a question copied from an interviewGuide template (listTemplates adoption).
CREATE TABLE interview_questions (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    guide_id         uuid NOT NULL,
    position         integer NOT NULL CHECK (position >= 0),
    text             text NOT NULL,
    source           text NOT NULL CHECK (source IN ('generated', 'additional', 'structured')),
    skill            text,
    answers          text[] NOT NULL DEFAULT '{}',
    tag_name         text,
    tag_instructions text,
    template_id      uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (guide_id, position),
    FOREIGN KEY (company_id, guide_id) REFERENCES interview_guides (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, template_id) REFERENCES templates (company_id, id)
        ON DELETE SET NULL (template_id)
);
CREATE INDEX interview_questions_company_template_idx ON interview_questions (company_id, template_id)
    WHERE template_id IS NOT NULL;

CREATE TABLE grading_criteria (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    guide_id    uuid NOT NULL,
    position    integer NOT NULL CHECK (position >= 0),
    name        text NOT NULL,
    description text NOT NULL DEFAULT '',
    template_id uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (guide_id, position),
    FOREIGN KEY (company_id, guide_id) REFERENCES interview_guides (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, template_id) REFERENCES templates (company_id, id)
        ON DELETE SET NULL (template_id)
);
CREATE INDEX grading_criteria_company_template_idx ON grading_criteria (company_id, template_id)
    WHERE template_id IS NOT NULL;

-- phone is E.164 when it validates; unvalidated numbers are stored as received.
CREATE TABLE candidates (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    external_id      text,
    first_name       text NOT NULL DEFAULT '',
    last_name        text NOT NULL DEFAULT '',
    email            text,
    phone            text,
    title            text NOT NULL DEFAULT '',
    location         text NOT NULL DEFAULT '',
    city             text NOT NULL DEFAULT '',
    state            text NOT NULL DEFAULT '',
    postal_code      text NOT NULL DEFAULT '',
    country          text NOT NULL DEFAULT '',
    latitude         double precision CHECK (latitude BETWEEN -90 AND 90),
    longitude        double precision CHECK (longitude BETWEEN -180 AND 180),
    skills           text[] NOT NULL DEFAULT '{}',
    employers        text[] NOT NULL DEFAULT '{}',
    education        text NOT NULL DEFAULT '',
    years_experience integer CHECK (years_experience >= 0),
    status           text NOT NULL DEFAULT 'new',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id)
);
CREATE INDEX candidates_company_email_idx ON candidates (company_id, lower(email));
CREATE INDEX candidates_company_phone_idx ON candidates (company_id, phone);
CREATE UNIQUE INDEX candidates_company_external_id_key ON candidates (company_id, external_id)
    WHERE external_id IS NOT NULL;
CREATE INDEX candidates_company_updated_idx ON candidates (company_id, updated_at);
CREATE TRIGGER candidates_set_updated_at BEFORE UPDATE ON candidates
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

-- applications_company_external_id_key leads with (company_id, external_id) so that a lookup by
-- ATS application id alone (assessment links) uses it too.
CREATE TABLE applications (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id   uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    candidate_id uuid NOT NULL,
    job_id       uuid NOT NULL,
    external_id  text,
    source       text NOT NULL CHECK (source IN ('partner', 'hrsuite_webhook', 'ats', 'manual', 'assessment')),
    status       text NOT NULL DEFAULT 'new',
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX applications_company_external_id_key ON applications (company_id, external_id, source)
    WHERE external_id IS NOT NULL;
CREATE INDEX applications_company_job_idx ON applications (company_id, job_id);
CREATE INDEX applications_candidate_idx ON applications (candidate_id);
CREATE TRIGGER applications_set_updated_at BEFORE UPDATE ON applications
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE interview_sessions (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id       uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    application_id   uuid,
    candidate_id     uuid NOT NULL,
    job_id           uuid NOT NULL,
    status           text NOT NULL DEFAULT 'INVITED' CHECK (status IN ('INVITED', 'STARTED', 'COMPLETED', 'EXPIRED', 'CANCELLED')),
    medium_type      text NOT NULL CHECK (medium_type IN ('VIDEO', 'PHONE', 'EXTERNAL', 'BOTH', 'WHATSAPP', 'PHONE_SMS', 'SMS', 'NONE')),
    link_token       text NOT NULL UNIQUE DEFAULT replace(gen_random_uuid()::text, '-', ''),
    invited_at       timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    completed_at     timestamptz,
    duration_seconds integer CHECK (duration_seconds >= 0),
    decision         text NOT NULL DEFAULT 'NONE' CHECK (decision IN ('NONE', 'ACCEPTED', 'REJECTED', 'SUBMITTED', 'PLACED', 'HIRED')),
    recruiter_rating numeric(4,2),
    service_rating   numeric(4,2),
    recruiter_review text,
    service_review   text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (company_id, id),
    CHECK (status <> 'COMPLETED' OR completed_at IS NOT NULL),
    FOREIGN KEY (company_id, application_id) REFERENCES applications (company_id, id)
        ON DELETE SET NULL (application_id),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX interview_sessions_company_job_status_idx ON interview_sessions (company_id, job_id, status);
CREATE INDEX interview_sessions_company_completed_idx ON interview_sessions (company_id, completed_at);
CREATE INDEX interview_sessions_company_candidate_idx ON interview_sessions (company_id, candidate_id, created_at DESC);
CREATE INDEX interview_sessions_company_invited_idx ON interview_sessions (company_id, invited_at);
CREATE INDEX interview_sessions_company_application_idx ON interview_sessions (company_id, application_id)
    WHERE application_id IS NOT NULL;
CREATE TRIGGER interview_sessions_set_updated_at BEFORE UPDATE ON interview_sessions
    FOR EACH ROW EXECUTE FUNCTION set_updated_at();

CREATE TABLE recruiter_notes (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id     uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    candidate_id   uuid NOT NULL,
    session_id     uuid,
    author_user_id uuid REFERENCES users(id) ON DELETE SET NULL,
    body           text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id)
        ON DELETE SET NULL (session_id)
);
CREATE INDEX recruiter_notes_company_candidate_idx ON recruiter_notes (company_id, candidate_id, created_at DESC);
CREATE INDEX recruiter_notes_session_idx ON recruiter_notes (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX recruiter_notes_author_idx ON recruiter_notes (author_user_id) WHERE author_user_id IS NOT NULL;

-- Scores are 0-100; a session is flagged when cheating_score >= companies.cheat_threshold.
CREATE TABLE cheating_evaluations (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id          uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    session_id          uuid NOT NULL UNIQUE,
    cheating_score      numeric(5,2) NOT NULL CHECK (cheating_score BETWEEN 0 AND 100),
    eye_tracking_score  numeric(5,2) CHECK (eye_tracking_score BETWEEN 0 AND 100),
    head_tracking_score numeric(5,2) CHECK (head_tracking_score BETWEEN 0 AND 100),
    voice_score         numeric(5,2) CHECK (voice_score BETWEEN 0 AND 100),
    transcript_score    numeric(5,2) CHECK (transcript_score BETWEEN 0 AND 100),
    multi_person_score  numeric(5,2) CHECK (multi_person_score BETWEEN 0 AND 100),
    created_at          timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id) ON DELETE CASCADE
);
CREATE INDEX cheating_evaluations_company_created_idx ON cheating_evaluations (company_id, created_at);

-- overall_verification_score is 0-100, lower is riskier.
CREATE TABLE fraud_verifications (
    id                         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id                 uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    candidate_id               uuid NOT NULL,
    session_id                 uuid,
    overall_verification_score numeric(5,2) NOT NULL CHECK (overall_verification_score BETWEEN 0 AND 100),
    disposable_email           boolean NOT NULL DEFAULT false,
    voip_phone                 boolean NOT NULL DEFAULT false,
    vpn_proxy_ip               boolean NOT NULL DEFAULT false,
    thin_profile               boolean NOT NULL DEFAULT false,
    footprint_anomaly          boolean NOT NULL DEFAULT false,
    signals                    jsonb NOT NULL DEFAULT '{}',
    created_at                 timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id)
        ON DELETE SET NULL (session_id)
);
CREATE INDEX fraud_verifications_company_created_idx ON fraud_verifications (company_id, created_at);
CREATE INDEX fraud_verifications_session_idx ON fraud_verifications (session_id);
CREATE INDEX fraud_verifications_candidate_idx ON fraud_verifications (candidate_id);

CREATE TABLE identity_verifications (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id     uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    candidate_id   uuid NOT NULL,
    session_id     uuid,
    job_id         uuid NOT NULL,
    status         text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'VERIFIED', 'FAILED', 'EXPIRED')),
    failure_reason text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    completed_at   timestamptz,
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id)
        ON DELETE SET NULL (session_id),
    FOREIGN KEY (company_id, job_id) REFERENCES jobs (company_id, id) ON DELETE CASCADE
);
CREATE INDEX identity_verifications_company_created_idx ON identity_verifications (company_id, created_at);
CREATE INDEX identity_verifications_company_job_idx ON identity_verifications (company_id, job_id);
CREATE INDEX identity_verifications_session_idx ON identity_verifications (session_id);
CREATE INDEX identity_verifications_candidate_idx ON identity_verifications (candidate_id);

-- messages is the candidate conversation in every channel, both directions.
CREATE TABLE messages (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    company_id          uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    candidate_id        uuid NOT NULL,
    application_id      uuid,
    session_id          uuid,
    direction           text NOT NULL CHECK (direction IN ('outbound', 'inbound')),
    channel             text NOT NULL CHECK (channel IN ('email', 'sms', 'whatsapp', 'phone', 'outbox')),
    status              text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'delivered', 'failed')),
    provider            text,
    provider_message_id text,
    to_address          text NOT NULL DEFAULT '',
    subject             text,
    body                text NOT NULL DEFAULT '',
    error               text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    sent_at             timestamptz,
    FOREIGN KEY (company_id, candidate_id) REFERENCES candidates (company_id, id) ON DELETE CASCADE,
    FOREIGN KEY (company_id, application_id) REFERENCES applications (company_id, id)
        ON DELETE SET NULL (application_id),
    FOREIGN KEY (company_id, session_id) REFERENCES interview_sessions (company_id, id)
        ON DELETE SET NULL (session_id)
);
CREATE INDEX messages_company_candidate_idx ON messages (company_id, candidate_id, created_at);
CREATE INDEX messages_application_idx ON messages (application_id) WHERE application_id IS NOT NULL;
CREATE INDEX messages_session_idx ON messages (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX messages_provider_message_idx ON messages (provider, provider_message_id)
    WHERE provider_message_id IS NOT NULL;

-- +goose Down
DROP TABLE messages;
DROP TABLE identity_verifications;
DROP TABLE fraud_verifications;
DROP TABLE cheating_evaluations;
DROP TABLE recruiter_notes;
DROP TABLE interview_sessions;
DROP TABLE applications;
DROP TABLE candidates;
DROP TABLE grading_criteria;
DROP TABLE interview_questions;
DROP TABLE interview_guides;
DROP TABLE jobs;
DROP TABLE templates;
DROP TABLE api_keys;
DROP TABLE company_memberships;
DROP TABLE users;
DROP TABLE companies;
DROP FUNCTION set_updated_at();
