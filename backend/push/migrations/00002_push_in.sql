-- +goose Up
-- Push notifications the hub received (as a client of remote agents): each JWT id seen, per key set,
-- until its issued-at window has passed, so a replayed notification is refused, across a restart too.
CREATE TABLE push_in_seen (
    jwks_url   TEXT NOT NULL,
    jti        TEXT NOT NULL,
    expires_at INTEGER NOT NULL, -- unix nanoseconds; after it the iat check refuses the token anyway
    PRIMARY KEY (jwks_url, jti)
);
CREATE INDEX push_in_seen_expiry ON push_in_seen(expires_at);

-- +goose Down
DROP TABLE push_in_seen;
