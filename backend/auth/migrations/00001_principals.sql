-- +goose Up
-- Agents allowed to call the hub, each with one API key. Only the key's SHA-256 is kept (see
-- principals.go for why a fast hash is enough); key_prefix is its first characters, shown so the owner
-- can tell keys apart. generation counts keys issued to the name: a rotation or removal bumps it, and
-- access tokens carry the generation they were minted under, so they die with the key.
-- A removed principal keeps its row (revoked_at set), so audit entries naming it stay meaningful.
CREATE TABLE principals (
    name         TEXT PRIMARY KEY,
    key_hash     BLOB NOT NULL,
    key_prefix   TEXT NOT NULL,
    generation   INTEGER NOT NULL DEFAULT 1,
    created_at   INTEGER NOT NULL,           -- unix nanoseconds; when the current key was issued
    last_used_at INTEGER NOT NULL DEFAULT 0, -- 0: never; written at most once a minute per principal
    revoked_at   INTEGER NOT NULL DEFAULT 0  -- 0: active
);
CREATE INDEX principals_key_prefix ON principals (key_prefix);

-- The hub's ES256 signing keys for the access tokens of its OAuth2 endpoint. The current key has a
-- private half and retired_at = 0; a retired key loses its private half and keeps its public half until
-- verify_until, the expiry of the last token it can have signed, so tokens in flight stay verifiable.
CREATE TABLE signing_keys (
    kid          TEXT PRIMARY KEY,           -- RFC 7638 thumbprint of the public key
    private_der  BLOB,                       -- PKCS #8; NULL once retired
    public_der   BLOB NOT NULL,              -- PKIX
    created_at   INTEGER NOT NULL,
    retired_at   INTEGER NOT NULL DEFAULT 0,
    verify_until INTEGER NOT NULL DEFAULT 0
);

-- +goose Down
DROP TABLE signing_keys;
DROP TABLE principals;
