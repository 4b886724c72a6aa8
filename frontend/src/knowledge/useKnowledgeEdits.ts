// The Explorer's edits: every change to the graph goes through knowledge/update with the person's
// justification (asked in a dialog), and can be undone and redone (the inverse patches, sent as a
// new update). It owns the dialog and the undo stack; it changes the view only through the graph's
// commands (reflect re-reads what the patches touched) and never mounts or lays out the canvas.

import { useCallback, useEffect, useReducer, useRef, useState } from 'react';
import { freeSpot } from './canvas';
import type { EditField, EditSubmit } from './EditDialog';
import {
  RDF_TYPE,
  isTypePredicate,
  RDFS_LABEL,
  STATEMENT_FIELDS,
  edgeElement,
  idsFromLabel,
  nodeElement,
  parseLiteral,
  shortId,
  toKG,
  valueText,
  type GStatement,
} from './graph';
import { kgErrorText, update, type KGPatch, type KGStatement } from './kg';
import { UndoStack, inversePatches, redoJustification, undoJustification, type Edit } from './undo';
import type { ExplorerGraph } from './useExplorerGraph';

/** How many (subject, predicate) places one query for an edit's prior statements names: 50 × 1000 items
 * × the statement's fields stays well under the hub's GraphQL cost limit (1,000,000). */
const PRIOR_PLACES_PER_QUERY = 50;

export interface DialogState {
  title: string;
  summary?: string;
  fields?: EditField[];
  submitLabel: string;
  withCertainty?: boolean;
  run: (s: EditSubmit) => Promise<void>;
  onCancel?: () => void;
}

export type KnowledgeEdits = ReturnType<typeof useKnowledgeEdits>;

/** The nodes patches touch: their subjects, and their objects that are nodes (not types). */
export function touchedNodes(patches: KGPatch[]): string[] {
  const ids = new Set<string>();
  for (const p of patches) {
    ids.add(p.statement.subject.id);
    if (p.statement.object.id && !isTypePredicate(p.statement.predicate.id)) ids.add(p.statement.object.id);
  }
  return [...ids];
}

export function useKnowledgeEdits(
  g: ExplorerGraph,
  { agent, active, toast, closeMenu }: { agent?: string; active: boolean; toast: (text: string) => void; closeMenu: () => void },
) {
  const { q, summaries, addElements, loadDetail, refreshCounts, select, setError, legend } = g;
  const undo = useRef(new UndoStack());
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const [dialog, setDialog] = useState<DialogState | null>(null);

  // A new source: its own history.
  useEffect(() => {
    undo.current.clear();
  }, [agent]);

  /** The statements as they are now at the places the patches touch, for the undo. */
  const priorOf = useCallback(
    async (patches: KGPatch[]): Promise<KGStatement[]> => {
      const places = [...new Set(patches.map((p) => JSON.stringify([p.statement.subject.id, p.statement.predicate.id])))].map(
        (s) => JSON.parse(s) as [string, string],
      );
      // The hub bounds a query's estimated cost (each statements(first: 1000) counts 1000 items of
      // every field), so an edit touching many places asks in rounds of PRIOR_PLACES_PER_QUERY.
      const out: KGStatement[] = [];
      for (let from = 0; from < places.length; from += PRIOR_PLACES_PER_QUERY) {
        const round = places.slice(from, from + PRIOR_PLACES_PER_QUERY);
        const vars = round.map((_, i) => `$s${i}: ID!, $p${i}: ID!`).join(', ');
        const fields = round.map((_, i) => `q${i}: statements(subject: $s${i}, predicate: $p${i}, first: 1000) { items { ${STATEMENT_FIELDS} } }`).join(' ');
        const variables: Record<string, string> = {};
        round.forEach(([s, p], i) => {
          variables[`s${i}`] = s;
          variables[`p${i}`] = p;
        });
        const d = await q<Record<string, { items: GStatement[] }>>(`query Prior(${vars}) { ${fields} }`, variables);
        round.forEach((_, i) => out.push(...(d[`q${i}`]?.items ?? []).map(toKG)));
      }
      return out;
    },
    [q],
  );

  /** Sends an edit (the undo remembers how to take it back, and where its nodes were) and refreshes what it touched. */
  const applyEdit = useCallback(
    async (patches: KGPatch[], justification: string, label: string) => {
      const prior = await priorOf(patches);
      const positions: Record<string, { x: number; y: number }> = {};
      const cy = g.cyRef.current;
      for (const id of touchedNodes(patches)) {
        const n = cy?.getElementById(id);
        if (n && n.nonempty()) positions[id] = { ...n.position() };
      }
      const r = await update(g.agentRef.current, patches, justification);
      if (!r?.success) throw new Error(r?.verificationDetails || r?.verificationStatus || 'The hub did not accept the change.');
      undo.current.push({ patches, inverse: inversePatches(patches, prior), justification, label, positions });
      bump();
      return r;
    },
    [priorOf],
  );

  /**
   * Brings the view in line with the graph after patches: links added or removed, nodes re-read. The
   * nodes in place (an undo or a redo bringing back nodes it had taken off) are drawn there again
   * when the graph still has them; a node the live changes drew meanwhile elsewhere moves there.
   */
  const reflect = useCallback(
    async (patches: KGPatch[], place: Record<string, { x: number; y: number }> = {}) => {
      const cy = g.cyRef.current;
      if (!cy) return;
      const back = Object.keys(place);
      if (back.length > 0) {
        for (const n of await summaries(back)) {
          const el = cy.getElementById(n.id);
          if (el.empty()) cy.add({ group: 'nodes', data: { ...nodeElement(n).data }, position: { ...place[n.id] } });
          else el.position({ ...place[n.id] });
        }
      }
      const touched = new Set<string>();
      for (const p of patches) {
        const s = p.statement;
        touched.add(s.subject.id);
        if (s.object.id && !isTypePredicate(s.predicate.id)) {
          const e = edgeElement({ subject: s.subject.id, predicate: s.predicate.id, object: s.object.id, graph: s.graph, certainty: s.certainty });
          if (p.op === 'remove') cy.getElementById(e.data.id).remove();
          else if (cy.getElementById(s.subject.id).nonempty() && cy.getElementById(s.object.id).nonempty()) addElements([e]);
          touched.add(s.object.id);
        }
      }
      const shown = [...touched].filter((id) => cy.getElementById(id).nonempty());
      const sums = await summaries(shown);
      const found = new Set(sums.map((n) => n.id));
      for (const n of sums) cy.getElementById(n.id).data(nodeElement(n).data);
      // A node whose every statement is gone has left the graph.
      for (const id of shown) if (!found.has(id)) cy.getElementById(id).remove();
      refreshCounts();
      const sel = g.selectionRef.current;
      if (sel?.kind === 'node') {
        if (cy.getElementById(sel.id).empty()) select(null);
        else void loadDetail(sel.id);
      } else if (sel?.kind === 'edge' && cy.getElementById(sel.id).empty()) select(null);
    },
    [addElements, loadDetail, refreshCounts, select, summaries],
  );

  const ask = useCallback(
    (d: DialogState) => {
      closeMenu();
      setDialog(d);
    },
    [closeMenu],
  );

  const withCertainty = (st: KGStatement, c?: number): KGStatement => (c === undefined ? st : { ...st, certainty: c });

  const newNode = useCallback(
    (at?: { x: number; y: number }) => {
      const types = [...new Set(legend.map((l) => l.type ?? '').filter(Boolean))];
      ask({
        title: 'New node',
        // A person names the node; its id is made from the name unless they want their own
        // (an IRI or a CURIE, for data that must match another graph's).
        fields: [
          { name: 'label', label: 'Name', required: true, placeholder: 'Alice' },
          { name: 'type', label: 'Type', suggestions: types, placeholder: 'ex:Person' },
          { name: 'id', label: 'Id', placeholder: 'made from the name, e.g. urn:agenthub:node:alice' },
        ],
        submitLabel: 'Create',
        run: async ({ values, justification, certainty }) => {
          const label = values.label.trim();
          const type = values.type.trim();
          let id = values.id.trim();
          if (!id) {
            // the first id made from the name that no node has yet
            const candidates = idsFromLabel(label);
            const taken = new Set((await summaries(candidates)).map((n) => n.id));
            id = candidates.find((c) => !taken.has(c)) ?? `${candidates[0]}-${Date.now()}`;
          }
          const patches: KGPatch[] = [];
          if (type) patches.push({ op: 'add', statement: withCertainty({ subject: { id }, predicate: { id: RDF_TYPE }, object: { id: type } }, certainty) });
          if (label) patches.push({ op: 'add', statement: withCertainty({ subject: { id }, predicate: { id: RDFS_LABEL }, object: { value: label } }, certainty) });
          await applyEdit(patches, justification, `create ${id}`);
          setDialog(null);
          const [n] = await summaries([id]);
          const cy = g.cyRef.current;
          if (cy && n) {
            const ext = cy.extent();
            const pos = at ?? freeSpot(cy, { x: (ext.x1 + ext.x2) / 2, y: (ext.y1 + ext.y2) / 2 });
            if (cy.getElementById(id).empty()) cy.add({ group: 'nodes', data: { ...nodeElement(n).data }, position: pos });
            // a redo of this creation draws it here again
            const made = undo.current.peekUndo();
            if (made?.label === `create ${id}`) made.positions = { ...made.positions, [id]: { ...cy.getElementById(id).position() } };
            // A new node shows all its links: any added later (by anyone) come into view.
            g.expanded.current.add(id);
            cy.getElementById(id).addClass('expanded');
            refreshCounts();
          }
          select({ kind: 'node', id });
        },
      });
    },
    [applyEdit, ask, legend, refreshCounts, select, summaries],
  );

  const link = useCallback(
    (source: string, target: string) => {
      const cy = g.cyRef.current;
      const preds = cy ? [...new Set(cy.edges().map((e) => e.data('predicate') as string))].sort() : [];
      const name = (id: string) => (cy?.getElementById(id).data('label') as string) || id;
      ask({
        title: 'New link',
        summary: `From ${name(source)} to ${name(target)}.`,
        fields: [{ name: 'predicate', label: 'Predicate', required: true, suggestions: preds, placeholder: 'ex:knows' }],
        submitLabel: 'Link',
        run: async ({ values, justification, certainty }) => {
          const st = withCertainty({ subject: { id: source }, predicate: { id: values.predicate.trim() }, object: { id: target } }, certainty);
          await applyEdit([{ op: 'add', statement: st }], justification, `link ${shortId(source)} → ${shortId(target)}`);
          setDialog(null);
          await reflect([{ op: 'add', statement: st }]);
          const e = edgeElement({ subject: source, predicate: st.predicate.id, object: target });
          select({ kind: 'edge', id: e.data.id });
        },
      });
    },
    [applyEdit, ask, reflect, select],
  );

  const editLiteral = useCallback(
    (st: GStatement, text: string) => {
      const old = toKG(st);
      const next: KGStatement = { subject: old.subject, predicate: old.predicate, object: { value: parseLiteral(text, st.value) } };
      if (old.graph) next.graph = old.graph;
      ask({
        title: `Change ${shortId(st.predicate)}`,
        summary: `${valueText(st.value)} → ${text}`,
        submitLabel: 'Save',
        run: async ({ justification, certainty }) => {
          const patches: KGPatch[] = [
            { op: 'remove', statement: old },
            { op: 'add', statement: withCertainty(next, certainty) },
          ];
          await applyEdit(patches, justification, `change ${shortId(st.subject)} ${shortId(st.predicate)}`);
          setDialog(null);
          await reflect(patches);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const addAttribute = useCallback(
    (subject: string) => {
      ask({
        title: 'New attribute',
        fields: [
          { name: 'predicate', label: 'Predicate', required: true, placeholder: 'schema:description' },
          { name: 'value', label: 'Value', required: true },
        ],
        submitLabel: 'Add',
        run: async ({ values, justification, certainty }) => {
          const v = values.value;
          const value = /^-?\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim()) : v === 'true' ? true : v === 'false' ? false : v;
          const st = withCertainty({ subject: { id: subject }, predicate: { id: values.predicate.trim() }, object: { value } }, certainty);
          await applyEdit([{ op: 'add', statement: st }], justification, `add ${shortId(values.predicate)} to ${shortId(subject)}`);
          setDialog(null);
          await reflect([{ op: 'add', statement: st }]);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const removeStatements = useCallback(
    (stmts: KGStatement[], title: string, label: string) => {
      ask({
        title,
        summary: stmts.length === 1 ? undefined : `This removes ${stmts.length} statements.`,
        submitLabel: 'Delete',
        withCertainty: false,
        run: async ({ justification }) => {
          const patches: KGPatch[] = stmts.map((s) => ({ op: 'remove', statement: s }));
          await applyEdit(patches, justification, label);
          setDialog(null);
          await reflect(patches);
        },
      });
    },
    [applyEdit, ask, reflect],
  );

  const deleteNode = useCallback(
    async (id: string) => {
      try {
        const d = await q<{ a: { items: GStatement[] }; b: { items: GStatement[] } }>(
          `query Of($id: ID!) { a: statements(subject: $id, first: 1000) { items { ${STATEMENT_FIELDS} } } b: statements(object: $id, first: 1000) { items { ${STATEMENT_FIELDS} } } }`,
          { id },
        );
        const all = [...(d.a?.items ?? []), ...(d.b?.items ?? [])].map(toKG);
        if (all.length === 0) return setError(`${id} has no statements left.`);
        removeStatements(all, `Delete ${shortId(id)}`, `delete ${shortId(id)}`);
      } catch (e) {
        setError(kgErrorText(e));
      }
    },
    [q, removeStatements],
  );

  const deleteEdge = useCallback(
    (edgeIdValue: string) => {
      const e = g.cyRef.current?.getElementById(edgeIdValue);
      if (!e || e.empty()) return;
      const st: KGStatement = { subject: { id: e.data('source') }, predicate: { id: e.data('predicate') }, object: { id: e.data('target') } };
      if (e.data('graph')) st.graph = e.data('graph');
      removeStatements([st], `Delete the link ${e.data('label')}`, `delete link ${shortId(st.subject.id)} → ${shortId(st.object.id!)}`);
    },
    [removeStatements],
  );

  // Undo and redo run one after the other, each reading the stacks when its turn comes, so a quick
  // Ctrl+Z Ctrl+Z undoes two edits rather than dropping the second press.
  const undoQueue = useRef<Promise<void>>(Promise.resolve());
  const undoOnce = useCallback(
    async (redo: boolean) => {
      const e: Edit | undefined = redo ? undo.current.peekRedo() : undo.current.peekUndo();
      if (!e) return;
      try {
        const patches = redo ? e.patches : e.inverse;
        // the edit's nodes that are not drawn now: if this brings them back, they go where they were
        const cy = g.cyRef.current;
        const place = Object.fromEntries(Object.entries(e.positions ?? {}).filter(([id]) => !cy || cy.getElementById(id).empty()));
        const r = await update(g.agentRef.current, patches, redo ? redoJustification(e) : undoJustification(e));
        if (!r?.success) throw new Error(r?.verificationDetails || 'The hub did not accept the change.');
        if (redo) undo.current.markRedone(e);
        else undo.current.markUndone(e);
        bump();
        await reflect(patches, place);
        toast(`${redo ? 'Redone' : 'Undone'}: ${e.label}`);
        setError('');
      } catch (err) {
        setError(`Could not ${redo ? 'redo' : 'undo'} “${e.label}”: ${kgErrorText(err)}`);
      }
    },
    [reflect, toast],
  );
  const runUndo = useCallback(
    (redo: boolean) => {
      undoQueue.current = undoQueue.current.then(() => undoOnce(redo));
      return undoQueue.current;
    },
    [undoOnce],
  );

  // Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) while the Explore tab is on screen and no field is being typed in.
  useEffect(() => {
    if (!active) return;
    const on = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || dialog) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable)) return;
      const k = e.key.toLowerCase();
      if (k === 'z' || k === 'y') {
        e.preventDefault();
        void runUndo(k === 'y' || e.shiftKey);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [active, dialog, runUndo]);

  return {
    dialog,
    closeDialog: () => setDialog(null),
    nextUndo: undo.current.peekUndo(),
    nextRedo: undo.current.peekRedo(),
    runUndo,
    newNode,
    link,
    editLiteral,
    addAttribute,
    removeStatements,
    deleteNode,
    deleteEdge,
  };
}
