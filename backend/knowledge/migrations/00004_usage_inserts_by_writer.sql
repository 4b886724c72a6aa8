-- +goose Up
-- An insert into kg_statements is counted in kg_usage by the update that makes it (commitOnce: one
-- upsert per update, with the bytes it wrote), not by a trigger per row: the insert trigger's two
-- statements were 1.2–1.7 s of a 100k load, and inserts are nearly every row a load or a batch
-- writes. Rewrites and removals keep their triggers: only the old row knows the bytes it held and
-- whose they were. Each trigger now adds its difference (an upsert, negative for the old row) so
-- the counts add up in any order: a statement added and removed in one update is subtracted before
-- the update's insert count lands.
DROP TRIGGER kg_usage_insert;
DROP TRIGGER kg_usage_delete;
DROP TRIGGER kg_usage_update;

-- +goose StatementBegin
CREATE TRIGGER kg_usage_delete AFTER DELETE ON kg_statements BEGIN
    INSERT INTO kg_usage (principal, statements, bytes) VALUES (old.source, -1, -(length(CAST(old.subject AS BLOB))
        + length(CAST(old.predicate AS BLOB))
        + length(CAST(old.obj_key AS BLOB))
        + length(CAST(old.graph AS BLOB))
        + coalesce(length(CAST(old.object_id AS BLOB)), 0)
        + coalesce(length(CAST(old.value_json AS BLOB)), 0)
        + coalesce(length(CAST(old.datatype AS BLOB)), 0)
        + coalesce(length(CAST(old.provenance AS BLOB)), 0)
        + coalesce(length(CAST(old.justification AS BLOB)), 0)))
    ON CONFLICT (principal) DO UPDATE SET statements = statements + excluded.statements, bytes = bytes + excluded.bytes;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER kg_usage_update AFTER UPDATE ON kg_statements BEGIN
    INSERT INTO kg_usage (principal, statements, bytes) VALUES (old.source, -1, -(length(CAST(old.subject AS BLOB))
        + length(CAST(old.predicate AS BLOB))
        + length(CAST(old.obj_key AS BLOB))
        + length(CAST(old.graph AS BLOB))
        + coalesce(length(CAST(old.object_id AS BLOB)), 0)
        + coalesce(length(CAST(old.value_json AS BLOB)), 0)
        + coalesce(length(CAST(old.datatype AS BLOB)), 0)
        + coalesce(length(CAST(old.provenance AS BLOB)), 0)
        + coalesce(length(CAST(old.justification AS BLOB)), 0)))
    ON CONFLICT (principal) DO UPDATE SET statements = statements + excluded.statements, bytes = bytes + excluded.bytes;
    INSERT INTO kg_usage (principal, statements, bytes) VALUES (new.source, 1, length(CAST(new.subject AS BLOB))
        + length(CAST(new.predicate AS BLOB))
        + length(CAST(new.obj_key AS BLOB))
        + length(CAST(new.graph AS BLOB))
        + coalesce(length(CAST(new.object_id AS BLOB)), 0)
        + coalesce(length(CAST(new.value_json AS BLOB)), 0)
        + coalesce(length(CAST(new.datatype AS BLOB)), 0)
        + coalesce(length(CAST(new.provenance AS BLOB)), 0)
        + coalesce(length(CAST(new.justification AS BLOB)), 0))
    ON CONFLICT (principal) DO UPDATE SET statements = statements + excluded.statements, bytes = bytes + excluded.bytes;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER kg_usage_update;
DROP TRIGGER kg_usage_delete;

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
