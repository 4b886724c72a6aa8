-- +goose Up
-- As SQLite's 00004: an insert is counted in kg_usage by the update that makes it (one upsert per
-- update), not by the trigger per row; rewrites and removals stay with the trigger, each adding its
-- difference so the counts add up in any order.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION kg_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO kg_usage (principal, statements, bytes) VALUES (OLD.source, -1, -kg_statement_bytes(OLD))
    ON CONFLICT (principal) DO UPDATE SET statements = kg_usage.statements + excluded.statements, bytes = kg_usage.bytes + excluded.bytes;
    IF TG_OP = 'UPDATE' THEN
        INSERT INTO kg_usage (principal, statements, bytes) VALUES (NEW.source, 1, kg_statement_bytes(NEW))
        ON CONFLICT (principal) DO UPDATE SET statements = kg_usage.statements + 1, bytes = kg_usage.bytes + excluded.bytes;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
DROP TRIGGER kg_usage_count ON kg_statements;
CREATE TRIGGER kg_usage_count AFTER UPDATE OR DELETE ON kg_statements
    FOR EACH ROW EXECUTE FUNCTION kg_usage_count();

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION kg_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE kg_usage SET statements = statements - 1, bytes = bytes - kg_statement_bytes(OLD)
        WHERE principal = OLD.source;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO kg_usage (principal, statements, bytes) VALUES (NEW.source, 1, kg_statement_bytes(NEW))
        ON CONFLICT (principal) DO UPDATE SET statements = kg_usage.statements + 1, bytes = kg_usage.bytes + excluded.bytes;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
DROP TRIGGER kg_usage_count ON kg_statements;
CREATE TRIGGER kg_usage_count AFTER INSERT OR UPDATE OR DELETE ON kg_statements
    FOR EACH ROW EXECUTE FUNCTION kg_usage_count();
