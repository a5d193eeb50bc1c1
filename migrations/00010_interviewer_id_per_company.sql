-- Interviewer ids (`<company_slug>-<externalJobId>`) are unique per company, not across all
-- companies: company `demo` with job `x-coll1` and company `demo-x` with job `coll1` both map to
-- `demo-x-coll1`, and a global key let one tenant's job refuse another tenant's createJob (a
-- probe of other tenants' job ids, and a way to squat them). Every lookup is by company.

-- +goose Up
ALTER TABLE jobs DROP CONSTRAINT jobs_interviewer_id_key;
ALTER TABLE jobs ADD CONSTRAINT jobs_company_interviewer_id_key UNIQUE (company_id, interviewer_id);

-- +goose Down
ALTER TABLE jobs DROP CONSTRAINT jobs_company_interviewer_id_key;
ALTER TABLE jobs ADD CONSTRAINT jobs_interviewer_id_key UNIQUE (interviewer_id);
