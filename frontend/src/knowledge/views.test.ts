import { describe, expect, it } from 'vitest';
import { decodeScene, deleteView, encodeScene, loadViews, MAX_SCENE_BYTES, saveView, snapshotView, viewsKey, type KVStorage } from './views';

function memory(): KVStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v) };
}

describe('saved views', () => {
  it('saves a named set of nodes with positions and pins, per graph, and replaces one of the same name', () => {
    const s = memory();
    const v = snapshotView(' skills ', [
      { id: 'ex:a', x: 10.4, y: -3.6, pinned: true },
      { id: 'ex:b', x: 0, y: 0, pinned: false },
    ], new Date('2026-01-01T00:00:00Z'));
    expect(v).toEqual({ name: 'skills', savedAt: '2026-01-01T00:00:00.000Z', nodes: [{ id: 'ex:a', x: 10, y: -4, pinned: true }, { id: 'ex:b', x: 0, y: 0 }] });
    saveView(s, undefined, v);
    saveView(s, 'demo', { ...v, name: 'other' });
    expect(loadViews(s).map((x) => x.name)).toEqual(['skills']);
    expect(loadViews(s, 'demo').map((x) => x.name)).toEqual(['other']);
    saveView(s, undefined, { ...v, nodes: [{ id: 'ex:c', x: 1, y: 2 }] });
    expect(loadViews(s)).toHaveLength(1);
    expect(loadViews(s)[0].nodes).toEqual([{ id: 'ex:c', x: 1, y: 2 }]);
    expect(deleteView(s, undefined, 'skills')).toEqual([]);
    expect(() => saveView(s, undefined, { ...v, name: '  ' })).toThrow(/name/);
  });

  it('skips whatever in storage is not a view', () => {
    const s = memory();
    s.setItem(viewsKey(), 'not json');
    expect(loadViews(s)).toEqual([]);
    s.setItem(viewsKey(), JSON.stringify([{ name: 'ok', nodes: [{ id: 'a', x: 1, y: 1 }, { id: 'b' }, null] }, { nodes: [] }, 3]));
    expect(loadViews(s)).toEqual([{ name: 'ok', savedAt: '', nodes: [{ id: 'a', x: 1, y: 1 }] }]);
  });
});

describe('scenes', () => {
  const scene = snapshotView('s', [{ id: 'ex:a', x: 1, y: 2, pinned: false }], new Date('2026-01-01T00:00:00Z'), {
    perspective: { name: 'p', rules: [{ match: { kind: 'type', type: 'ex:T' }, color: '#123456', size: 40 }] },
    viewport: { zoom: 1.5, pan: { x: 10, y: -20 } },
    selected: ['ex:a'],
  });

  it('keeps the perspective, zoom, pan and selection, and round-trips through a file', () => {
    expect(decodeScene(encodeScene(scene))).toEqual(scene);
    const s = memory();
    saveView(s, undefined, scene);
    expect(loadViews(s)).toEqual([scene]);
  });

  it('reads views saved before scenes as scenes without perspective or zoom', () => {
    const s = memory();
    s.setItem(viewsKey(), JSON.stringify([{ name: 'old', savedAt: 'x', nodes: [{ id: 'ex:a', x: 1, y: 2 }] }]));
    expect(loadViews(s)).toEqual([{ name: 'old', savedAt: 'x', nodes: [{ id: 'ex:a', x: 1, y: 2 }] }]);
  });

  it('refuses a malformed or hostile file with a message', () => {
    const bad = (text: string) => () => decodeScene(text);
    expect(bad('not json')).toThrow(/not JSON/);
    expect(bad('{"format":"other"}')).toThrow(/not a scene/);
    expect(bad(JSON.stringify({ format: 'agenthub.kg.scene', version: 9, scene }))).toThrow(/version/);
    expect(bad(JSON.stringify({ format: 'agenthub.kg.scene', version: 1, scene: { ...scene, nodes: [{ id: 1 }] } }))).toThrow(/malformed/);
    expect(bad(JSON.stringify({ format: 'agenthub.kg.scene', version: 1, scene: { ...scene, perspective: { rules: 3 } } }))).toThrow(/perspective/);
    expect(bad(JSON.stringify({ format: 'agenthub.kg.scene', version: 1, scene: { ...scene, name: '' } }))).toThrow(/name/);
    expect(bad('x'.repeat(MAX_SCENE_BYTES + 1))).toThrow(/too large/);
    // __proto__ keys in a file do not reach the scene's prototype
    const polluted = decodeScene(`{"format":"agenthub.kg.scene","version":1,"scene":{"name":"s","nodes":[],"__proto__":{"polluted":1}}}`);
    expect((polluted as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
