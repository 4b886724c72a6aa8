-- +goose Up
-- PostgreSQL form of the current schema (see ../00001_secrets.sql for what the columns hold).
CREATE TABLE agent_secrets (
    agent_id   TEXT NOT NULL,
    scheme     TEXT NOT NULL,
    sealed     BYTEA NOT NULL,
    updated_at BIGINT NOT NULL, -- unix milliseconds
    PRIMARY KEY (agent_id, scheme)
);
CREATE TABLE agent_secrets_key (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    sealed BYTEA NOT NULL
);

-- +goose Down
DROP TABLE agent_secrets_key;
DROP TABLE agent_secrets;
