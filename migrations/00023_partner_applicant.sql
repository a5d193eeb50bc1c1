-- The applicant a partner submission read from the ATS (name, e-mail, phone) is kept on the
-- partner application until the application's run stores it as the candidate and application it
-- works on, which clears it. The submission's transaction then writes no candidate or
-- application: their statistics rollups (00007) are rows every submission of a company updates,
-- and holding them until a request's commit serialised the company's submissions.

-- +goose Up
ALTER TABLE partner_applications ADD COLUMN applicant jsonb;

-- +goose Down
ALTER TABLE partner_applications DROP COLUMN applicant;
