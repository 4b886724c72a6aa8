-- +goose Up
-- The knowledge tables as SQLite's migrations 00001-00003 leave them, in PostgreSQL's dialect (see
-- those files for what each table is for). Text that is compared, ordered or paged by (subjects,
-- predicates, object keys) is COLLATE "C": byte order, as in SQLite, so cursors (subject > ?) and
-- ORDER BY agree with SQLite whatever the server's locale; lower() under "C" folds ASCII only, as
-- SQLite's does.
CREATE TABLE kg_statements (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    subject       TEXT COLLATE "C" NOT NULL,
    predicate     TEXT COLLATE "C" NOT NULL,
    obj_key       TEXT COLLATE "C" NOT NULL,
    object_id     TEXT COLLATE "C",
    value_json    TEXT COLLATE "C",
    datatype      TEXT,
    graph         TEXT COLLATE "C" NOT NULL DEFAULT '',
    certainty     DOUBLE PRECISION NOT NULL,
    provenance    TEXT,
    source        TEXT NOT NULL,
    justification TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT COLLATE "C" NOT NULL,
    UNIQUE (subject, predicate, obj_key, graph)
);
CREATE INDEX kg_statements_object ON kg_statements (object_id);
CREATE INDEX kg_statements_value_prefix ON kg_statements (predicate, substr(value_json, 1, 64)) WHERE object_id IS NULL;
CREATE INDEX kg_statements_predicate_prefix ON kg_statements (predicate, substr(obj_key, 1, 64));

-- kg_changes.seq comes from a sequence: unlike SQLite's AUTOINCREMENT, a rolled-back write still
-- uses its numbers, so the log may have gaps (the code reads "the changes after n", never n+1).
CREATE TABLE kg_changes (
    seq        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    op         TEXT NOT NULL,
    statement  TEXT NOT NULL,
    source     TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE kg_state (
    name  TEXT PRIMARY KEY,
    value BIGINT NOT NULL
);

-- kg_usage is kept by the trigger below, as SQLite's three triggers keep it: bytes are every text
-- column's UTF-8 bytes (SQLite's length(CAST(x AS BLOB)) is octet_length here).
CREATE TABLE kg_usage (
    principal  TEXT PRIMARY KEY,
    statements BIGINT NOT NULL,
    bytes      BIGINT NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION kg_statement_bytes(s kg_statements) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
    SELECT octet_length(s.subject)::BIGINT + octet_length(s.predicate) + octet_length(s.obj_key) + octet_length(s.graph)
        + coalesce(octet_length(s.object_id), 0) + coalesce(octet_length(s.value_json), 0)
        + coalesce(octet_length(s.datatype), 0) + coalesce(octet_length(s.provenance), 0)
        + coalesce(octet_length(s.justification), 0)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION kg_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER kg_usage_count AFTER INSERT OR UPDATE OR DELETE ON kg_statements
    FOR EACH ROW EXECUTE FUNCTION kg_usage_count();

-- +goose Down
DROP TRIGGER kg_usage_count ON kg_statements;
DROP FUNCTION kg_usage_count();
DROP FUNCTION kg_statement_bytes(kg_statements);
DROP TABLE kg_usage;
DROP TABLE kg_state;
DROP TABLE kg_changes;
DROP TABLE kg_statements;
