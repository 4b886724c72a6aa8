import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { AgentInfo, ChatEntry, Conversation } from '../api/types';
import { FakeSocket } from '../test/fakeSocket';
import { hub, renderWithHub, tick } from '../test/hub';
import { ChatsPage, endedTasksOf, failedSend } from './ChatsPage';

const remote: AgentInfo = {
  id: 'r1',
  name: 'Remote One',
  description: 'A remote agent',
  kind: 'remote',
  url: 'https://one.example.com/a2a',
  cardUrl: 'https://one.example.com/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0'],
  card: {},
  problems: [],
  dialect: '1.0',
  streaming: true,
};
const local: AgentInfo = { ...remote, id: 'demo', name: 'Local demo', kind: 'local' };

const conv: Conversation = {
  id: 'c1',
  agentId: 'r1',
  agentName: 'Remote One',
  title: 'Planning',
  createdAt: '2025-01-01T00:00:00Z',
  updatedAt: '2025-01-01T00:00:00Z',
  busy: false,
  dialect: '1.0',
};
const other: Conversation = { ...conv, id: 'c2', title: 'Older chat', updatedAt: '2024-12-31T00:00:00Z' };

const at = (seq: number) => `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`;
const text = (t: string) => ({ kind: 'text' as const, text: t });

function outEntry(seq: number, t: string, taskId?: string): ChatEntry {
  return { seq, at: at(seq), direction: 'out', kind: 'message', final: false, taskId, message: { id: `m${seq}`, role: 'user', parts: [text(t)] } };
}
function statusEntry(seq: number, taskId: string, state: string, msg?: string): ChatEntry {
  return {
    seq,
    at: at(seq),
    direction: 'in',
    kind: seq === 2 ? 'task' : 'status',
    taskId,
    final: ['completed', 'failed', 'canceled', 'input-required'].includes(state),
    state,
    status: { state, ...(msg ? { message: { id: `s${seq}`, role: 'agent', parts: [text(msg)] } } : {}) },
  };
}
function chunkEntry(seq: number, taskId: string, t: string, append: boolean, lastChunk = false): ChatEntry {
  return { seq, at: at(seq), direction: 'in', kind: 'artifact', taskId, final: false, artifact: { id: 'A', name: 'answer', parts: [text(t)], append, lastChunk } };
}

async function open(entries: ChatEntry[] = [], opts: { agents?: AgentInfo[]; conversation?: Conversation } = {}) {
  window.location.hash = '#/chats/c1';
  const r = await renderWithHub(<ChatsPage conversationId="c1" />);
  const { socket } = r;
  await hub(() => {
    socket.replyAll('agents.list', { agents: opts.agents ?? [remote, local] });
    socket.replyAll('hub.info', { version: 't', dataDir: '/d', uiUrl: '', agents: null });
    socket.replyAll('inbox.list', { tasks: [], unread: 0 });
    socket.replyAll('chats.list', { conversations: [other, opts.conversation ?? conv] });
    socket.replyAll('chats.get', { conversation: opts.conversation ?? conv, entries });
  });
  return r;
}

const push = (socket: FakeSocket, entry: ChatEntry, c: Partial<Conversation> = {}) =>
  hub(() => socket.push({ topic: 'chat', data: { conversationId: 'c1', conversation: { ...conv, updatedAt: entry.at, ...c }, entry } }));

const transcript = () => screen.getByRole('list', { name: 'Transcript' });
const box = () => screen.getByLabelText('Message') as HTMLTextAreaElement;
const sendButton = () => screen.getByRole('button', { name: 'Send' }) as HTMLButtonElement;

describe('the Chats page', () => {
  it('lists conversations newest first and opens one', async () => {
    const { socket } = await open();
    expect(socket.request('chats.list').params).toEqual({});
    expect(socket.request('chats.get').params).toEqual({ id: 'c1' });
    const items = within(screen.getByRole('list', { name: 'Conversations' })).getAllByTestId('chat-item');
    expect(items.map((i) => i.querySelector('.task-title')?.textContent)).toEqual(['Planning', 'Older chat']);
    expect(items[0].getAttribute('aria-current')).toBe('true');
    expect(within(items[0]).getByText('Remote One')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Planning' })).toBeTruthy();
  });

  it('sends with Enter (Shift+Enter is a new line), Send is disabled while empty, and shows what was recorded', async () => {
    const { socket } = await open();
    expect(sendButton().disabled).toBe(true);
    await userEvent.type(box(), 'Hello{Shift>}{Enter}{/Shift}**there**');
    expect(box().value).toBe('Hello\n**there**');
    expect(() => socket.request('chats.send')).toThrow();
    expect(sendButton().disabled).toBe(false);
    await userEvent.keyboard('{Enter}');
    const req = socket.request('chats.send');
    expect(req.params).toEqual({ id: 'c1', text: 'Hello\n**there**' });
    await hub(() => socket.reply(req.id, outEntry(1, 'Hello\n**there**')));
    expect(box().value).toBe('');
    const bubble = within(transcript()).getByTestId('chat-message');
    expect(bubble.getAttribute('data-from')).toBe('owner');
    // the owner's Markdown is rendered as the agent's is: bold, without its stars
    expect(bubble.querySelector('strong')?.textContent).toBe('there');
    expect(bubble.textContent).not.toContain('**');
    // the same entry pushed again is not shown twice
    await push(socket, outEntry(1, 'Hello\n**there**'));
    expect(within(transcript()).getAllByTestId('chat-message')).toHaveLength(1);
  });

  it('keeps the text and says why when sending fails', async () => {
    const { socket } = await open();
    await userEvent.type(box(), 'Anyone there?{Enter}');
    await hub(() => socket.fail(socket.request('chats.send').id, 'not_found', 'agent r1 was removed'));
    expect(screen.getByRole('alert').textContent).toContain('agent r1 was removed');
    expect(box().value).toBe('Anyone there?');
  });

  it('shows streamed chunks as one growing bubble, then the task as completed', async () => {
    const { socket } = await open([outEntry(1, 'Tell me a story')]);
    await push(socket, statusEntry(2, 'T1', 'working'), { busy: true, state: 'working' });
    const line = () => within(transcript()).getByTestId('task-state');
    expect(line().getAttribute('data-state')).toBe('working');
    expect(within(line()).getByRole('button', { name: 'Cancel task' })).toBeTruthy();

    await push(socket, chunkEntry(3, 'T1', 'Once upon', false));
    await push(socket, chunkEntry(5, 'T1', ' lived a fox.', true, true)); // out of order
    await push(socket, chunkEntry(4, 'T1', ' a time', true));
    await push(socket, chunkEntry(4, 'T1', ' a time', true)); // duplicate on reconnect
    const bubbles = within(transcript()).getAllByTestId('chat-artifact');
    expect(bubbles).toHaveLength(1);
    expect(bubbles[0].textContent).toContain('Once upon a time lived a fox.');
    expect(bubbles[0].getAttribute('aria-busy')).toBeNull(); // lastChunk: complete

    await push(socket, statusEntry(6, 'T1', 'completed'), { busy: false, state: 'completed' });
    expect(line().getAttribute('data-state')).toBe('completed');
    expect(line().textContent).toContain('Completed');
    expect(within(line()).queryByRole('button', { name: 'Cancel task' })).toBeNull();
  });

  it('a bubble still streaming says so', async () => {
    const { socket } = await open();
    await push(socket, statusEntry(2, 'T1', 'working'));
    await push(socket, chunkEntry(3, 'T1', 'Half a', false));
    const b = within(transcript()).getByTestId('chat-artifact');
    expect(b.getAttribute('aria-busy')).toBe('true');
    expect(within(b).getByLabelText('still arriving')).toBeTruthy();
  });

  it('answers an input-required question in place: same task', async () => {
    const { socket } = await open([outEntry(1, 'Book a table'), statusEntry(2, 'T1', 'working')]);
    expect(screen.queryByTestId('composer-answering')).toBeNull();
    await push(socket, statusEntry(3, 'T1', 'input-required', 'For how many people?'), { state: 'input-required' });
    const question = within(transcript()).getAllByTestId('chat-message').at(-1)!;
    expect(question.getAttribute('data-from')).toBe('agent');
    expect(question.textContent).toContain('For how many people?');
    const hint = screen.getByTestId('composer-answering');
    expect(hint.textContent).toContain('answers Remote One’s question: “For how many people?”');
    expect(box().getAttribute('aria-describedby')).toBe(hint.id);

    await userEvent.type(box(), 'Four');
    await userEvent.click(sendButton());
    expect(socket.request('chats.send').params).toEqual({ id: 'c1', text: 'Four', taskId: 'T1' });
    await hub(() => socket.reply(socket.request('chats.send').id, outEntry(4, 'Four', 'T1')));
    await push(socket, statusEntry(5, 'T1', 'working'));
    expect(screen.queryByTestId('composer-answering')).toBeNull();
  });

  it('cancels a task that is not finished', async () => {
    const { socket } = await open([outEntry(1, 'slow 60'), statusEntry(2, 'T9', 'working')]);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel task' }));
    const req = socket.request('chats.cancel');
    expect(req.params).toEqual({ id: 'c1', taskId: 'T9' });
    expect((screen.getByRole('button', { name: 'Cancel task' }) as HTMLButtonElement).disabled).toBe(true);
    await hub(() => socket.reply(req.id, {}));
    await push(socket, statusEntry(3, 'T9', 'canceled'));
    expect(screen.getByTestId('task-state').getAttribute('data-state')).toBe('canceled');
    expect(screen.queryByRole('button', { name: 'Cancel task' })).toBeNull();
  });

  it('opens a task’s timeline: the events the agent sent for it, in order', async () => {
    await open([
      outEntry(1, 'echo'),
      statusEntry(2, 'T1', 'working'),
      chunkEntry(3, 'T1', 'one ', false),
      chunkEntry(4, 'T1', 'two', true, true),
      statusEntry(5, 'T1', 'completed'),
    ]);
    const toggle = screen.getByRole('button', { name: 'Timeline' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('list', { name: 'Timeline' })).toBeNull();
    await userEvent.click(toggle);
    const events = within(screen.getByRole('list', { name: 'Timeline' })).getAllByTestId('timeline-event');
    expect(events.map((e) => e.getAttribute('data-seq'))).toEqual(['2', '3', '4', '5']);
    expect(events.map((e) => e.getAttribute('data-kind'))).toEqual(['task', 'artifact', 'artifact', 'status']);
    await userEvent.click(toggle);
    expect(screen.queryByRole('list', { name: 'Timeline' })).toBeNull();
  });

  it('shows a failed call as a notice; an auth failure links to the agent’s credentials', async () => {
    const { socket } = await open([outEntry(1, 'Hi')]);
    await push(socket, { seq: 2, at: at(2), direction: 'local', kind: 'error', final: true, error: { kind: 'auth', message: 'HTTP 401: missing API key', code: 401 } });
    const notice = screen.getByTestId('chat-error');
    expect(notice.getAttribute('data-kind')).toBe('auth');
    expect(notice.textContent).toContain('Remote One refused the call');
    expect(notice.textContent).toContain('HTTP 401: missing API key');
    const link = within(notice).getByRole('link', { name: 'Set credentials' });
    expect(link.getAttribute('href')).toBe('#/agents/r1/credentials');

    await push(socket, { seq: 3, at: at(3), direction: 'local', kind: 'error', final: true, error: { kind: 'network', message: 'connection refused' } });
    const second = screen.getAllByTestId('chat-error')[1];
    expect(second.textContent).toContain('Could not reach Remote One.');
    expect(within(second).queryByRole('link')).toBeNull();
  });

  it('a task waiting for authentication links to the credentials too', async () => {
    const { socket } = await open([outEntry(1, 'Hi')]);
    await push(socket, statusEntry(3, 'T', 'auth-required'));
    const line = screen.getByTestId('task-state');
    expect(line.textContent).toContain('The agent needs authentication');
    expect(within(line).getByRole('link', { name: 'Set credentials' }).getAttribute('href')).toBe('#/agents/r1/credentials');
  });

  it('renders the agent’s Markdown safely: no raw HTML, no javascript: links, links open outside the app', async () => {
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    const { socket } = await open();
    const md = '**bold** <img src=x onerror=alert(1)> [evil](javascript:alert(1)) [docs](https://example.com/docs) ![pic](https://example.com/p.png)';
    await push(socket, { seq: 1, at: at(1), direction: 'in', kind: 'message', final: true, message: { id: 'r', role: 'agent', parts: [text(md)] } });
    const bubble = within(transcript()).getByTestId('chat-message');
    expect(bubble.getAttribute('data-from')).toBe('agent');
    expect(within(bubble).getByText('bold').tagName).toBe('STRONG');
    // raw HTML is text
    expect(bubble.querySelector('img')).toBeNull();
    expect(bubble.textContent).toContain('<img src=x onerror=alert(1)>');
    // a javascript: link is not a link
    expect(within(bubble).getByText('evil').closest('a')).toBeNull();
    expect(bubble.querySelectorAll('a[href^="javascript"]')).toHaveLength(0);
    // an image is not loaded: it becomes a link to open
    expect(within(bubble).getByRole('link', { name: '[image: pic]' })).toBeTruthy();
    // an http(s) link opens in the browser, never inside the app
    const docs = within(bubble).getByRole('link', { name: 'docs' });
    expect(docs.getAttribute('href')).toBe('https://example.com/docs');
    window.location.hash = '#/chats/c1';
    await userEvent.click(docs);
    expect(opened).toHaveBeenCalledWith('https://example.com/docs', '_blank', 'noopener,noreferrer');
    expect(window.location.hash).toBe('#/chats/c1');
  });

  it('shows files: outgoing with name, size and Download (to get back what one sent), incoming with Download and Open', async () => {
    const { socket } = await open();
    const bytes = btoa('hello world');
    await push(socket, {
      seq: 1,
      at: at(1),
      direction: 'out',
      kind: 'message',
      final: false,
      message: { id: 'o', role: 'user', parts: [text('see attached'), { kind: 'file', name: 'notes.txt', mediaType: 'text/plain', bytes }] },
    });
    await push(socket, {
      seq: 2,
      at: at(2),
      direction: 'in',
      kind: 'artifact',
      taskId: 'T',
      final: false,
      artifact: {
        id: 'F',
        parts: [
          { kind: 'file', name: 'report.pdf', mediaType: 'application/pdf', bytes },
          { kind: 'file', name: 'big.zip', url: 'https://files.example.com/big.zip' },
          { kind: 'file', name: 'bad', url: 'javascript:alert(1)' },
          { kind: 'data', data: { answer: 42 } },
        ],
      },
    });
    const [outgoing] = within(transcript()).getAllByTestId('chat-message');
    expect(outgoing.textContent).toContain('notes.txt');
    expect(outgoing.textContent).toContain('11 B');
    expect(within(outgoing).getByRole('button', { name: 'Download notes.txt' })).toBeTruthy();
    const art = within(transcript()).getByTestId('chat-artifact');
    expect(within(art).getByRole('button', { name: 'Download report.pdf' })).toBeTruthy();
    expect(within(art).getByRole('button', { name: 'Open big.zip' })).toBeTruthy();
    expect(within(art).queryByRole('button', { name: 'Open bad' })).toBeNull();
    expect(within(art).getByRole('group', { name: 'Data' }).textContent).toContain('42');
  });

  it('attaches files up to 8 MiB each and sends them', async () => {
    const { socket } = await open();
    const small = new File(['plan'], 'plan.txt', { type: 'text/plain' });
    const big = new File(['x'], 'huge.iso', { type: 'application/octet-stream' });
    Object.defineProperty(big, 'size', { value: 8 * 1024 * 1024 + 1 });
    await userEvent.upload(screen.getByLabelText('Files to attach'), [small, big]);
    await tick();
    expect(screen.getByTestId('attach-refused').textContent).toContain('“huge.iso” is larger than 8 MiB and was not attached.');
    const attached = screen.getByRole('list', { name: 'Attachments' });
    expect(within(attached).getByText('plan.txt')).toBeTruthy();
    expect(within(attached).queryByText('huge.iso')).toBeNull();
    // a file alone is a message
    expect(sendButton().disabled).toBe(false);
    await userEvent.click(sendButton());
    expect(socket.request('chats.send').params).toEqual({ id: 'c1', files: [{ name: 'plan.txt', mediaType: 'text/plain', bytes: btoa('plan') }] });
  });

  it('collapses progress messages, and shows a waiting line while a call is in flight', async () => {
    const { socket } = await open([outEntry(1, 'slow 3')], { conversation: { ...conv, busy: true } });
    expect(screen.getByTestId('chat-busy').textContent).toContain('Waiting for Remote One…');
    await push(socket, statusEntry(2, 'T', 'working', 'Working: 0/3'), { busy: true });
    await push(socket, statusEntry(3, 'T', 'working', 'Working: 1/3'), { busy: true });
    const agentSide = within(transcript())
      .getAllByTestId('chat-message')
      .filter((b) => b.getAttribute('data-from') === 'agent');
    expect(agentSide).toHaveLength(1);
    expect(agentSide[0].textContent).toContain('Working: 1/3');
    // the task line shows the work now, not the waiting line
    expect(screen.queryByTestId('chat-busy')).toBeNull();
  });

  it('refetches the conversation after a "lagged" push, and merges without duplicates', async () => {
    const { socket } = await open([outEntry(1, 'Hi')]);
    const before = socket.sent.filter((f) => f.method === 'chats.get').length;
    await hub(() => socket.push({ topic: 'lagged', data: {} }));
    const gets = socket.sent.filter((f) => f.method === 'chats.get');
    expect(gets.length).toBe(before + 1);
    await hub(() => socket.reply(gets.at(-1)!.id, { conversation: conv, entries: [outEntry(1, 'Hi'), statusEntry(2, 'T', 'completed', 'Hello!')] }));
    expect(within(transcript()).getAllByTestId('chat-message').map((b) => b.getAttribute('data-from'))).toEqual(['owner', 'agent']);
  });

  it('updates the list from pushed entries of any conversation', async () => {
    const { socket } = await open();
    await hub(() =>
      socket.push({
        topic: 'chat',
        data: { conversationId: 'c2', conversation: { ...other, updatedAt: '2025-02-01T00:00:00Z', state: 'working', busy: true }, entry: outEntry(1, 'x') },
      }),
    );
    const items = screen.getAllByTestId('chat-item');
    expect(items.map((i) => i.getAttribute('data-conversation-id'))).toEqual(['c2', 'c1']);
    expect(within(items[0]).getByLabelText('busy')).toBeTruthy();
    expect(items[0].querySelector('[data-state="working"]')).toBeTruthy();
    // the open conversation did not take the other one's entry
    expect(within(transcript()).queryAllByTestId('chat-message')).toHaveLength(0);
  });

  it('takes updates that carry only the conversation, and a deletion made elsewhere', async () => {
    const { socket } = await open();
    await hub(() => socket.push({ topic: 'chat', data: { conversationId: 'c1', conversation: { ...conv, title: 'Renamed elsewhere', updatedAt: '2025-01-02T00:00:00Z' } } }));
    expect(screen.getByRole('heading', { name: 'Renamed elsewhere' })).toBeTruthy();
    await hub(() => socket.push({ topic: 'chat', data: { conversationId: 'c1' } }));
    expect(screen.getByRole('heading', { name: 'This conversation was deleted' })).toBeTruthy();
    expect(screen.getAllByTestId('chat-item').map((i) => i.getAttribute('data-conversation-id'))).toEqual(['c2']);
  });

  it('starts a new chat with a remote agent picked from a dialog', async () => {
    const { socket } = await open();
    await userEvent.click(screen.getByRole('button', { name: 'New chat' }));
    const dialog = screen.getByRole('dialog', { name: 'New chat' });
    // remote agents only
    expect(within(dialog).queryByRole('button', { name: 'Chat with Local demo' })).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Chat with Remote One' }));
    const req = socket.request('chats.start');
    expect(req.params).toEqual({ agentId: 'r1' });
    await hub(() => socket.reply(req.id, { ...conv, id: 'c3', title: '' }));
    expect(window.location.hash).toBe('#/chats/c3');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('"New conversation" starts another context with the same agent', async () => {
    const { socket } = await open();
    await userEvent.click(screen.getByRole('button', { name: 'New conversation' }));
    expect(socket.request('chats.start').params).toEqual({ agentId: 'r1' });
  });

  it('renames and deletes', async () => {
    const { socket } = await open();
    await userEvent.click(screen.getByText('More'));
    await userEvent.click(screen.getByRole('button', { name: 'Rename' }));
    const title = screen.getByLabelText('Title') as HTMLInputElement;
    await userEvent.clear(title);
    await userEvent.type(title, 'Trip to Porto{Enter}');
    const ren = socket.request('chats.rename');
    expect(ren.params).toEqual({ id: 'c1', title: 'Trip to Porto' });
    await hub(() => socket.reply(ren.id, { ...conv, title: 'Trip to Porto', updatedAt: '2025-01-01T00:00:01Z' }));
    expect(screen.getByRole('heading', { name: 'Trip to Porto' })).toBeTruthy();
    expect(screen.getAllByTestId('chat-item')[0].textContent).toContain('Trip to Porto');

    await userEvent.click(screen.getByText('More'));
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete this conversation?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete conversation' }));
    const del = socket.request('chats.delete');
    expect(del.params).toEqual({ id: 'c1' });
    await hub(() => socket.reply(del.id, {}));
    expect(window.location.hash).toBe('#/chats');
    expect(screen.getAllByTestId('chat-item').map((i) => i.getAttribute('data-conversation-id'))).toEqual(['c2']);
  });

  it('a conversation whose agent was removed can be read, not continued', async () => {
    await open([outEntry(1, 'Hi')], { agents: [local] });
    expect(screen.getByTestId('composer-blocked').textContent).toContain('Remote One was removed');
    expect(box().disabled).toBe(true);
    expect(sendButton().disabled).toBe(true);
  });

  it('says so when the conversation does not exist', async () => {
    window.location.hash = '#/chats/nope';
    const { socket } = await renderWithHub(<ChatsPage conversationId="nope" />);
    await hub(() => {
      socket.replyAll('chats.list', { conversations: [] });
      socket.fail(socket.request('chats.get').id, 'not_found', 'no conversation nope');
    });
    expect(screen.getByRole('heading', { name: 'Conversation not found' })).toBeTruthy();
  });

  it('an empty hub offers to start a chat', async () => {
    window.location.hash = '#/chats';
    const { socket } = await renderWithHub(<ChatsPage />);
    await hub(() => {
      socket.replyAll('agents.list', { agents: [] });
      socket.replyAll('chats.list', { conversations: null });
    });
    expect(screen.getByRole('heading', { name: 'No chats yet' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Start a chat' }));
    expect(within(screen.getByRole('dialog', { name: 'New chat' })).getByRole('link', { name: /Add one by its URL/ })).toBeTruthy();
    // Escape closes the dialog
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    await act(async () => {});
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('a failed task', () => {
  it('offers Retry, which sends the message that started it again as a new message', async () => {
    const { socket } = await open([outEntry(1, 'do the thing'), statusEntry(2, 'T', 'submitted'), statusEntry(3, 'T', 'failed', 'interrupted by a restart')]);
    const line = screen.getAllByTestId('task-state').find((l) => l.getAttribute('data-task-id') === 'T')!;
    await userEvent.click(within(line).getByRole('button', { name: 'Retry' }));
    expect(socket.request('chats.send').params).toEqual({ id: 'c1', text: 'do the thing' });
  });
});

describe('chat helpers', () => {
  const entry = (seq: number, at: string, direction: 'out' | 'in' | 'local', extra: object = {}) => ({ seq, at, kind: 'message', final: false, direction, raw: undefined, ...extra }) as never;
  it('times an ended task from the message that started it', () => {
    const entries = [entry(1, '2025-01-01T00:00:00Z', 'out'), entry(2, '2025-01-01T00:00:01Z', 'in', { taskId: 'T' })];
    const ended = endedTasksOf(entries, [{ taskId: 'T', state: 'completed', ended: true, firstSeq: 2, at: '2025-01-01T00:00:05Z' }]);
    expect(ended.get('T')).toEqual({ state: 'completed', took: '5.0s' });
  });
  it('finds the message a failed call was sending, for Retry', () => {
    const out = entry(1, '2025-01-01T00:00:00Z', 'out', { message: { id: 'm', role: 'user', parts: [{ kind: 'text', text: 'are you there?' }] } });
    expect(failedSend([out, entry(2, '2025-01-01T00:00:01Z', 'local')], 2)).toEqual({ text: 'are you there?', files: [] });
    expect(failedSend([entry(2, '2025-01-01T00:00:01Z', 'local')], 2)).toBeNull();
  });
});

