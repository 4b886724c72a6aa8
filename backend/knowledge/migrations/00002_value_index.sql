-- +goose Up
-- Literal values by predicate: a nodes(where: {predicate, eq}) filter starts from the few
-- statements with that value instead of testing every node of the type one by one.
CREATE INDEX kg_statements_value ON kg_statements (predicate, value_json) WHERE object_id IS NULL;

-- +goose Down
DROP INDEX kg_statements_value;
