import { describe, expect, it } from 'vitest';
import type { WireEntry } from '../api/types';
import { describeWire, groupWire, headerRows, mergeWire, prettyBody, taskEntries, wireMatches } from './wire';

const w = (id: number, extra: Partial<WireEntry> = {}): WireEntry => ({
  id,
  at: `2025-01-01T00:00:${String(id).padStart(2, '0')}Z`,
  callId: 'c',
  kind: 'request',
  method: 'message/send',
  url: 'https://a/x',
  header: {},
  body: '',
  ...extra,
});

describe('wire log', () => {
  it('merges newest first without duplicates', () => {
    const first = [w(5), w(4)];
    const merged = mergeWire(first, [w(6), w(4), w(2), null, { nope: 1 }]);
    expect(merged.map((e) => e.id)).toEqual([6, 5, 4, 2]);
    expect(mergeWire(first, [w(5)])).toBe(first);
  });

  it('pretty-prints JSON bodies and SSE data lines, and leaves text alone', () => {
    expect(prettyBody('{"a":1,"b":[2]}')).toEqual({ json: true, text: '{\n  "a": 1,\n  "b": [\n    2\n  ]\n}' });
    expect(prettyBody('{"broken":')).toEqual({ json: false, text: '{"broken":' });
    expect(prettyBody('plain <b>text</b>')).toEqual({ json: false, text: 'plain <b>text</b>' });
    expect(prettyBody('')).toEqual({ json: false, text: '' });
    expect(prettyBody(undefined)).toEqual({ json: false, text: '' });
    const sse = prettyBody('event: message\ndata: {"x":1}\n\n');
    expect(sse.json).toBe(true);
    expect(sse.text).toContain('data: {\n  "x": 1\n}');
  });

  it('sorts header rows by name', () => {
    expect(headerRows({ 'X-Api-Key': '•••', accept: 'application/json' })).toEqual([
      ['accept', 'application/json'],
      ['X-Api-Key', '•••'],
    ]);
    expect(headerRows(null)).toEqual([]);
  });
});

describe('describeWire', () => {
  it('names each streamed event by its kind and state, in both dialects', () => {
    const v1 = { kind: 'event', method: 'SendStreamingMessage', body: 'data: {"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T1","status":{"state":"TASK_STATE_WORKING"}}}}' };
    expect(describeWire(v1)).toEqual({ what: 'status-update', state: 'working', taskId: 'T1' });
    const v03 = { kind: 'event', method: 'message/stream', body: '{"jsonrpc":"2.0","id":1,"result":{"kind":"artifact-update","taskId":"T2","artifact":{}}}' };
    expect(describeWire(v03)).toEqual({ what: 'artifact-update', state: undefined, taskId: 'T2' });
    const task = { kind: 'response', method: 'GetTask', body: '{"jsonrpc":"2.0","id":1,"result":{"id":"T3","status":{"state":"TASK_STATE_COMPLETED"}}}' };
    expect(describeWire(task)).toEqual({ what: 'task', state: 'completed', taskId: 'T3' });
    const err = { kind: 'response', method: 'SendMessage', body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found"}}' };
    expect(describeWire(err).what).toBe('error -32001: Task not found');
  });

  it('groups entries by call, with the tasks they name, and filters by kind and words', () => {
    const e = (id: number, callId: string, kind: string, body: string) => ({ id, at: '', callId, kind, method: 'SendStreamingMessage', url: '', header: {}, body });
    const list = [
      e(3, 'b', 'event', 'data: {"result":{"statusUpdate":{"taskId":"T9","status":{"state":"TASK_STATE_COMPLETED"}}}}'),
      e(2, 'a', 'response', ''),
      e(1, 'a', 'request', '{"method":"SendStreamingMessage","params":{"message":{"taskId":"T8"}}}'),
    ];
    expect(groupWire(list).map((c) => [c.callId, c.entries.map((x) => x.id), c.taskIds])).toEqual([
      ['b', [3], ['T9']],
      ['a', [2, 1], ['T8']],
    ]);
    expect(list.filter((x) => wireMatches(x, 'event', '')).map((x) => x.id)).toEqual([3]);
    expect(list.filter((x) => wireMatches(x, '', 'completed')).map((x) => x.id)).toEqual([3]);
  });

  it("a task's entries are the calls that name it, whole: the request that created it comes with its call", () => {
    const list = [
      w(7, { callId: 'other', kind: 'event', body: '{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"U","status":{"state":"TASK_STATE_WORKING"}}}}' }),
      w(6, { callId: 'c2', kind: 'response', method: 'tasks/get', body: '{"jsonrpc":"2.0","id":2,"result":{"id":"T","status":{"state":"TASK_STATE_COMPLETED"}}}' }),
      w(5, { callId: 'c2', method: 'tasks/get', body: '{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"id":"T"}}' }),
      w(3, { callId: 'c1', kind: 'event', body: 'data: {"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","status":{"state":"TASK_STATE_SUBMITTED"}}}}' }),
      w(2, { callId: 'c1', kind: 'response', body: '' }),
      w(1, { callId: 'c1', method: 'message/stream', body: '{"jsonrpc":"2.0","id":1,"method":"message/stream","params":{"message":{"parts":[]}}}' }),
      w(0, { callId: 'c0', method: 'message/send', body: '{"jsonrpc":"2.0","id":0,"method":"message/send","params":{"message":{"parts":[]}}}' }),
    ];
    expect(taskEntries(list, 'T').map((e) => e.id)).toEqual([6, 5, 3, 2, 1]);
    expect(taskEntries(list, 'nothing')).toEqual([]);
  });
});
