import { describe, expect, it } from 'vitest';
import type { ChatEntry, Part } from '../api/types';
import { buildTranscript, continuesGroup, isActiveState, lastEntrySeq, mergeEntries, taskStateText, type ChatItem } from './chat';

const at = (seq: number) => `2025-01-01T00:00:${String(seq).padStart(2, '0')}.000000000Z`;
const text = (t: string): Part => ({ kind: 'text', text: t });

function out(seq: number, t: string, extra: Partial<ChatEntry> = {}): ChatEntry {
  return { seq, at: at(seq), direction: 'out', kind: 'message', final: false, message: { id: `m${seq}`, role: 'user', parts: [text(t)] }, ...extra };
}
function task(seq: number, taskId: string, state = 'submitted', extra: Partial<ChatEntry> = {}): ChatEntry {
  return { seq, at: at(seq), direction: 'in', kind: 'task', taskId, final: false, state, status: { state }, ...extra };
}
function status(seq: number, taskId: string, state: string, msg?: string, extra: Partial<ChatEntry> = {}): ChatEntry {
  return {
    seq,
    at: at(seq),
    direction: 'in',
    kind: 'status',
    taskId,
    final: ['completed', 'failed', 'canceled', 'rejected', 'input-required'].includes(state),
    state,
    status: { state, ...(msg ? { message: { id: `s${seq}`, role: 'agent', parts: [text(msg)] } } : {}) },
    ...extra,
  };
}
function chunk(seq: number, taskId: string | undefined, id: string, t: string, flags: { append?: boolean; lastChunk?: boolean; name?: string } = {}): ChatEntry {
  return { seq, at: at(seq), direction: 'in', kind: 'artifact', taskId, final: false, artifact: { id, parts: [text(t)], ...flags } };
}

const kinds = (items: ChatItem[]) => items.map((i) => i.type);
const textOfItem = (i: ChatItem | undefined): string => {
  if (!i) return '';
  const parts = i.type === 'artifact' ? i.artifact.parts : i.type === 'message' || i.type === 'status' ? i.message.parts : [];
  return (parts ?? []).map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('|');
};
const artifacts = (items: ChatItem[]) => items.filter((i): i is Extract<ChatItem, { type: 'artifact' }> => i.type === 'artifact');
const taskLines = (items: ChatItem[]) => items.filter((i): i is Extract<ChatItem, { type: 'task' }> => i.type === 'task');

describe('mergeEntries', () => {
  it('orders by seq and keeps the first copy of a seq', () => {
    const a = out(2, 'second');
    const merged = mergeEntries([a], [out(1, 'first'), out(2, 'changed?'), out(3, 'third')]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(merged[1]).toBe(a);
  });

  it('returns the same array when nothing is new (no re-render)', () => {
    const list = [out(1, 'a'), out(2, 'b')];
    expect(mergeEntries(list, [out(2, 'b'), out(1, 'a')])).toBe(list);
    expect(mergeEntries(list, [])).toBe(list);
  });

  it('drops what is not an entry', () => {
    const merged = mergeEntries([], [null, 7, 'x', {}, { seq: 'one' }, { seq: NaN }, { seq: Infinity }, out(4, 'ok')]);
    expect(merged.map((e) => e.seq)).toEqual([4]);
  });

  it('repairs an unsorted existing list', () => {
    const merged = mergeEntries([out(3, 'c'), out(1, 'a'), out(1, 'dup')], []);
    expect(merged.map((e) => e.seq)).toEqual([1, 3]);
  });

  it('lastEntrySeq', () => {
    expect(lastEntrySeq([])).toBe(0);
    expect(lastEntrySeq([out(5, 'a'), out(2, 'b')])).toBe(5);
  });
});

describe('buildTranscript', () => {
  it('a plain exchange: the owner on one side, the agent on the other, a state line for the task', () => {
    const t = buildTranscript([
      out(1, 'Hello'),
      task(2, 'T1', 'working'),
      chunk(3, 'T1', 'A', 'Hi ', {}),
      chunk(4, 'T1', 'A', 'there', { append: true, lastChunk: true }),
      status(5, 'T1', 'completed'),
    ]);
    expect(kinds(t.items)).toEqual(['message', 'artifact', 'task']);
    const [msg, art, line] = t.items;
    expect(msg.type === 'message' && msg.from).toBe('owner');
    expect(textOfItem(art)).toBe('Hi there');
    expect(art.type === 'artifact' && art.complete).toBe(true);
    expect(art.type === 'artifact' && art.chunks).toBe(2);
    expect(line).toMatchObject({ type: 'task', taskId: 'T1', state: 'completed', ended: true, at: at(5) });
    expect(t.tasks).toEqual([{ taskId: 'T1', state: 'completed', ended: true, firstSeq: 2, lastSeq: 5, at: at(5), question: undefined }]);
    expect(t.newest?.taskId).toBe('T1');
    expect(t.answering).toBeUndefined();
  });

  it('the same entries in any order, with duplicates, give the same transcript', () => {
    const entries = [
      out(1, 'Hello'),
      task(2, 'T1', 'working'),
      chunk(3, 'T1', 'A', 'one ', {}),
      chunk(4, 'T1', 'A', 'two ', { append: true }),
      chunk(5, 'T1', 'A', 'three', { append: true, lastChunk: true }),
      status(6, 'T1', 'completed', 'Done.'),
    ];
    const expected = buildTranscript(entries);
    const shuffled = [entries[4], entries[2], entries[5], entries[0], entries[3], entries[1], entries[2], entries[4], entries[0]];
    expect(buildTranscript(shuffled)).toEqual(expected);
    expect(textOfItem(artifacts(expected.items)[0])).toBe('one two three');
  });

  it('a duplicate seq is ignored even when its content differs (replayed on reconnect)', () => {
    const t = buildTranscript([chunk(3, 'T', 'A', 'x'), chunk(3, 'T', 'A', 'y', { append: true }), chunk(4, 'T', 'A', 'z', { append: true })]);
    expect(artifacts(t.items)).toHaveLength(1);
    expect(textOfItem(artifacts(t.items)[0])).toBe('xz');
  });

  it('a streamed artifact is one growing bubble, keyed by task and artifact id', () => {
    const steps = [
      chunk(1, 'T', 'A', 'The'),
      chunk(2, 'T', 'A', ' quick', { append: true }),
      chunk(3, 'T', 'B', 'other artifact'),
      chunk(4, 'T', 'A', ' fox', { append: true, lastChunk: true }),
      chunk(5, 'U', 'A', 'same id, other task'),
    ];
    const seen: string[] = [];
    for (let i = 1; i <= steps.length; i++) {
      const arts = artifacts(buildTranscript(steps.slice(0, i)).items);
      seen.push(arts.map(textOfItem).join(' / '));
    }
    expect(seen).toEqual(['The', 'The quick', 'The quick / other artifact', 'The quick fox / other artifact', 'The quick fox / other artifact / same id, other task']);
    const arts = artifacts(buildTranscript(steps).items);
    // the bubble keeps its key while it grows, so React keeps it
    expect(arts[0].key).toBe('a:1');
    expect(arts[0].complete).toBe(true);
    expect(arts[1].complete).toBe(false);
  });

  it('text chunks join; other parts follow as their own parts', () => {
    const t = buildTranscript([
      chunk(1, 'T', 'A', 'a'),
      { ...chunk(2, 'T', 'A', ''), artifact: { id: 'A', append: true, parts: [text('b'), { kind: 'data', data: { n: 1 } }, text('c')] } },
      chunk(3, 'T', 'A', 'd', { append: true }),
    ]);
    const parts = artifacts(t.items)[0].artifact.parts!;
    expect(parts).toEqual([text('ab'), { kind: 'data', data: { n: 1 } }, text('cd')]);
  });

  it('a chunk without append replaces the artifact in place', () => {
    const t = buildTranscript([chunk(1, 'T', 'A', 'draft', { name: 'summary' }), out(2, 'meanwhile'), chunk(3, 'T', 'A', 'final text', { lastChunk: true })]);
    const arts = artifacts(t.items);
    expect(arts).toHaveLength(1);
    expect(textOfItem(arts[0])).toBe('final text');
    expect(arts[0].artifact.name).toBe('summary'); // kept from the first chunk
    expect(kinds(t.items)).toEqual(['artifact', 'message']);
  });

  it('append to an artifact never seen starts a bubble with what it carries', () => {
    const t = buildTranscript([chunk(7, 'T', 'X', 'tail of something', { append: true })]);
    const arts = artifacts(t.items);
    expect(arts).toHaveLength(1);
    expect(textOfItem(arts[0])).toBe('tail of something');
    expect(arts[0].artifact.append).toBe(false);
  });

  it('chunks after lastChunk are still added, and the bubble stays complete', () => {
    const t = buildTranscript([chunk(1, 'T', 'A', 'done', { lastChunk: true }), chunk(2, 'T', 'A', ' and more', { append: true })]);
    const [a] = artifacts(t.items);
    expect(textOfItem(a)).toBe('done and more');
    expect(a.complete).toBe(true);
    expect(a.artifact.lastChunk).toBe(true);
  });

  it('an artifact for a task never announced gets a bubble, and no state line until a state is known', () => {
    const t1 = buildTranscript([chunk(1, 'GHOST', 'A', 'boo')]);
    expect(kinds(t1.items)).toEqual(['artifact']);
    expect(t1.tasks).toHaveLength(1);
    expect(t1.tasks[0]).toMatchObject({ taskId: 'GHOST', ended: false });
    expect(t1.tasks[0].state).toBeUndefined();
    const t2 = buildTranscript([chunk(1, 'GHOST', 'A', 'boo'), status(2, 'GHOST', 'completed')]);
    expect(kinds(t2.items)).toEqual(['artifact', 'task']);
  });

  it('artifacts without an id (or without a task) are separate bubbles, never merged with each other', () => {
    const noId: ChatEntry = { seq: 1, at: at(1), direction: 'in', kind: 'artifact', final: false, artifact: { id: '', parts: [text('one')] } };
    const noId2: ChatEntry = { ...noId, seq: 2, artifact: { id: '', parts: [text('two')], append: true } };
    const t = buildTranscript([noId, noId2, chunk(3, undefined, 'A', 'x'), chunk(4, undefined, 'A', 'y', { append: true })]);
    expect(artifacts(t.items).map(textOfItem)).toEqual(['one', 'two', 'xy']);
  });

  it('a status message is an agent bubble; the question of input-required is what the composer answers', () => {
    const t = buildTranscript([out(1, 'Book a table'), task(2, 'T', 'working'), status(3, 'T', 'input-required', 'For how many people?')]);
    expect(kinds(t.items)).toEqual(['message', 'status', 'task']);
    const q = t.items[1];
    expect(q).toMatchObject({ type: 'status', from: 'agent', state: 'input-required', taskId: 'T' });
    expect(t.answering?.taskId).toBe('T');
    expect(t.answering?.question?.id).toBe('s3');
    expect(taskLines(t.items)[0]).toMatchObject({ state: 'input-required', ended: false });
  });

  it('a question already shown as the agent’s message (AgentVault asks that way) is still the question, shown once', () => {
    const question = { id: 'q3', role: 'agent', parts: [text('Which city?')] };
    const t = buildTranscript([
      out(1, 'Weather?'),
      status(2, 'T', 'working'),
      { seq: 3, at: at(3), direction: 'in', kind: 'message', taskId: 'T', final: false, message: question },
      status(4, 'T', 'input-required', undefined, { status: { state: 'input-required', message: question } }),
    ]);
    expect(t.items.filter((i) => textOfItem(i) === 'Which city?')).toHaveLength(1);
    expect(t.answering).toEqual({ taskId: 'T', question });
  });

  it('answering in place moves the task on; the state line follows the task’s newest item', () => {
    const t = buildTranscript([
      out(1, 'Book a table'),
      task(2, 'T', 'working'),
      status(3, 'T', 'input-required', 'For how many people?'),
      out(4, 'Four', { taskId: 'T' }),
      status(5, 'T', 'working'),
      chunk(6, 'T', 'R', 'Booked for four.', { lastChunk: true }),
      status(7, 'T', 'completed'),
    ]);
    expect(kinds(t.items)).toEqual(['message', 'status', 'message', 'artifact', 'task']);
    expect(t.items[2]).toMatchObject({ from: 'owner', taskId: 'T' });
    expect(t.answering).toBeUndefined();
    expect(t.tasks[0].question).toBeUndefined();
  });

  it('no answering once the owner wrote a fresh message after the question', () => {
    const entries = [out(1, 'a'), task(2, 'T', 'working'), status(3, 'T', 'input-required', 'Which one?'), out(4, 'never mind, something else')];
    expect(buildTranscript(entries).answering).toBeUndefined();
    // ...until a newer task asks again
    expect(buildTranscript([...entries, task(5, 'U', 'input-required', { status: { state: 'input-required', message: { id: 'q2', role: 'agent', parts: [text('Sure?')] } } })]).answering).toEqual({
      taskId: 'U',
      question: { id: 'q2', role: 'agent', parts: [text('Sure?')] },
    });
  });

  it('only the newest task is answered, even when an older one is still input-required', () => {
    const t = buildTranscript([
      out(1, 'first'),
      status(2, 'A', 'input-required', 'A asks'),
      out(3, 'second'),
      status(4, 'B', 'working'),
      status(5, 'B', 'completed'),
    ]);
    expect(t.newest?.taskId).toBe('B');
    expect(t.answering).toBeUndefined();
    expect(taskLines(t.items).map((l) => [l.taskId, l.state])).toEqual([
      ['A', 'input-required'],
      ['B', 'completed'],
    ]);
  });

  it('consecutive progress messages of a task update one bubble', () => {
    const running = [
      out(1, 'slow 3'),
      status(2, 'T', 'working', 'Working: 0/3'),
      status(3, 'T', 'working', 'Working: 1/3'),
      status(4, 'T', 'working', 'Working: 2/3'),
      chunk(5, 'T', 'R', 'Done after 3 seconds.', { lastChunk: true }),
      status(6, 'T', 'working', 'Tidying up'),
    ];
    const t = buildTranscript(running);
    expect(kinds(t.items)).toEqual(['message', 'status', 'artifact', 'status', 'task']);
    expect(textOfItem(t.items[1])).toBe('Working: 2/3');
    expect(t.items[1].key).toBe('s:2:0'); // the same bubble all along
    expect(textOfItem(t.items[3])).toBe('Tidying up');
  });

  it('once the task has ended with a result, its progress folds away and its state line follows the result', () => {
    const t = buildTranscript([
      out(1, 'slow 3'),
      status(2, 'T', 'working', 'Working: 0/3'),
      status(3, 'T', 'working', 'Working: 2/3'),
      chunk(4, 'T', 'R', 'Done after 3 seconds.', { lastChunk: true }),
      status(5, 'T', 'working', 'Tidying up'),
      status(6, 'T', 'completed'),
      out(7, 'next'),
    ]);
    expect(kinds(t.items)).toEqual(['message', 'artifact', 'task', 'message']);
    expect(textOfItem(t.items[1])).toBe('Done after 3 seconds.');
    // a final message is a result too
    const m = buildTranscript([out(1, 'hi'), status(2, 'T', 'working', 'Thinking'), status(3, 'T', 'completed', 'Hello!')]);
    expect(m.items.map(textOfItem)).toEqual(['hi', 'Hello!', '']);
    // the progress of another task, still running, stays
    const two = buildTranscript([status(1, 'A', 'working', 'A: 1/3'), status(2, 'B', 'working', 'B: 1/3'), chunk(3, 'B', 'R', 'B done', { lastChunk: true }), status(4, 'B', 'completed')]);
    expect(two.items.map(textOfItem)).toEqual(['A: 1/3', '', 'B done', '']);
    expect(taskLines(two.items).map((l) => l.taskId)).toEqual(['A', 'B']);
  });

  it('a task that ended without a result keeps its last progress (how far it got)', () => {
    const t = buildTranscript([out(1, 'slow 60'), status(2, 'T', 'working', 'Working: 3/60'), status(3, 'T', 'canceled')]);
    expect(kinds(t.items)).toEqual(['message', 'status', 'task']);
    expect(textOfItem(t.items[1])).toBe('Working: 3/60');
  });

  it('a status after the task ended does not change its state; stale progress is not shown', () => {
    const t = buildTranscript([
      status(1, 'T', 'working'),
      status(2, 'T', 'completed', 'Finished.'),
      status(3, 'T', 'working', 'Working: 4/5'),
      status(4, 'T', 'failed', 'Late failure note'),
      status(5, 'T', 'input-required', 'A late question?'),
    ]);
    expect(t.tasks[0]).toMatchObject({ state: 'completed', ended: true, at: at(2), question: undefined });
    expect(t.items.filter((i) => i.type === 'status').map(textOfItem)).toEqual(['Finished.', 'Late failure note', 'A late question?']);
    expect(t.answering).toBeUndefined();
    expect(taskLines(t.items)).toHaveLength(1);
    expect(taskLines(t.items)[0].state).toBe('completed');
  });

  it('the state comes from entry.state or from status.state', () => {
    const noTopState: ChatEntry = { seq: 1, at: at(1), direction: 'in', kind: 'status', taskId: 'T', final: false, status: { state: 'working' } };
    expect(buildTranscript([noTopState]).tasks[0].state).toBe('working');
    const noStatus: ChatEntry = { seq: 1, at: at(1), direction: 'in', kind: 'status', taskId: 'T', final: true, state: 'canceled' };
    expect(buildTranscript([noStatus]).tasks[0]).toMatchObject({ state: 'canceled', ended: true });
  });

  it('a message is shown once even when several entries carry it', () => {
    const sent = out(1, 'Hi');
    const echoed = task(2, 'T', 'working', { message: { id: 'm1', role: 'user', parts: [text('Hi')] } });
    const q = status(3, 'T', 'input-required', 'Q?');
    const again: ChatEntry = { ...status(4, 'T', 'input-required'), status: q.status };
    const t = buildTranscript([sent, echoed, q, again]);
    expect(kinds(t.items)).toEqual(['message', 'status', 'task']);
  });

  it('the task as first reported: its status message shows, an echo of the owner’s message does not', () => {
    const t = buildTranscript([
      out(1, 'Hi'),
      task(2, 'T', 'working', {
        message: { id: 'other-id', role: 'user', parts: [text('Hi')] },
        status: { state: 'working', message: { id: 'sm', role: 'agent', parts: [text('Looking into it')] } },
      }),
    ]);
    expect(t.items.map(textOfItem)).toEqual(['Hi', 'Looking into it', '']);
  });

  it('a direct message reply (no task) is an agent bubble without a state line', () => {
    const reply: ChatEntry = { seq: 2, at: at(2), direction: 'in', kind: 'message', final: true, message: { id: 'r', role: 'agent', parts: [text('Hello!')] } };
    const t = buildTranscript([out(1, 'Hi'), reply]);
    expect(t.items.map((i) => (i.type === 'message' ? i.from : i.type))).toEqual(['owner', 'agent']);
    expect(t.tasks).toEqual([]);
    expect(t.newest).toBeUndefined();
  });

  it('errors are notices, with their kind; malformed ones still say something', () => {
    const auth: ChatEntry = { seq: 2, at: at(2), direction: 'local', kind: 'error', final: true, error: { kind: 'auth', message: '401 Unauthorized', code: 401 } };
    const weird = { seq: 3, at: at(3), direction: 'local', kind: 'error', final: true, error: 'boom' } as unknown as ChatEntry;
    const t = buildTranscript([out(1, 'Hi'), auth, weird]);
    expect(t.items[1]).toMatchObject({ type: 'error', error: { kind: 'auth', message: '401 Unauthorized', code: 401 } });
    expect(t.items[2]).toMatchObject({ type: 'error', error: { kind: 'remote', message: 'The call to the agent failed.' } });
  });

  it('a local entry carrying an error is a notice whatever its kind', () => {
    const e = { seq: 1, at: at(1), direction: 'local', kind: 'message', final: true, error: { kind: 'network', message: 'timeout' } } as ChatEntry;
    expect(buildTranscript([e]).items).toEqual([{ type: 'error', key: 'x:1', taskId: undefined, error: { kind: 'network', message: 'timeout' }, at: at(1), seq: 1 }]);
  });

  it('unknown kinds and malformed payloads are ignored without throwing', () => {
    const junk = [
      { seq: 1, at: at(1), direction: 'in', kind: 'telepathy', final: false },
      { seq: 2, at: at(2), direction: 'in', kind: 'artifact', final: false, artifact: 'nope' },
      { seq: 3, at: at(3), direction: 'in', kind: 'message', final: false, message: null },
      { seq: 4, at: at(4), direction: 'in', kind: 'status', final: false, status: 'x' },
      { seq: 5, at: at(5), direction: 'in', kind: 'artifact', final: false, artifact: { id: 'A', parts: 'not a list' } },
      { seq: 6, direction: 'in', kind: 'message', final: false, message: { id: 'q', role: 'agent', parts: null } },
      null,
      undefined,
    ];
    const t = buildTranscript(junk);
    expect(kinds(t.items)).toEqual(['artifact', 'message']);
    expect(artifacts(t.items)[0].artifact.parts).toEqual([]);
  });

  it('state lines sit after each task’s newest item, even when tasks interleave', () => {
    const t = buildTranscript([
      out(1, 'first'),
      task(2, 'A', 'working'),
      chunk(3, 'A', 'a', 'A says'),
      out(4, 'second'),
      task(5, 'B', 'working'),
      chunk(6, 'B', 'b', 'B says'),
      chunk(7, 'A', 'a', ' more', { append: true, lastChunk: true }),
      status(8, 'A', 'completed'),
    ]);
    expect(t.items.map((i) => (i.type === 'task' ? `[${i.taskId}:${i.state}]` : textOfItem(i)))).toEqual([
      'first',
      'A says more',
      '[A:completed]',
      'second',
      'B says',
      '[B:working]',
    ]);
  });

  it('a task with nothing to show gets its line where it first appeared', () => {
    const t = buildTranscript([out(1, 'Hi'), task(2, 'T', 'submitted'), out(3, 'Also this')]);
    expect(t.items.map((i) => (i.type === 'task' ? `[${i.state}]` : textOfItem(i)))).toEqual(['Hi', '[submitted]', 'Also this']);
  });

  it('empty input', () => {
    expect(buildTranscript([])).toEqual({ items: [], tasks: [], newest: undefined, answering: undefined });
  });
});

describe('state words', () => {
  it('taskStateText and isActiveState', () => {
    expect(taskStateText('working')).toBe('Working…');
    expect(taskStateText('input-required')).toBe('Waiting for your answer');
    expect(taskStateText('completed')).toBe('Completed');
    expect(taskStateText('strange')).toBe('strange');
    expect(isActiveState('working')).toBe(true);
    expect(isActiveState('submitted')).toBe(true);
    expect(isActiveState('input-required')).toBe(false);
    expect(isActiveState(undefined)).toBe(false);
  });
});

describe('continuesGroup', () => {
  const msg = (key: string, from: 'owner' | 'agent', at: string) =>
    ({ type: 'message', key, from, message: { role: from === 'owner' ? 'user' : 'agent', parts: [] }, at, seq: 0 }) as unknown as ChatItem;
  it('groups a sender’s bubbles that follow each other within five minutes', () => {
    const items = [
      msg('a', 'agent', '2026-01-01T10:00:00Z'),
      msg('b', 'agent', '2026-01-01T10:04:59Z'),
      msg('c', 'agent', '2026-01-01T10:10:00Z'),
      msg('d', 'owner', '2026-01-01T10:10:01Z'),
      { type: 'task', key: 't', taskId: 't', state: 'completed' } as unknown as ChatItem,
      msg('e', 'owner', '2026-01-01T10:10:02Z'),
    ];
    expect(items.map((_, i) => continuesGroup(items, i))).toEqual([false, true, false, false, false, false]);
  });
});
