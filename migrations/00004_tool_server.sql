-- Tool server (MCP) support: candidate full-text and radius search, fuzzy name matching, the
-- product-docs index of searchDocumentation, and the ATS weekly coverage rows of getJobsSummary.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS cube;
CREATE EXTENSION IF NOT EXISTS earthdistance;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The weighted document of a candidate: title and skills weigh most, then prior employers, then
-- education and location. A function because array_to_string is only STABLE while a generated
-- column needs IMMUTABLE; it is immutable in fact for text[].
-- +goose StatementBegin
CREATE FUNCTION candidate_search_document(title text, skills text[], employers text[], education text, location text)
RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('english', coalesce(title, '')), 'A')
        || setweight(to_tsvector('english', coalesce(array_to_string(skills, ' '), '')), 'A')
        || setweight(to_tsvector('english', coalesce(array_to_string(employers, ' '), '')), 'B')
        || setweight(to_tsvector('english', coalesce(education, '')), 'C')
        || setweight(to_tsvector('english', coalesce(location, '')), 'D')
$$;
-- +goose StatementEnd

ALTER TABLE candidates ADD COLUMN search tsvector
    GENERATED ALWAYS AS (candidate_search_document(title, skills, employers, education, location)) STORED;
CREATE INDEX candidates_search_idx ON candidates USING gin (search);
CREATE INDEX candidates_earth_idx ON candidates USING gist (ll_to_earth(latitude, longitude))
    WHERE latitude IS NOT NULL AND longitude IS NOT NULL;
CREATE INDEX candidates_name_trgm_idx ON candidates USING gin ((first_name || ' ' || last_name) gin_trgm_ops);
CREATE INDEX candidates_company_status_idx ON candidates (company_id, status);

-- Product documentation (docs/*.md), one row per section; not tenant data. Rebuilt from the
-- embedded docs whenever their content hash changes.
CREATE TABLE doc_sections (
    id         bigserial PRIMARY KEY,
    doc        text NOT NULL,
    anchor     text NOT NULL,
    title      text NOT NULL,
    doc_title  text NOT NULL DEFAULT '',
    position   integer NOT NULL,
    body       text NOT NULL,
    search     tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') ||
        setweight(to_tsvector('english', doc_title), 'B') ||
        setweight(to_tsvector('english', body), 'C')) STORED,
    UNIQUE (doc, anchor)
);
CREATE INDEX doc_sections_search_idx ON doc_sections USING gin (search);

CREATE TABLE doc_index_state (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    content_hash text NOT NULL,
    indexed_at   timestamptz NOT NULL DEFAULT now()
);

-- One row per ISO week (week_start is a Monday) of the ATS's own job report: the ids of the
-- active jobs created in the ATS that week. getJobsSummary.atsCoverage compares them with the
-- jobs imported into the service.
CREATE TABLE ats_coverage_weeks (
    company_id  uuid NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    week_start  date NOT NULL CHECK (extract(isodow FROM week_start) = 1),
    ats_type    text NOT NULL CHECK (ats_type IN ('ATS-A', 'ATS-B', 'ATS-C', 'ATS-D')),
    ats_job_ids text[] NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (company_id, week_start)
);

-- +goose Down
DROP TABLE ats_coverage_weeks;
DROP TABLE doc_index_state;
DROP TABLE doc_sections;
DROP INDEX candidates_company_status_idx;
DROP INDEX candidates_name_trgm_idx;
DROP INDEX candidates_earth_idx;
DROP INDEX candidates_search_idx;
ALTER TABLE candidates DROP COLUMN search;
DROP FUNCTION candidate_search_document(text, text[], text[], text, text);
DROP EXTENSION pg_trgm;
DROP EXTENSION earthdistance;
DROP EXTENSION cube;
