import { describe, expect, it } from 'vitest';
import type { Message, TimelineEvent } from '../api/types';
import { buildConversation } from './conversation';

const m = (id: string, role: 'user' | 'agent', text: string): Message => ({ id, role, parts: [{ kind: 'text', text }] });
let seq = 0;
const e = (x: Partial<TimelineEvent>): TimelineEvent => ({ seq: ++seq, at: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`, kind: 'status', final: false, raw: {}, ...x });

describe('buildConversation', () => {
  it('puts the opening messages first, then answers, questions back and replies in log order', () => {
    seq = 0;
    const first = m('m1', 'user', 'Approve the deploy?');
    const question = m('q1', 'agent', 'Which version?');
    const reply = m('r1', 'user', 'v2.3');
    const events = [
      e({ kind: 'task', state: 'submitted', status: { state: 'submitted' } }),
      e({ state: 'working', status: { state: 'working' } }),
      e({ kind: 'artifact', artifact: { id: 'a1', name: 'answer', parts: [{ kind: 'text', text: 'Looking' }] } }),
      e({ state: 'input-required', status: { state: 'input-required', message: question }, final: true }),
      e({ kind: 'message', message: reply }),
      e({ state: 'working', status: { state: 'working' } }),
      e({ state: 'completed', status: { state: 'completed', message: m('c1', 'agent', 'Approved.') }, final: true }),
    ];
    // the stored history carries the question and the reply too (moved there by the SDK)
    const items = buildConversation({ history: [first, question, reply] }, events);
    const summary = items.map((i) =>
      i.type === 'state' ? `[${i.state}]` : i.type === 'message' ? `${i.from}:${i.message.id}` : `${i.from}:artifact:${i.artifact.id}`,
    );
    expect(summary).toEqual(['sender:m1', 'owner:artifact:a1', 'owner:q1', '[input-required]', 'sender:r1', 'owner:c1', '[completed]']);
  });

  it('folds chunks of one artifact into one item', () => {
    seq = 0;
    const items = buildConversation(null, [
      e({ kind: 'artifact', artifact: { id: 'a', parts: [{ kind: 'text', text: 'Hel' }] } }),
      e({ kind: 'artifact', artifact: { id: 'a', parts: [{ kind: 'text', text: 'lo' }], append: true } }),
    ]);
    expect(items).toHaveLength(1);
    expect(items[0].type === 'artifact' && items[0].artifact.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
  });

  it('copes with missing history and malformed entries', () => {
    seq = 0;
    expect(buildConversation({ history: null }, [e({ kind: 'message' }), e({ kind: 'artifact' })])).toEqual([]);
  });
});
