-- +goose Up
-- Scenarios the owner saved in the app, and their runs.
CREATE TABLE scenarios (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    agent       TEXT NOT NULL,           -- the file's agent: a URL or an added agent's id
    source      TEXT NOT NULL,           -- the file, as the owner last saved it (YAML or JSON)
    created_at  INTEGER NOT NULL,        -- unix nanoseconds
    updated_at  INTEGER NOT NULL
);

CREATE TABLE scenario_runs (
    id          TEXT PRIMARY KEY,
    scenario_id TEXT NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
    agent       TEXT NOT NULL,           -- the agent it ran against
    source      TEXT NOT NULL,           -- the file as it ran
    started_at  INTEGER NOT NULL,
    status      TEXT NOT NULL,           -- running | passed | failed
    result      TEXT NOT NULL            -- the Result as JSON, steps so far while running
);
CREATE INDEX scenario_runs_by_scenario ON scenario_runs(scenario_id, started_at DESC);

-- +goose Down
DROP TABLE scenario_runs;
DROP TABLE scenarios;
