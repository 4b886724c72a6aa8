-- +goose Up
-- The auth tables as SQLite's migrations 1-4 leave them, in PostgreSQL's types.
CREATE TABLE principals (
    name         TEXT COLLATE "C" PRIMARY KEY,
    key_hash     BYTEA NOT NULL,
    key_prefix   TEXT NOT NULL,
    generation   BIGINT NOT NULL DEFAULT 1,
    created_at   BIGINT NOT NULL,            -- unix nanoseconds; when the current key was issued
    last_used_at BIGINT NOT NULL DEFAULT 0,  -- 0: never; written at most once a minute per principal
    revoked_at   BIGINT NOT NULL DEFAULT 0,  -- 0: active
    added_at     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX principals_key_prefix ON principals (key_prefix);

CREATE TABLE signing_keys (
    kid          TEXT PRIMARY KEY,           -- RFC 7638 thumbprint of the public key
    private_der  BYTEA,                      -- PKCS #8; NULL once retired
    public_der   BYTEA NOT NULL,             -- PKIX
    created_at   BIGINT NOT NULL,
    retired_at   BIGINT NOT NULL DEFAULT 0,
    verify_until BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE auth_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- Bumped by every change of who may call: a cache of principals is good while the epoch is unchanged.
CREATE TABLE auth_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO auth_epoch (id, n) VALUES (1, 1);

-- +goose StatementBegin
CREATE FUNCTION auth_epoch_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER principals_epoch_insert AFTER INSERT ON principals
    FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER principals_epoch_update AFTER UPDATE OF name, key_hash, key_prefix, generation, revoked_at ON principals
    FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();
CREATE TRIGGER principals_epoch_delete AFTER DELETE ON principals
    FOR EACH ROW EXECUTE FUNCTION auth_epoch_bump();

-- +goose Down
DROP TABLE auth_epoch;
DROP FUNCTION auth_epoch_bump CASCADE;
DROP TABLE auth_settings;
DROP TABLE signing_keys;
DROP TABLE principals;
