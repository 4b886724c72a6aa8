-- +goose Up
-- kg_usage is what each principal's statements hold: how many, and their bytes in kg_statements (every
-- column of text), for the per-principal quotas of knowledge/update (rules.go). kg_statements.source
-- is the authenticated principal that last wrote the statement (never the provenance a request
-- claims), so the triggers below keep the usage of the writer; the table is filled from the rows
-- there now. Counting in triggers keeps it exact under every path that writes a row, and in the
-- update's own savepoint: a refused update's counts roll back with it.
CREATE TABLE kg_usage (
    principal  TEXT PRIMARY KEY,
    statements INTEGER NOT NULL,
    bytes      INTEGER NOT NULL
);
INSERT INTO kg_usage (principal, statements, bytes)
SELECT s.source, count(*), sum(length(CAST(s.subject AS BLOB))
        + length(CAST(s.predicate AS BLOB))
        + length(CAST(s.obj_key AS BLOB))
        + length(CAST(s.graph AS BLOB))
        + coalesce(length(CAST(s.object_id AS BLOB)), 0)
        + coalesce(length(CAST(s.value_json AS BLOB)), 0)
        + coalesce(length(CAST(s.datatype AS BLOB)), 0)
        + coalesce(length(CAST(s.provenance AS BLOB)), 0)
        + coalesce(length(CAST(s.justification AS BLOB)), 0))
FROM kg_statements s GROUP BY s.source;

-- +goose StatementBegin
CREATE TRIGGER kg_usage_insert AFTER INSERT ON kg_statements BEGIN
    INSERT OR IGNORE INTO kg_usage (principal, statements, bytes) VALUES (new.source, 0, 0);
    UPDATE kg_usage SET statements = statements + 1, bytes = bytes + (length(CAST(new.subject AS BLOB))
        + length(CAST(new.predicate AS BLOB))
        + length(CAST(new.obj_key AS BLOB))
        + length(CAST(new.graph AS BLOB))
        + coalesce(length(CAST(new.object_id AS BLOB)), 0)
        + coalesce(length(CAST(new.value_json AS BLOB)), 0)
        + coalesce(length(CAST(new.datatype AS BLOB)), 0)
        + coalesce(length(CAST(new.provenance AS BLOB)), 0)
        + coalesce(length(CAST(new.justification AS BLOB)), 0))
    WHERE principal = new.source;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER kg_usage_delete AFTER DELETE ON kg_statements BEGIN
    UPDATE kg_usage SET statements = statements - 1, bytes = bytes - (length(CAST(old.subject AS BLOB))
        + length(CAST(old.predicate AS BLOB))
        + length(CAST(old.obj_key AS BLOB))
        + length(CAST(old.graph AS BLOB))
        + coalesce(length(CAST(old.object_id AS BLOB)), 0)
        + coalesce(length(CAST(old.value_json AS BLOB)), 0)
        + coalesce(length(CAST(old.datatype AS BLOB)), 0)
        + coalesce(length(CAST(old.provenance AS BLOB)), 0)
        + coalesce(length(CAST(old.justification AS BLOB)), 0))
    WHERE principal = old.source;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER kg_usage_update AFTER UPDATE ON kg_statements BEGIN
    UPDATE kg_usage SET statements = statements - 1, bytes = bytes - (length(CAST(old.subject AS BLOB))
        + length(CAST(old.predicate AS BLOB))
        + length(CAST(old.obj_key AS BLOB))
        + length(CAST(old.graph AS BLOB))
        + coalesce(length(CAST(old.object_id AS BLOB)), 0)
        + coalesce(length(CAST(old.value_json AS BLOB)), 0)
        + coalesce(length(CAST(old.datatype AS BLOB)), 0)
        + coalesce(length(CAST(old.provenance AS BLOB)), 0)
        + coalesce(length(CAST(old.justification AS BLOB)), 0))
    WHERE principal = old.source;
    INSERT OR IGNORE INTO kg_usage (principal, statements, bytes) VALUES (new.source, 0, 0);
    UPDATE kg_usage SET statements = statements + 1, bytes = bytes + (length(CAST(new.subject AS BLOB))
        + length(CAST(new.predicate AS BLOB))
        + length(CAST(new.obj_key AS BLOB))
        + length(CAST(new.graph AS BLOB))
        + coalesce(length(CAST(new.object_id AS BLOB)), 0)
        + coalesce(length(CAST(new.value_json AS BLOB)), 0)
        + coalesce(length(CAST(new.datatype AS BLOB)), 0)
        + coalesce(length(CAST(new.provenance AS BLOB)), 0)
        + coalesce(length(CAST(new.justification AS BLOB)), 0))
    WHERE principal = new.source;
END;
-- +goose StatementEnd

-- The eq filter's index held every literal whole (a third copy of it, beside the row and the
-- unique key): it holds a bounded prefix now, and nodes(where: {eq}) matches the prefix through
-- the index and the whole value on the row. The predicate index keeps its use (statements by
-- predicate) with the object cut to the same prefix.
DROP INDEX kg_statements_value;
CREATE INDEX kg_statements_value_prefix ON kg_statements (predicate, substr(value_json, 1, 64)) WHERE object_id IS NULL;
DROP INDEX kg_statements_predicate;
CREATE INDEX kg_statements_predicate_prefix ON kg_statements (predicate, substr(obj_key, 1, 64));

-- +goose Down
DROP INDEX kg_statements_predicate_prefix;
CREATE INDEX kg_statements_predicate ON kg_statements (predicate, obj_key);
DROP INDEX kg_statements_value_prefix;
CREATE INDEX kg_statements_value ON kg_statements (predicate, value_json) WHERE object_id IS NULL;
DROP TRIGGER kg_usage_update;
DROP TRIGGER kg_usage_delete;
DROP TRIGGER kg_usage_insert;
DROP TABLE kg_usage;
