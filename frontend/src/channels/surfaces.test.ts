import { describe, expect, it } from 'vitest';
import type { ChannelEvent } from './model';
import { toPart } from './parts';
import { actionable, actionNote, channelSurfaces } from './surfaces';

const MT = 'application/a2ui+json';
const v = (kind: string, body: Record<string, unknown>) => ({ version: 'v0.9', [kind]: body });
/** a draft data part of one A2UI message, as the bridge publishes it */
const part = (m: Record<string, unknown>) => ({ type: 'data', data: m, metadata: { mimeType: MT } });
let seq = 0;
const ev = (author: string, taskId: string | undefined, parts: unknown[], extra: Record<string, unknown> = {}): ChannelEvent => ({
  id: `e${++seq}`,
  channelId: 'c',
  sequence: seq,
  timestamp: 0,
  author,
  parts,
  kind: 'messageEvent',
  metadata: taskId ? { agenthub: { bridge: { taskId, state: 'input-required', hop: 0 } } } : extra,
});
const create = (id: string) => part(v('createSurface', { surfaceId: id, catalogId: 'basic' }));
const update = (id: string, text: string) => part(v('updateComponents', { surfaceId: id, components: [{ id: 'root', component: 'Text', text }] }));

describe('channel A2UI surfaces', () => {
  it('reads a draft A2UI data part as a list of one message, with its media type; other data parts keep theirs', () => {
    expect(toPart(create('s'))).toEqual({ kind: 'data', data: [v('createSurface', { surfaceId: 's', catalogId: 'basic' })], mediaType: MT });
    expect(toPart({ kind: 'data', mediaType: MT, data: [1] })).toEqual({ kind: 'data', data: [1], mediaType: MT });
    expect(toPart({ type: 'data', data: { a: 1 }, metadata: { mimeType: 'application/x' } })).toEqual({ kind: 'data', data: { a: 1 }, mediaType: 'application/x' });
    expect(toPart({ type: 'data', data: { a: 1 } })).toEqual({ kind: 'data', data: { a: 1 } });
  });

  it('keeps two agents’ surfaces of the same id apart, and updates each in its own bubble', () => {
    seq = 0;
    const events = [
      ev('remote://a', 't1', [{ type: 'text', text: 'Fill in' }, create('plan'), update('plan', 'A form')]),
      ev('remote://b', 't2', [create('plan'), update('plan', 'B form')]),
      ev('user:me', undefined, [{ type: 'text', text: 'hi' }]),
      ev('remote://a', 't1', [update('plan', 'A planned')]),
    ];
    const { shown, updates } = channelSurfaces(events);
    expect([...shown.keys()]).toEqual([1, 2]);
    const a = shown.get(1)![0];
    const b = shown.get(2)![0];
    expect(a.author).toBe('remote://a');
    expect(a.taskId).toBe('t1');
    expect(a.messages).toHaveLength(3);
    expect(JSON.stringify(a.messages[2])).toContain('A planned');
    expect(b.messages).toHaveLength(2);
    expect(JSON.stringify(b.messages)).not.toContain('A planned');
    expect(updates.get(4)).toEqual([1]);
    expect(a.updatedSeq).toBe(4);
  });

  it('removes a surface on deleteSurface, drops updates of surfaces never created, and another author never updates it', () => {
    seq = 0;
    const events = [
      ev('remote://a', 't1', [create('s')]),
      ev('remote://b', 't1', [update('s', 'hijack'), part(v('deleteSurface', { surfaceId: 's' }))]),
      ev('remote://a', 't1', [update('x', 'orphan')]),
      ev('remote://a', 't1', [part(v('deleteSurface', { surfaceId: 's' }))]),
    ];
    const { shown, updates } = channelSurfaces(events);
    const s = shown.get(1)![0];
    expect(JSON.stringify(s.messages)).not.toContain('hijack');
    expect(s.deleted).toBe(true);
    expect(updates.has(2)).toBe(false);
    expect(updates.has(3)).toBe(false);
    expect(updates.get(4)).toEqual([1]);
    expect(shown.size).toBe(1);
  });

  it('acts only on surfaces this hub’s bridge published, in its own channels', () => {
    seq = 0;
    const { shown } = channelSurfaces([
      ev('remote://a', 't1', [create('s')]),
      ev('agent://elsewhere', undefined, [create('s')]),
    ]);
    expect(actionable(shown.get(1)![0], false)).toBe(true);
    expect(actionable(shown.get(1)![0], true)).toBe(false);
    expect(actionable(shown.get(2)![0], false)).toBe(false);
  });

  it('hostile A2UI parts never break the bookkeeping', () => {
    seq = 0;
    const junk = [null, 7, 'x', { type: 'data', data: null, metadata: { mimeType: MT } }, { type: 'data', data: 'str', metadata: { mimeType: MT } },
      { kind: 'data', mediaType: MT, data: [null, 3, { version: 'v0.9' }, { version: 'v0.9', createSurface: 'no' }] }, { type: 'data', metadata: null }];
    const { shown } = channelSurfaces([ev('remote://a', 't1', junk), ev('remote://a', undefined, 'nope' as unknown as unknown[])]);
    expect(shown.size).toBe(0);
  });

  it('reads the action note of a person’s action', () => {
    seq = 0;
    const e = ev('user:me', undefined, [{ type: 'text', text: 'chose plan it' }], { agenthub: { a2uiAction: { member: 'remote://a', taskId: 't1', surfaceId: 's' } } });
    expect(actionNote(e)).toEqual({ member: 'remote://a', taskId: 't1', surfaceId: 's' });
    expect(actionNote(ev('user:me', undefined, []))).toBeUndefined();
  });
});

describe('channel A2UI surfaces of v0.8', () => {
  it('starts a v0.8 surface with its first message (one per part) and keeps its updates in its bubble', () => {
    seq = 0;
    const { shown, updates } = channelSurfaces([
      ev('remote://a', 't1', [part({ surfaceUpdate: { surfaceId: 'old', components: [] } }), part({ beginRendering: { surfaceId: 'old', root: 'r' } })]),
      ev('remote://a', 't1', [part({ dataModelUpdate: { surfaceId: 'old', contents: [] } })]),
    ]);
    expect(shown.get(1)).toHaveLength(1);
    expect(shown.get(1)![0].messages).toHaveLength(3);
    expect(updates.get(2)).toEqual([1]);
  });
});
