-- +goose Up
-- kg_statements is every statement in the graph with its metadata; Cayley (knowledge.bolt) holds
-- the same triples indexed for traversal and Gizmo. obj_key identifies the object (an IRI or a
-- typed literal) so that (subject, predicate, object, graph) is one statement.
CREATE TABLE kg_statements (
    id            INTEGER PRIMARY KEY,
    subject       TEXT NOT NULL,
    predicate     TEXT NOT NULL,
    obj_key       TEXT NOT NULL,
    object_id     TEXT,
    value_json    TEXT,
    datatype      TEXT,
    graph         TEXT NOT NULL DEFAULT '',
    certainty     REAL NOT NULL,
    provenance    TEXT,
    source        TEXT NOT NULL,
    justification TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (subject, predicate, obj_key, graph)
);
CREATE INDEX kg_statements_predicate ON kg_statements (predicate, obj_key);
CREATE INDEX kg_statements_object ON kg_statements (object_id);

-- kg_changes is the change log: written in the same transaction as kg_statements, before the
-- graph; on start the graph is brought up to date by replaying the changes after applied_seq.
CREATE TABLE kg_changes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    op         TEXT NOT NULL,  -- add | remove | replace (the add of a replace)
    statement  TEXT NOT NULL,  -- the statement as JSON (wire shape)
    source     TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- kg_state: applied_seq is the last change known to be in the graph; seeded marks the sample graph.
CREATE TABLE kg_state (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);

-- +goose Down
DROP TABLE kg_state;
DROP TABLE kg_changes;
DROP TABLE kg_statements;
