import { describe, expect, it } from 'vitest';
import { continuesRun, questionOpen, replyTo, type ChannelEvent } from './model';

const ev = (author: string, metadata?: Record<string, unknown>): ChannelEvent => ({
  id: 'e',
  channelId: 'c',
  sequence: 1,
  timestamp: 1,
  author,
  parts: [],
  metadata,
  kind: 'message',
});
const asking = (taskId: string) => ev('remote://demo', { agenthub: { bridge: { taskId, state: 'input-required', hop: 0 } } });

describe('questions and replies', () => {
  it('holds a question open only while its task is the one the agent asks in', () => {
    const q = asking('t1');
    expect(questionOpen(q, { 'remote://demo': { member: 'remote://demo', agentId: 'demo', state: 'input-required', taskId: 't1' } })).toBe(true);
    expect(questionOpen(q, { 'remote://demo': { member: 'remote://demo', agentId: 'demo', state: 'working', taskId: 't1' } })).toBe(false);
    expect(questionOpen(q, { 'remote://demo': { member: 'remote://demo', agentId: 'demo', state: 'input-required', taskId: 't2' } })).toBe(false);
    expect(questionOpen(q, { 'remote://demo': { member: 'remote://demo', agentId: 'demo', state: 'idle' } })).toBe(false);
    expect(questionOpen(q, {})).toBe(true); // no states (another hub's channel): as it says
    expect(questionOpen(ev('remote://demo', { agenthub: { bridge: { taskId: 't1', state: 'completed' } } }), {})).toBe(false);
  });

  it('reads the task a message answers', () => {
    expect(replyTo(ev('user://owner', { agenthub: { replyTo: { member: 'remote://demo', taskId: 't1' } } }))).toEqual({ member: 'remote://demo', taskId: 't1' });
    expect(replyTo(ev('user://owner', { agenthub: { replyTo: { member: 7 } } }))).toBeUndefined();
    expect(replyTo(ev('user://owner'))).toBeUndefined();
  });
});

describe('continuesRun', () => {
  const at = (sequence: number, author: string, timestamp: number) => ({ id: `e${sequence}`, channelId: 'c', sequence, author, timestamp, parts: [], kind: 'messageEvent' }) as ChannelEvent;
  it('groups one author’s messages that follow each other within five minutes, not across the unread divider', () => {
    const events = [at(1, 'user://owner', 0), at(2, 'user://owner', 60_000), at(3, 'remote://demo', 61_000), at(4, 'remote://demo', 62_000), at(5, 'remote://demo', 62_000 + 5 * 60_000 + 1)];
    expect(events.map((_, i) => continuesRun(events, i))).toEqual([false, true, false, true, false]);
    expect(continuesRun(events, 3, 3)).toBe(false);
  });
});
