import { describe, expect, it } from 'vitest';
import type { KGPatch, KGStatement } from './kg';
import { inversePatches, statementKey, UndoStack, undoJustification, type Edit } from './undo';

const st = (s: string, p: string, o: { id?: string; value?: string | number }, extra: Partial<KGStatement> = {}): KGStatement => ({
  subject: { id: s },
  predicate: { id: p },
  object: o,
  ...extra,
});

// A model of the hub's patch semantics (knowledge.commit), to check that undo restores the graph.
function apply(graph: KGStatement[], patches: KGPatch[]): KGStatement[] {
  let g = [...graph];
  for (const p of patches) {
    const k = statementKey(p.statement);
    if (p.op === 'remove') g = g.filter((x) => statementKey(x) !== k);
    if (p.op === 'replace')
      g = g.filter(
        (x) => !(x.subject.id === p.statement.subject.id && x.predicate.id === p.statement.predicate.id && (x.graph ?? '') === (p.statement.graph ?? '')) || statementKey(x) === k,
      );
    if (p.op === 'add' || p.op === 'replace') g = [...g.filter((x) => statementKey(x) !== k), p.statement];
  }
  return g;
}
const sorted = (g: KGStatement[]) => [...g].sort((a, b) => statementKey(a).localeCompare(statementKey(b)));

describe('inverse patches', () => {
  const before = [
    st('ex:a', 'rdfs:label', { value: 'Alice' }, { certainty: 0.7, provenance: { sourceAgentId: 'agent://x' } }),
    st('ex:a', 'ex:tag', { value: 'one' }),
    st('ex:a', 'ex:tag', { value: 'two' }),
    st('ex:a', 'ex:knows', { id: 'ex:b' }, { certainty: 0.9 }),
  ];

  it.each<[string, KGPatch[]]>([
    ['adding a new link', [{ op: 'add', statement: st('ex:a', 'ex:knows', { id: 'ex:c' }) }]],
    ['re-adding a statement with new metadata', [{ op: 'add', statement: st('ex:a', 'ex:knows', { id: 'ex:b' }, { certainty: 0.2 }) }]],
    ['removing a link', [{ op: 'remove', statement: st('ex:a', 'ex:knows', { id: 'ex:b' }) }]],
    [
      'editing a literal (remove the old, add the new)',
      [
        { op: 'remove', statement: st('ex:a', 'rdfs:label', { value: 'Alice' }) },
        { op: 'add', statement: st('ex:a', 'rdfs:label', { value: 'Alicia' }) },
      ],
    ],
    ['replacing a value of several', [{ op: 'replace', statement: st('ex:a', 'ex:tag', { value: 'three' }) }]],
    ['replacing where there was none', [{ op: 'replace', statement: st('ex:a', 'ex:age', { value: 3 }) }]],
    [
      'deleting a node (all its statements)',
      before.map((s) => ({ op: 'remove' as const, statement: s })),
    ],
    [
      'creating a node',
      [
        { op: 'add', statement: st('ex:n', 'rdf:type', { id: 'ex:T' }) },
        { op: 'add', statement: st('ex:n', 'rdfs:label', { value: 'N' }) },
      ],
    ],
  ])('%s, then its inverse, gives the graph back as it was (metadata too)', (_name, patches) => {
    const prior = before.filter((b) => patches.some((p) => p.statement.subject.id === b.subject.id && p.statement.predicate.id === b.predicate.id));
    const after = apply(before, patches);
    expect(sorted(after)).not.toEqual(sorted(before));
    const inv = inversePatches(patches, prior);
    expect(sorted(apply(after, inv))).toEqual(sorted(before));
  });

  it('takes an edit back in reverse order', () => {
    const inv = inversePatches(
      [
        { op: 'remove', statement: st('ex:a', 'rdfs:label', { value: 'Alice' }) },
        { op: 'add', statement: st('ex:a', 'rdfs:label', { value: 'Alicia' }) },
      ],
      [before[0]],
    );
    expect(inv).toEqual([
      { op: 'remove', statement: st('ex:a', 'rdfs:label', { value: 'Alicia' }) },
      { op: 'add', statement: before[0] },
    ]);
  });
});

describe('undo stack', () => {
  const edit = (label: string): Edit => ({ patches: [], inverse: [], justification: `why ${label}`, label });

  it('undoes the latest first, redoes what was undone, and a new edit clears the redos', () => {
    const u = new UndoStack();
    expect(u.canUndo).toBe(false);
    const a = edit('a');
    const b = edit('b');
    u.push(a);
    u.push(b);
    expect(u.peekUndo()).toBe(b);
    u.markUndone(b);
    expect(u.peekUndo()).toBe(a);
    expect(u.peekRedo()).toBe(b);
    u.markRedone(b);
    expect(u.peekUndo()).toBe(b);
    expect(u.canRedo).toBe(false);
    u.markUndone(b);
    u.push(edit('c'));
    expect(u.canRedo).toBe(false);
    expect(undoJustification(a)).toBe('undo: why a');
  });

  it('keeps at most its limit', () => {
    const u = new UndoStack(2);
    u.push(edit('1'));
    u.push(edit('2'));
    u.push(edit('3'));
    u.markUndone(u.peekUndo()!);
    u.markUndone(u.peekUndo()!);
    expect(u.canUndo).toBe(false);
  });
});
