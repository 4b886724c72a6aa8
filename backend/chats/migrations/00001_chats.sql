-- +goose Up
-- Conversations the owner has with remote agents: one per A2A context. context_id is '' until the agent
-- answers the first message and names the context. agent_id refers to agents' remote_agents but has no
-- foreign key: removing an agent keeps the conversations it had, readable.
CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,
    agent_id    TEXT NOT NULL,
    context_id  TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,           -- unix nanoseconds
    updated_at  INTEGER NOT NULL            -- last entry; the list order
);
CREATE INDEX conversations_by_update ON conversations(updated_at DESC, id DESC);
CREATE INDEX conversations_by_agent ON conversations(agent_id, updated_at DESC);

-- Everything exchanged in a conversation, in order: what the owner sent (out), every event the agent
-- sent back (in), and calls that failed (local). body is the event's A2A v1.0 JSON (for kind error, a
-- CallError), so the conversation and each task's timeline can be rebuilt after a restart.
CREATE TABLE chat_entries (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,           -- 1, 2, 3 ... per conversation
    at          INTEGER NOT NULL,
    direction   TEXT NOT NULL,              -- out | in | local
    task_id     TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,              -- message | task | status | artifact | error
    final       INTEGER NOT NULL,           -- 1 when the agent's turn ended with this entry
    body        BLOB NOT NULL,
    PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;

-- The remote tasks of each conversation and their latest known state: what a restart resumes
-- watching (tasks not yet final) and what the list shows.
CREATE TABLE chat_tasks (
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    task_id     TEXT NOT NULL,
    state       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, task_id)
);
CREATE INDEX chat_tasks_by_state ON chat_tasks(state);

-- +goose Down
DROP TABLE chat_tasks;
DROP TABLE chat_entries;
DROP TABLE conversations;
