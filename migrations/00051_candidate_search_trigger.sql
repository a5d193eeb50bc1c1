-- candidates.search is kept by a trigger instead of being a generated column, so that a bulk load
-- running with session_replication_role = replica (triggers off: the scale seed) may COPY the
-- document it computed itself; internal/seed computes it from to_tsvector's own lexemes of its
-- vocabulary and its tests compare every row with candidate_search_document. Every other write
-- gets the value the generated column gave: the trigger recomputes it on each insert, and on each
-- update unless the inputs and the document are unchanged (then the stored one is already exact).

-- +goose Up
ALTER TABLE candidates ALTER COLUMN search DROP EXPRESSION;

-- +goose StatementBegin
CREATE FUNCTION candidates_set_search() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND NEW.title IS NOT DISTINCT FROM OLD.title AND NEW.skills IS NOT DISTINCT FROM OLD.skills
       AND NEW.employers IS NOT DISTINCT FROM OLD.employers AND NEW.education IS NOT DISTINCT FROM OLD.education
       AND NEW.location IS NOT DISTINCT FROM OLD.location AND NEW.search IS NOT DISTINCT FROM OLD.search THEN
        RETURN NEW;
    END IF;
    NEW.search := candidate_search_document(NEW.title, NEW.skills, NEW.employers, NEW.education, NEW.location);
    RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER candidates_set_search BEFORE INSERT OR UPDATE ON candidates
    FOR EACH ROW EXECUTE FUNCTION candidates_set_search();

-- +goose Down
DROP TRIGGER candidates_set_search ON candidates;
DROP FUNCTION candidates_set_search();
ALTER TABLE candidates DROP COLUMN search;
ALTER TABLE candidates ADD COLUMN search tsvector
    GENERATED ALWAYS AS (candidate_search_document(title, skills, employers, education, location)) STORED;
CREATE INDEX candidates_search_idx ON candidates USING gin (search);
