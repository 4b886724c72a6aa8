-- +goose Up
-- The owner's access settings, one row each. "anonymous" is what callers without credentials may do
-- (see policy.go); an absent row means the default.
CREATE TABLE auth_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- +goose Down
DROP TABLE auth_settings;
