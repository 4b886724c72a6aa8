-- +goose Up
-- The owner's conversations as SQLite's migrations 1-2 leave them, in PostgreSQL's types.
CREATE TABLE conversations (
    id          TEXT COLLATE "C" PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    context_id  TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,            -- unix nanoseconds
    updated_at  BIGINT NOT NULL             -- last entry; the list order
);
CREATE INDEX conversations_by_update ON conversations(updated_at DESC, id DESC);
CREATE INDEX conversations_by_agent ON conversations(agent_id, updated_at DESC);

CREATE TABLE chat_entries (
    conversation_id TEXT COLLATE "C" NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,            -- 1, 2, 3 ... per conversation
    at          BIGINT NOT NULL,
    direction   TEXT NOT NULL,              -- out | in | local
    task_id     TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,              -- message | task | status | artifact | error
    final       INTEGER NOT NULL,           -- 1 when the agent's turn ended with this entry
    body        BYTEA NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);

CREATE TABLE chat_tasks (
    conversation_id TEXT COLLATE "C" NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    task_id     TEXT COLLATE "C" NOT NULL,
    state       TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (conversation_id, task_id)
);
CREATE INDEX chat_tasks_by_state ON chat_tasks(state);
CREATE INDEX chat_tasks_by_creation ON chat_tasks(created_at DESC, task_id DESC);
CREATE INDEX chat_tasks_by_task ON chat_tasks(task_id);

-- +goose Down
DROP TABLE chat_tasks;
DROP TABLE chat_entries;
DROP TABLE conversations;
