import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { ScenarioStep, StoredRun } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { compareSteps, ScenariosPage } from './ScenariosPage';

const step = (extra: Partial<ScenarioStep> = {}): ScenarioStep => ({
  index: 1,
  name: '',
  line: 3,
  passed: true,
  state: 'completed',
  events: 0,
  durationNs: 20e6,
  assertions: [{ name: 'state', passed: true }],
  ...extra,
});

const run = (id: string, steps: ScenarioStep[], status = 'passed'): StoredRun => ({
  id,
  scenarioId: 's1',
  agent: 'demo',
  source: 'steps: []',
  startedAt: id === 'r2' ? '2026-11-28T10:01:00Z' : '2026-11-28T10:00:00Z',
  status,
  result: { name: 'x', agent: 'demo', passed: status === 'passed', durationNs: 0, steps },
});

describe('compareSteps', () => {
  it('marks what differs between two runs of a step, and nothing when they agree', () => {
    const none = { outcome: false, state: false, assertions: false, text: false, data: false, time: false };
    expect(compareSteps(step({ text: 'hi' }), step({ text: 'hi', durationNs: 30e6 }))).toEqual(none);
    const failed = step({ passed: false, state: 'failed', assertions: [{ name: 'state', passed: false, detail: 'got failed' }] });
    expect(compareSteps(step(), failed)).toEqual({ ...none, outcome: true, state: true, assertions: true });
    expect(compareSteps(step({ text: 'hello' }), step({ text: 'goodbye' }))).toEqual({ ...none, text: true });
    expect(compareSteps(step({ data: '[{"n":1}]' }), step({ data: '[{"n":2}]' }))).toEqual({ ...none, data: true });
    expect(compareSteps(step(), step({ durationNs: 2e9 })).time).toBe(true);
    expect(compareSteps(step(), undefined).outcome).toBe(true);
  });
});

describe('ScenariosPage', () => {
  it('lists scenarios, opens one, and compares two of its runs with the differing step marked', async () => {
    const { socket } = await renderWithHub(<ScenariosPage scenarioId="s1" />);
    await hub(() =>
      socket.replyAll('scenarios.list', {
        scenarios: [{ id: 's1', name: 'greeting', agent: 'demo', source: 'x', createdAt: '', updatedAt: '', lastRun: { id: 'r2', agent: 'demo', startedAt: '', status: 'failed', steps: 1, failed: 1 } }],
      }),
    );
    expect(screen.getByRole('link', { name: 'greeting' }).getAttribute('aria-current')).toBe('page');
    await hub(() =>
      socket.replyAll('scenarios.get', {
        scenario: { id: 's1', name: 'greeting', agent: 'demo', source: 'agent: demo\nsteps:\n  - send: hi\n', createdAt: '', updatedAt: '' },
        runs: [
          { id: 'r2', agent: 'demo', startedAt: '2026-11-28T10:01:00Z', status: 'failed', steps: 1, failed: 1 },
          { id: 'r1', agent: 'demo', startedAt: '2026-11-28T10:00:00Z', status: 'passed', steps: 1, failed: 0 },
        ],
      }),
    );
    expect((screen.getByLabelText('Scenario file (YAML or JSON)') as HTMLTextAreaElement).value).toContain('send: hi');
    const rows = screen.getAllByTestId('run-row');
    expect(rows.map((r) => within(r).getByTestId('run-status').dataset.status)).toEqual(['failed', 'passed']);
    for (const r of rows) await userEvent.click(within(r).getByRole('checkbox'));
    await hub(() => {
      for (const f of socket.sent.filter((x) => x.method === 'scenarios.getRun')) {
        const id = (f.params as { id: string }).id;
        socket.reply(f.id, id === 'r2' ? run('r2', [step({ passed: false, state: 'failed', text: 'goodbye' })], 'failed') : run('r1', [step({ text: 'hello' })]));
      }
    });
    const cmp = screen.getByTestId('compare');
    const row = within(cmp).getByTestId('compare-row');
    expect(row.dataset.differs).toBe('true');
    expect(row.textContent).toContain('≠');
    // The agent's texts side by side, each marked as differing.
    const texts = within(row).getAllByTestId('compare-text');
    expect(texts.map((t) => t.textContent)).toEqual(['hello', 'goodbye']);
    expect(texts.every((t) => t.classList.contains('diff'))).toBe(true);
  });

  it('says why a file was refused, with its line', async () => {
    const { socket } = await renderWithHub(<ScenariosPage scenarioId="s1" />);
    await hub(() => socket.replyAll('scenarios.list', { scenarios: [] }));
    await hub(() => socket.replyAll('scenarios.get', { scenario: { id: 's1', name: 'n', agent: '', source: 'steps: []', createdAt: '', updatedAt: '' }, runs: [] }));
    await userEvent.type(screen.getByLabelText('Scenario file (YAML or JSON)'), 'x');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    const req = socket.request('scenarios.save');
    await hub(() => socket.fail(req.id, 'invalid_params', 'line 1: no steps'));
    expect(screen.getByRole('alert').textContent).toContain('line 1: no steps');
  });
});
