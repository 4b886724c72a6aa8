-- +goose Up
-- The owner's credentials for remote agents when they are kept in the hub's database (--secrets
-- database): one row per agent and scheme, the Secret's JSON sealed with AES-256-GCM under the key
-- in --secrets-key-file (version byte, nonce, ciphertext; see backend/secrets/database.go). Nothing
-- here is readable without that key.
CREATE TABLE agent_secrets (
    agent_id   TEXT NOT NULL,
    scheme     TEXT NOT NULL,
    sealed     BLOB NOT NULL,
    updated_at INTEGER NOT NULL, -- unix milliseconds
    PRIMARY KEY (agent_id, scheme)
);
-- One row sealed under the key the first replica opened the table with, so a hub started with
-- another key refuses to start instead of writing rows the others cannot read.
CREATE TABLE agent_secrets_key (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    sealed BLOB NOT NULL
);

-- +goose Down
DROP TABLE agent_secrets_key;
DROP TABLE agent_secrets;
