-- +goose Up
-- The Tasks list pages the owner's sent tasks newest first, with the local agents' tasks.
CREATE INDEX chat_tasks_by_creation ON chat_tasks(created_at DESC, task_id DESC);
-- A local agent's task is looked up by id to tell whether the owner sent it from a conversation.
CREATE INDEX chat_tasks_by_task ON chat_tasks(task_id);

-- +goose Down
DROP INDEX chat_tasks_by_task;
DROP INDEX chat_tasks_by_creation;
