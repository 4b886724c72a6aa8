-- +goose Up
-- The binding the owner chose for talking to the agent (agents.Binding: 'JSONRPC', 'HTTP+JSON',
-- 'GRPC'); '' leaves the choice to the hub (JSON-RPC when the card offers it, else REST, else gRPC).
ALTER TABLE remote_agents ADD COLUMN binding TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE remote_agents DROP COLUMN binding;
