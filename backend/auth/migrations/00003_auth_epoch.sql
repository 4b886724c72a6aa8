-- +goose Up
-- auth_epoch counts the changes to who may call the hub: every insert, delete, and update of a key,
-- a generation or a revocation of a principal bumps it, from any connection of any process (the
-- triggers run inside the writing transaction, so `agenthub principals` bumps it too). The hub keeps
-- what it read of the principals in memory for as long as the counter has not moved (see cache.go),
-- so a request costs one read of this row instead of a lookup of its key. last_used_at is not
-- watched: it changes once a minute per principal and says nothing about access.
CREATE TABLE auth_epoch (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  INTEGER NOT NULL
);
INSERT INTO auth_epoch (id, n) VALUES (1, 1);

-- +goose StatementBegin
CREATE TRIGGER principals_epoch_insert AFTER INSERT ON principals
BEGIN
    UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER principals_epoch_update AFTER UPDATE OF name, key_hash, key_prefix, generation, revoked_at ON principals
BEGIN
    UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER principals_epoch_delete AFTER DELETE ON principals
BEGIN
    UPDATE auth_epoch SET n = n + 1 WHERE id = 1;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER principals_epoch_delete;
DROP TRIGGER principals_epoch_update;
DROP TRIGGER principals_epoch_insert;
DROP TABLE auth_epoch;
