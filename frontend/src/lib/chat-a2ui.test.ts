import { describe, expect, it } from 'vitest';
import type { ChatEntry } from '../api/types';
import { buildTranscript } from './chat';
import { planConfirmed, planForm, SID } from './a2ui.fixtures';

const at = (seq: number) => `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`;
const a2ui = (data: unknown[]) => ({ kind: 'data' as const, mediaType: 'application/a2ui+json', data });

function status(seq: number, state: string, parts: unknown[]): ChatEntry {
  return { seq, at: at(seq), direction: 'in', kind: 'status', taskId: 'T', final: false, state, status: { state, message: { id: `s${seq}`, role: 'agent', parts: parts as never } } };
}
const start: ChatEntry = { seq: 1, at: at(1), direction: 'out', kind: 'message', final: false, message: { id: 'm1', role: 'user', parts: [{ kind: 'text', text: 'plan a release' }] } };
const action: ChatEntry = {
  seq: 3,
  at: at(3),
  direction: 'out',
  kind: 'message',
  taskId: 'T',
  final: false,
  message: {
    id: 'm3',
    role: 'user',
    parts: [a2ui([{ version: 'v0.9', action: { name: 'plan_release', surfaceId: SID, sourceComponentId: 'submit', timestamp: at(3), context: { version: '2.0.0' } } }])],
  },
};

describe('buildTranscript with A2UI', () => {
  it('draws a surface as one bubble that later updates change in place', () => {
    const asked = status(2, 'input-required', [{ kind: 'text', text: "Let's plan a release" }, a2ui(planForm)]);
    const first = buildTranscript([start, asked]);
    expect(first.items.map((i) => i.type)).toEqual(['message', 'status', 'surface', 'task']);
    const surface = first.items.find((i) => i.type === 'surface')!;
    expect(surface).toMatchObject({ surfaceId: SID, messages: planForm, key: `u:2:${SID}` });
    // the status bubble keeps its text, without the A2UI part
    expect(first.items[1].type === 'status' && first.items[1].message.parts).toEqual([{ kind: 'text', text: "Let's plan a release" }]);

    const done = status(4, 'completed', [a2ui(planConfirmed)]);
    const second = buildTranscript([start, asked, action, done]);
    expect(second.items.map((i) => i.type)).toEqual(['message', 'status', 'surface', 'action', 'task']);
    const updated = second.items.find((i) => i.type === 'surface')!;
    expect(updated.key).toBe(surface.key); // the same bubble
    expect(updated.type === 'surface' && updated.messages).toEqual([...planForm, ...planConfirmed]);
    const line = second.items.find((i) => i.type === 'action');
    expect(line?.type === 'action' && line.text).toBe('You chose plan release (version: 2.0.0)');
    expect(second.tasks[0]).toMatchObject({ state: 'completed', ended: true });
  });

  it('removes a surface on deleteSurface, and ignores updates of surfaces never created', () => {
    const asked = status(2, 'input-required', [a2ui(planForm)]);
    const stray = status(3, 'working', [a2ui([{ version: 'v0.9', updateComponents: { surfaceId: 'nope', components: [] } }])]);
    const gone = status(4, 'canceled', [{ kind: 'text', text: 'Discarded.' }, a2ui([{ version: 'v0.9', deleteSurface: { surfaceId: SID } }])]);
    const t = buildTranscript([start, asked, stray, gone]);
    expect(t.items.some((i) => i.type === 'surface')).toBe(false);
    expect(t.items.map((i) => i.type)).toEqual(['message', 'status', 'task']);
  });

  it('draws surfaces sent in artifacts and in plain agent messages too', () => {
    const art: ChatEntry = { seq: 2, at: at(2), direction: 'in', kind: 'artifact', taskId: 'T', final: false, artifact: { id: 'A', parts: [a2ui(planForm)], lastChunk: true } };
    expect(buildTranscript([start, art]).items.map((i) => i.type)).toEqual(['message', 'surface']);
    const msg: ChatEntry = { seq: 2, at: at(2), direction: 'in', kind: 'message', final: false, message: { id: 'a', role: 'agent', parts: [a2ui(planForm)] } };
    expect(buildTranscript([start, msg]).items.map((i) => i.type)).toEqual(['message', 'surface']);
  });
});

describe('buildTranscript: surfaces of several tasks', () => {
  it('gives a surface id reused by another task a bubble of its own', () => {
    const ask = (seq: number, task: string): ChatEntry => ({ ...status(seq, 'input-required', [a2ui(planForm)]), taskId: task });
    const t = buildTranscript([start, ask(2, 'T'), { ...status(3, 'completed', [a2ui(planConfirmed)]), taskId: 'T' }, ask(4, 'U')]);
    const surfaces = t.items.filter((i) => i.type === 'surface');
    expect(surfaces).toHaveLength(2);
    expect(surfaces[0].type === 'surface' && surfaces[0].messages).toEqual([...planForm, ...planConfirmed]);
    expect(surfaces[1].type === 'surface' && surfaces[1].messages).toEqual(planForm);
  });
});
