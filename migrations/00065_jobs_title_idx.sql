-- jobs_company_title_idx lets getJobDetails' jobName match read a company's distinct job titles
-- (a skip scan: one probe per title) and then only the newest jobs of the best titles, instead
-- of scoring every job's title: a company's jobs grow with its candidates (the demo seed makes
-- one per 500; 20,000 at 10M), its distinct titles much less (82 at 3M). The key is the title's
-- first 500 characters because imported titles are not bounded and a btree entry must fit in a
-- third of a page; two titles alike in their first 500 characters are one title to the match.

-- +goose Up
CREATE INDEX jobs_company_title_idx ON jobs (company_id, left(title, 500), created_at DESC) WHERE NOT is_deleted;

-- +goose Down
DROP INDEX jobs_company_title_idx;
