import { describe, expect, it } from 'vitest';
import type { WireEntry } from '../api/types';
import { headerRows, mergeWire, prettyBody } from './wire';

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
