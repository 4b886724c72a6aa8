import { describe, expect, it } from 'vitest';
import { deleteView, loadViews, saveView, snapshotView, viewsKey, type KVStorage } from './views';

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
