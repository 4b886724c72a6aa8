-- +goose Up
-- added_at is when the name was last added (ns epoch), which a rotation does not move (created_at
-- does). A name removed and added again is another principal: memberships and grants made before
-- its added_at belonged to the earlier holder, and the hub drops them at start in case the removal
-- happened while it was not running (`agenthub principals remove` then `add`). Rows written before
-- this column get 0 (unknown), not created_at: a rotation moved that, and the memberships a principal
-- gained before its last rotation are its own.
ALTER TABLE principals ADD COLUMN added_at INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE principals DROP COLUMN added_at;
