import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { AgentInfo, ChatEntry, Conversation } from '../api/types';
import { planConfirmed, planForm, SID } from '../lib/a2ui.fixtures';
import { FakeSocket } from '../test/fakeSocket';
import { hub, renderWithHub } from '../test/hub';
import { ChatsPage } from './ChatsPage';

const remote: AgentInfo = {
  id: 'r1', name: 'Remote One', description: '', kind: 'remote', url: 'https://one.example.com/a2a', cardUrl: 'https://one.example.com/.well-known/agent-card.json',
  online: true, protocolVersions: ['1.0'], card: {}, problems: [], dialect: '1.0', streaming: true,
};
const conv: Conversation = { id: 'c1', agentId: 'r1', agentName: 'Remote One', title: 'Plan', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', busy: false, dialect: '1.0' };
const at = (seq: number) => `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`;
const a2ui = (data: unknown[]) => ({ kind: 'data' as const, mediaType: 'application/a2ui+json', data });
const start: ChatEntry = { seq: 1, at: at(1), direction: 'out', kind: 'message', final: false, message: { id: 'm1', role: 'user', parts: [{ kind: 'text', text: 'plan a release' }] } };
const status = (seq: number, state: string, parts: unknown[]): ChatEntry => ({
  seq, at: at(seq), direction: 'in', kind: 'status', taskId: 'T1', final: state !== 'working', state, status: { state, message: { id: `s${seq}`, role: 'agent', parts: parts as never } },
});

async function open(entries: ChatEntry[]) {
  window.location.hash = '#/chats/c1';
  const r = await renderWithHub(<ChatsPage conversationId="c1" />);
  await hub(() => {
    r.socket.replyAll('agents.list', { agents: [remote] });
    r.socket.replyAll('hub.info', { version: 't', dataDir: '/d', uiUrl: '', agents: null });
    r.socket.replyAll('inbox.list', { tasks: [], unread: 0 });
    r.socket.replyAll('chats.list', { conversations: [conv] });
    r.socket.replyAll('chats.get', { conversation: conv, entries });
  });
  return r;
}
const push = (socket: FakeSocket, entry: ChatEntry) => hub(() => socket.push({ topic: 'chat', data: { conversationId: 'c1', conversation: conv, entry } }));

describe('A2UI in a chat', () => {
  it('renders the surface inline, sends the action in the same task, shows "You chose", and updates the bubble in place', async () => {
    const { socket } = await open([start, status(2, 'input-required', [{ kind: 'text', text: "Let's plan" }, a2ui(planForm)])]);
    const transcript = screen.getByRole('list', { name: 'Transcript' });
    const bubble = await within(transcript).findByTestId('chat-surface');
    fireEvent.change(await within(bubble).findByLabelText('Version'), { target: { value: '3.1' } });
    fireEvent.click(within(bubble).getByRole('button', { name: 'Plan it' }));
    await waitFor(() => expect(() => socket.request('chats.send')).not.toThrow());
    const req = socket.request('chats.send');
    const params = req.params as { id: string; taskId: string; a2ui: { version: string; action: Record<string, unknown> }[]; a2uiDataModel: unknown };
    expect(params.id).toBe('c1');
    expect(params.taskId).toBe('T1');
    expect(params.a2ui).toHaveLength(1);
    expect(params.a2ui[0].version).toBe('v0.9');
    expect(params.a2ui[0].action).toMatchObject({ name: 'plan_release', surfaceId: SID, sourceComponentId: 'submit', context: { version: '3.1', channel: ['stable'] } });
    expect(params.a2uiDataModel).toEqual({ version: 'v0.9', surfaces: { [SID]: { release: { version: '3.1', date: '', channel: ['stable'] } } } });

    const sent: ChatEntry = { seq: 3, at: at(3), direction: 'out', kind: 'message', taskId: 'T1', final: false, message: { id: 'm3', role: 'user', parts: [a2ui(params.a2ui)] } };
    await hub(() => socket.reply(req.id, sent));
    expect(within(transcript).getByTestId('chat-action').textContent).toContain('You chose plan release (version: 3.1 · channel: stable)');

    await push(socket, status(4, 'completed', [a2ui(planConfirmed)]));
    await within(transcript).findByText('Release planned');
    expect(within(transcript).getAllByTestId('chat-surface')).toHaveLength(1);
    expect(within(transcript).getByTestId('chat-surface')).toBe(bubble); // the same bubble, changed in place
    expect(within(bubble).getByText(/This form is closed/)).toBeTruthy(); // the task ended
  });

  it('removes the bubble on deleteSurface', async () => {
    const { socket } = await open([start, status(2, 'input-required', [a2ui(planForm)])]);
    await screen.findByTestId('chat-surface');
    await push(socket, status(3, 'canceled', [{ kind: 'text', text: 'Discarded.' }, a2ui([{ version: 'v0.9', deleteSurface: { surfaceId: SID } }])]));
    expect(screen.queryByTestId('chat-surface')).toBeNull();
    expect(screen.getByText('Discarded.')).toBeTruthy();
  });

  it('keeps the chat working around a hostile surface', async () => {
    const cycle = [
      { version: 'v0.9', createSurface: { surfaceId: 'x', catalogId: 'https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json' } },
      { version: 'v0.9', updateComponents: { surfaceId: 'x', components: [{ id: 'root', component: 'Card', child: 'root' }] } },
    ];
    await open([start, status(2, 'completed', [{ kind: 'text', text: 'Here you go' }, a2ui(cycle)])]);
    expect((await screen.findByTestId('a2ui-refused')).textContent).toMatch(/cycle/);
    expect(screen.getByText('Here you go')).toBeTruthy();
    expect(screen.getByLabelText('Message')).toBeTruthy();
  });
});
