import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AgentInfo, InboxItem, TaskDetail } from '../api/types';
import { planForm, SID } from '../lib/a2ui.fixtures';
import { hub, renderWithHub } from '../test/hub';
import { InboxPage } from './InboxPage';

const hubAgent: AgentInfo = {
  id: 'hub', name: 'AgentHub', description: '', kind: 'hub', url: 'http://127.0.0.1:47470/a2a', cardUrl: '', online: true, protocolVersions: ['1.0'], card: {}, problems: [],
};
const summary: InboxItem = {
  agent: 'hub', id: 'T1', contextId: 'C1', state: 'working', dialect: '1.0', direction: 'incoming', title: 'Plan a release?',
  createdAt: '2026-11-28T10:00:00Z', updatedAt: '2026-11-28T10:00:00Z', waitingForOwner: true, unread: false, sender: 'agent://planner',
};
const a2ui = (data: unknown[]) => ({ kind: 'data' as const, mediaType: 'application/a2ui+json', data });
const detail = (state: string, answered = false): TaskDetail => ({
  summary: { ...summary, state, waitingForOwner: !answered },
  history: [{ id: 'm1', role: 'user', parts: [{ kind: 'text', text: 'Plan a release?' }, a2ui(planForm) as never] }],
  artifacts: null,
  status: { state },
  events: answered
    ? [
        {
          seq: 2, at: '2026-11-28T10:01:00Z', kind: 'artifact', final: false, raw: {},
          artifact: { id: 'a1', name: 'answer', parts: [a2ui([{ version: 'v0.9', action: { name: 'plan_release', surfaceId: SID, sourceComponentId: 'submit', timestamp: '', context: { version: '4.0' } } }]) as never] },
        },
        { seq: 3, at: '2026-11-28T10:02:00Z', kind: 'status', final: true, state: 'completed', status: { state: 'completed' }, raw: {} },
      ]
    : [],
  raw: {},
});

async function open(d: TaskDetail) {
  const r = await renderWithHub(<InboxPage taskId="T1" />);
  await hub(() => {
    r.socket.replyAll('agents.list', { agents: [hubAgent] });
    r.socket.replyAll('inbox.list', { tasks: [summary], unread: 0 });
  });
  await hub(() => r.socket.replyAll('tasks.get', d));
  return r;
}

describe('A2UI in the inbox', () => {
  it('draws the form an agent sent the owner, and sends the owner’s action back as the answer', async () => {
    const { socket } = await open(detail('working'));
    const form = await screen.findByTestId('inbox-surface');
    expect(form.dataset.surfaceId).toBe(SID);
    expect(screen.queryByText(/createSurface/)).toBeNull(); // drawn, not shown as JSON
    fireEvent.change(await within(form).findByLabelText('Version'), { target: { value: '4.0' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Plan it' }));
    await waitFor(() => expect(() => socket.request('inbox.act')).not.toThrow());
    const req = socket.request('inbox.act');
    const p = req.params as { id: string; action: string; a2ui: { version: string; action: Record<string, unknown> }[] };
    expect(p.id).toBe('T1');
    expect(p.action).toBe('answer');
    expect(p.a2ui[0].version).toBe('v0.9');
    expect(p.a2ui[0].action).toMatchObject({ name: 'plan_release', surfaceId: SID, context: { version: '4.0' } });
  });

  it('says the owner’s action in words, and closes the form once the task ended', async () => {
    await open(detail('completed', true));
    expect((await screen.findByTestId('inbox-action')).textContent).toContain('You chose plan release (version: 4.0)');
    expect(await within(screen.getByTestId('inbox-surface')).findByText(/This form is closed/)).toBeTruthy();
  });
});
