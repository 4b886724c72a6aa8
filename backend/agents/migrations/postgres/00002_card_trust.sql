-- +goose Up
-- What the hub made of each agent card's signatures (A2A §8.4), and the key it pinned for the agent
-- on first use. sig_state: '' not checked yet, 'signed', 'unsigned', 'invalid', 'key_changed'.
ALTER TABLE remote_agents ADD COLUMN sig_state TEXT NOT NULL DEFAULT '';
ALTER TABLE remote_agents ADD COLUMN sig_detail TEXT NOT NULL DEFAULT '';
ALTER TABLE remote_agents ADD COLUMN pinned_key TEXT NOT NULL DEFAULT '';   -- RFC 7638 thumbprint
ALTER TABLE remote_agents ADD COLUMN pinned_jwk TEXT NOT NULL DEFAULT '';
ALTER TABLE remote_agents ADD COLUMN pending_key TEXT NOT NULL DEFAULT '';  -- the new key of a key_changed card
ALTER TABLE remote_agents ADD COLUMN pending_jwk TEXT NOT NULL DEFAULT '';
ALTER TABLE remote_agents ADD COLUMN trust_ack TEXT NOT NULL DEFAULT '';    -- SHA-256 of the card the owner confirmed

-- +goose Down
ALTER TABLE remote_agents DROP COLUMN sig_state;
ALTER TABLE remote_agents DROP COLUMN sig_detail;
ALTER TABLE remote_agents DROP COLUMN pinned_key;
ALTER TABLE remote_agents DROP COLUMN pinned_jwk;
ALTER TABLE remote_agents DROP COLUMN pending_key;
ALTER TABLE remote_agents DROP COLUMN pending_jwk;
ALTER TABLE remote_agents DROP COLUMN trust_ack;
