-- +goose Up
-- Scenarios the owner saved in the app, and their runs (as SQLite's migration 1 leaves them).
CREATE TABLE scenarios (
    id          TEXT COLLATE "C" PRIMARY KEY,
    name        TEXT NOT NULL,
    agent       TEXT NOT NULL,
    source      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

CREATE TABLE scenario_runs (
    id          TEXT COLLATE "C" PRIMARY KEY,
    scenario_id TEXT COLLATE "C" NOT NULL REFERENCES scenarios(id) ON DELETE CASCADE,
    agent       TEXT NOT NULL,
    source      TEXT NOT NULL,
    started_at  BIGINT NOT NULL,
    status      TEXT NOT NULL,
    result      TEXT NOT NULL
);
CREATE INDEX scenario_runs_by_scenario ON scenario_runs(scenario_id, started_at DESC);

-- +goose Down
DROP TABLE scenario_runs;
DROP TABLE scenarios;
