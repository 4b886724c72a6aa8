import { useCallback, useEffect, useMemo, useState } from 'react';
import type { RunSummary, SavedScenario, ScenarioStep, ScenarioSummary, StoredRun } from '../api/types';
import { ErrorBox } from '../components/ErrorBox';
import { EmptyState } from '../components/EmptyState';
import { formatDateTime, formatDuration } from '../lib/format';
import { hrefOf, navigate } from '../lib/router';
import { useHub } from '../state/hub';

/**
 * Scenarios: conversations kept as tests. Each is a file (the same `agenthub scenario run` reads),
 * edited here, run against its agent or another one; every run is kept, and two runs can be compared
 * step by step, their differences marked.
 */
export function ScenariosPage({ scenarioId }: { scenarioId?: string }) {
  const { client, refreshKey } = useHub();
  const [list, setList] = useState<ScenarioSummary[] | null>(null);
  const [error, setError] = useState('');
  const load = useCallback(() => {
    client
      .call('scenarios.list', {})
      .then((r) => setList(r.scenarios ?? []))
      .catch((e) => setError((e as Error).message));
  }, [client]);
  useEffect(load, [load, refreshKey]);
  useEffect(() => client.on('scenario', () => load()), [client, load]);

  return (
    <div className="page scenarios-page">
      <header className="page-header">
        <h1>Scenarios</h1>
        <p className="muted small">
          A conversation kept as a test: its messages, and what the answers must hold. Save one from any chat (<em>Save as scenario</em>), run it
          against an agent, and compare runs. The same files run from the command line: <code>agenthub scenario run FILE</code>.
        </p>
      </header>
      {error && <ErrorBox message={error} />}
      <div className="scenarios-layout">
        <nav aria-label="Saved scenarios" className="scenarios-list">
          {list === null ? (
            <p className="muted">Loading…</p>
          ) : list.length === 0 ? (
            <EmptyState title="No scenarios yet">Open a conversation and choose Save as scenario.</EmptyState>
          ) : (
            <ul>
              {list.map((s) => (
                <li key={s.id}>
                  <a href={hrefOf({ area: 'scenarios', scenarioId: s.id })} aria-current={s.id === scenarioId ? 'page' : undefined}>
                    {s.name}
                  </a>{' '}
                  {s.lastRun && <RunBadge status={s.lastRun.status} />}
                </li>
              ))}
            </ul>
          )}
        </nav>
        {scenarioId ? <ScenarioDetail key={scenarioId} id={scenarioId} /> : <p className="muted">Pick a scenario.</p>}
      </div>
    </div>
  );
}

export function RunBadge({ status }: { status: string }) {
  const cls = status === 'passed' ? 'badge-ok' : status === 'failed' ? 'badge-warn' : '';
  const label = status === 'passed' ? '✓ passed' : status === 'failed' ? '✗ failed' : '… running';
  return (
    <span className={`badge ${cls}`} data-testid="run-status" data-status={status}>
      {label}
    </span>
  );
}

function ScenarioDetail({ id }: { id: string }) {
  const { client, agents } = useHub();
  const [saved, setSaved] = useState<SavedScenario | null>(null);
  const [runs, setRuns] = useState<RunSummary[]>([]);
  const [source, setSource] = useState('');
  const [agent, setAgent] = useState('');
  const [error, setError] = useState('');
  const [current, setCurrent] = useState<StoredRun | null>(null);
  const [compare, setCompare] = useState<string[]>([]);
  const load = useCallback(() => {
    client
      .call('scenarios.get', { id })
      .then((r) => {
        setSaved((prev) => {
          if (!prev) setSource(r.scenario.source); // the editor keeps what the person is typing
          return r.scenario;
        });
        setRuns(r.runs ?? []);
      })
      .catch((e) => setError((e as Error).message));
  }, [client, id]);
  useEffect(load, [load]);
  // A run's steps arrive as they end: the run shown is read afresh with the list.
  useEffect(
    () =>
      client.on('scenario', (d) => {
        if (d.id !== id) return;
        load();
        setCurrent((run) => {
          if (run) void client.call('scenarios.getRun', { id: run.id }).then(setCurrent, () => {});
          return run;
        });
      }),
    [client, id, load],
  );

  const save = async () => {
    setError('');
    try {
      const sv = await client.call('scenarios.save', { id, source });
      setSaved(sv);
      setSource(sv.source);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const run = async () => {
    setError('');
    try {
      if (saved && source !== saved.source) await save();
      setCurrent(await client.call('scenarios.run', { id, agent: agent || undefined }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const remove = async () => {
    await client.call('scenarios.delete', { id });
    navigate({ area: 'scenarios' });
  };
  const toggleCompare = (runId: string) =>
    setCompare((c) => (c.includes(runId) ? c.filter((x) => x !== runId) : [...c.slice(-1), runId]));

  if (!saved) return error ? <ErrorBox message={error} /> : <p className="muted">Loading…</p>;
  return (
    <section className="scenario-detail" aria-labelledby="scenario-h" data-testid="scenario-detail">
      <h2 id="scenario-h">{saved.name}</h2>
      <label htmlFor="scenario-source">Scenario file (YAML or JSON)</label>
      <textarea
        id="scenario-source"
        className="scenario-source mono"
        rows={Math.min(24, Math.max(8, source.split('\n').length + 1))}
        spellCheck={false}
        value={source}
        onChange={(e) => setSource(e.target.value)}
      />
      <div className="row gap">
        <button type="button" className="btn" onClick={() => void save()} disabled={source === saved.source}>
          Save
        </button>
        <label htmlFor="scenario-agent">Run against</label>
        <select id="scenario-agent" value={agent} onChange={(e) => setAgent(e.target.value)}>
          <option value="">its agent ({agents.find((a) => a.id === saved.agent)?.name ?? saved.agent})</option>
          {agents
            .filter((a) => a.canChat && a.kind !== 'hub')
            .map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.id})
              </option>
            ))}
        </select>
        <button type="button" className="btn btn-primary" onClick={() => void run()}>
          Run
        </button>
        <button type="button" className="btn btn-danger" onClick={() => void remove()}>
          Delete
        </button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {current && <RunView run={current} />}
      <h3>Runs</h3>
      {runs.length === 0 ? (
        <p className="muted">Not run yet.</p>
      ) : (
        <table className="table" aria-label="Runs">
          <thead>
            <tr>
              <th scope="col">Compare</th>
              <th scope="col">When</th>
              <th scope="col">Agent</th>
              <th scope="col">Result</th>
              <th scope="col">Steps</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} data-testid="run-row">
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Compare the run of ${formatDateTime(r.startedAt)}`}
                    checked={compare.includes(r.id)}
                    onChange={() => toggleCompare(r.id)}
                  />
                </td>
                <td>
                  <button type="button" className="link" onClick={() => void client.call('scenarios.getRun', { id: r.id }).then(setCurrent)}>
                    {formatDateTime(r.startedAt)}
                  </button>
                </td>
                <td>
                  {agents.find((a) => a.id === r.agent)?.name ?? r.agent}
                  {r.binding && <span className="muted small"> · {r.binding}</span>}
                </td>
                <td>
                  <RunBadge status={r.status} />
                </td>
                <td>
                  {r.steps - r.failed} of {r.steps} passed
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {compare.length === 2 && <Compare ids={compare} />}
    </section>
  );
}

function stepSummary(s: ScenarioStep): string {
  const failed = (s.assertions ?? []).filter((a) => !a.passed).map((a) => `${a.name}: ${a.detail ?? 'failed'}`);
  return [s.state || s.error || '', ...failed].filter(Boolean).join('; ');
}

/** A run as it goes: a row per step as it ends. */
function RunView({ run }: { run: StoredRun }) {
  const steps = run.result?.steps ?? [];
  return (
    <section className="run-view" aria-label="Run" data-testid="run-view">
      <h3>
        Run of {formatDateTime(run.startedAt)} against {run.agent} <RunBadge status={run.status} />
      </h3>
      {run.result?.error && <p className="error">{run.result.error}</p>}
      <ol className="run-steps">
        {steps.map((s) => (
          <li key={s.index} data-testid="run-step" data-passed={s.passed}>
            {s.passed ? '✓' : '✗'} Step {s.index}
            {s.name ? ` ${s.name}` : ''} · {formatDuration(s.durationNs / 1e6)} · {stepSummary(s)}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** What differs between two runs, cell by cell: a step's outcome, its state, its assertions, the
 * agent's text and data, its timing (more than twice as long, and 100 ms). */
export function compareSteps(a: ScenarioStep | undefined, b: ScenarioStep | undefined) {
  const assertions = (s?: ScenarioStep) => (s?.assertions ?? []).map((x) => `${x.name} ${x.passed ? 'ok' : 'FAIL'}${x.detail ? `: ${x.detail}` : ''}`).join('\n');
  const slower = a && b ? Math.max(a.durationNs, b.durationNs) > 2 * Math.min(a.durationNs, b.durationNs) + 100e6 : false;
  return {
    outcome: a?.passed !== b?.passed,
    state: (a?.state ?? '') !== (b?.state ?? '') || (a?.error ?? '') !== (b?.error ?? ''),
    assertions: assertions(a) !== assertions(b),
    text: (a?.text ?? '') !== (b?.text ?? ''),
    data: (a?.data ?? '') !== (b?.data ?? ''),
    time: slower,
  };
}

/** Two runs side by side, steps aligned by their index, differences marked. */
function Compare({ ids }: { ids: string[] }) {
  const { client } = useHub();
  const [runs, setRuns] = useState<StoredRun[] | null>(null);
  useEffect(() => {
    let live = true;
    // The older run on the left, as in a before-and-after.
    Promise.all(ids.map((id) => client.call('scenarios.getRun', { id }))).then(
      (r) => live && setRuns([...r].sort((x, y) => x.startedAt.localeCompare(y.startedAt))),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [client, ids]);
  const rows = useMemo(() => {
    if (!runs) return [];
    const [a, b] = runs.map((r) => r.result?.steps ?? []);
    const n = Math.max(a.length, b.length);
    return Array.from({ length: n }, (_, i) => ({ a: a[i], b: b[i], diff: compareSteps(a[i], b[i]) }));
  }, [runs]);
  if (!runs) return <p className="muted">Loading the runs…</p>;
  const mark = (on: boolean) => (on ? 'diff' : undefined);
  const cell = (s: ScenarioStep | undefined, d: ReturnType<typeof compareSteps>) =>
    s ? (
      <>
        <div>
          <span className={mark(d.outcome)}>{s.passed ? '✓ passed' : '✗ failed'}</span> · <span className={mark(d.state)}>{s.state || s.error || '—'}</span> ·{' '}
          <span className={mark(d.time)}>{formatDuration(s.durationNs / 1e6)}</span>
        </div>
        {s.text && (
          <pre className={`step-text small ${d.text ? 'diff' : ''}`} data-testid="compare-text">
            {s.text}
          </pre>
        )}
        {s.data && (
          <pre className={`step-text small ${d.data ? 'diff' : ''}`} data-testid="compare-data">
            {s.data}
          </pre>
        )}
        <ul className="small">
          {(s.assertions ?? []).map((x, i) => (
            <li key={i}>
              {x.passed ? 'ok' : 'FAIL'} {x.name}
              {x.detail ? `: ${x.detail}` : ''}
            </li>
          ))}
        </ul>
      </>
    ) : (
      <span className="muted">not run</span>
    );
  return (
    <section aria-label="Compare runs" data-testid="compare">
      <h3>Compare</h3>
      <table className="table compare-table">
        <thead>
          <tr>
            <th scope="col">Step</th>
            {runs.map((r) => (
              <th scope="col" key={r.id}>
                {formatDateTime(r.startedAt)} · {r.agent} <RunBadge status={r.status} />
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => {
            const d = r.diff;
            const differs = d.outcome || d.state || d.assertions || d.text || d.data || d.time;
            return (
              <tr key={i} className={differs ? 'differs' : ''} data-testid="compare-row" data-differs={differs}>
                <th scope="row">
                  {i + 1}
                  {differs && <span className="diff-mark" title="These runs differ here"> ≠</span>}
                </th>
                <td>{cell(r.a, d)}</td>
                <td>{cell(r.b, d)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
