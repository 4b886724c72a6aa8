// The Explorer kept live: knowledge/subscribe while the page is open (again after a new gateway
// connection, from the last change seen), with the changes applied to the view in batches and
// others' edits noted in a toast. It only reflects what changed on the canvas; it edits nothing.

import { useCallback, useEffect, useRef, useState } from 'react';
import { changeEffect, laterChangeId, nodeElement, shortId, type Element } from './graph';
import { kgErrorText, subscribe, type ChangeEvent } from './kg';
import type { ExplorerGraph } from './useExplorerGraph';

export function useLiveChanges(
  g: ExplorerGraph,
  {
    agent,
    connected,
    connectionId,
    toast,
  }: { agent?: string; connected: boolean; connectionId: number; toast: (text: string) => void },
) {
  const { addElements, flash, loadDetail, refreshCounts, summaries, setError, ready } = g;
  const [live, setLive] = useState<'off' | 'on' | 'error'>('off');

  // Changes are applied in batches (an import sends thousands): one summaries query per batch, one
  // note per source.
  const pending = useRef<ChangeEvent[]>([]);
  const flushing = useRef<Promise<void>>(Promise.resolve());
  const flushTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  const applyChanges = useCallback(
    async (batch: ChangeEvent[]) => {
      const cy = g.cyRef.current;
      if (!cy || batch.length === 0) return;
      const visible = new Set(cy.nodes().map((n) => n.id()));
      const addNodes = new Map<string, string | undefined>(); // id → the node to place it around
      const addEdges = new Map<string, Element>();
      const removeEdges = new Set<string>();
      const refresh = new Set<string>();
      const notes = new Map<string, ChangeEvent[]>();
      for (const c of batch) {
        const eff = changeEffect(c, visible, g.expanded.current);
        if (!eff.touches) continue;
        const who = typeof c.changeMetadata?.source === 'string' ? c.changeMetadata.source : 'someone';
        notes.set(who, [...(notes.get(who) ?? []), c]);
        if (eff.removeEdge) {
          removeEdges.add(eff.removeEdge);
          addEdges.delete(eff.removeEdge);
        }
        if (eff.addNode) {
          const d = eff.addEdge?.data as { source: string; target: string } | undefined;
          addNodes.set(eff.addNode, d?.source === eff.addNode ? d?.target : d?.source);
          visible.add(eff.addNode);
        }
        if (eff.addEdge) {
          addEdges.set(eff.addEdge.data.id, eff.addEdge);
          removeEdges.delete(eff.addEdge.data.id);
        }
        for (const r of eff.refresh) refresh.add(r);
      }
      if (notes.size === 0) return;
      for (const id of removeEdges) cy.getElementById(id).remove();
      const sums = await summaries([...new Set([...addNodes.keys(), ...refresh])]);
      const byId = new Map(sums.map((n) => [n.id, n]));
      for (const [id, around] of addNodes) addElements([nodeElement(byId.get(id) ?? { id })], around);
      addElements([...addEdges.values()]);
      for (const id of refresh) {
        const n = byId.get(id);
        const el = cy.getElementById(id);
        if (n && el.nonempty()) el.data(nodeElement(n).data);
      }
      refreshCounts();
      flash([...addNodes.keys(), ...addEdges.keys(), ...refresh]);
      for (const [who, cs] of notes) {
        // The person's own edits on this hub show by themselves; others' get a note.
        if (!g.agentRef.current && who === 'user://owner') continue;
        const c = cs[0];
        const obj = c.statement.object?.id ? shortId(c.statement.object.id) : JSON.stringify(c.statement.object?.value);
        toast(cs.length === 1 ? `${who}: ${c.op} ${shortId(c.statement.subject.id)} ${shortId(c.statement.predicate.id)} ${obj}` : `${who}: ${cs.length} changes`);
      }
      const sel = g.selectionRef.current;
      if (sel?.kind === 'node' && refresh.has(sel.id)) void loadDetail(sel.id);
    },
    [addElements, flash, loadDetail, refreshCounts, summaries, toast],
  );
  const applyRef = useRef(applyChanges);
  applyRef.current = applyChanges;

  const onChange = useCallback((c: ChangeEvent) => {
    g.lastChange.current = laterChangeId(g.lastChange.current, c.changeId);
    pending.current.push(c);
    if (flushTimer.current) return;
    flushTimer.current = setTimeout(() => {
      flushTimer.current = null;
      const batch = pending.current.splice(0);
      flushing.current = flushing.current.then(() => applyRef.current(batch)).catch((e) => setError(kgErrorText(e)));
    }, 150);
  }, []);
  useEffect(
    () => () => {
      if (flushTimer.current) clearTimeout(flushTimer.current);
    },
    [],
  );
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;

  // Subscribed while the page is open; on a new connection, again, after the last change seen.
  useEffect(() => {
    if (!ready || !connected) return;
    let close: (() => void) | null = null;
    let gone = false;
    void subscribe(agent, 'subscription { changes { op changeId } }', (c) => onChangeRef.current(c), {
      afterChangeId: g.lastChange.current,
      onError: (e) => {
        // code 0: the connection was lost; the app's banner says so and a new connection resumes.
        if (e.code === 0) return;
        setLive('error');
        toast(`Live updates stopped: ${e.message}`);
      },
      onEnd: () => {
        if (!gone) setLive('off');
      },
    }).then(
      (c) => {
        if (gone) c();
        else {
          close = c;
          setLive('on');
        }
      },
      (e) => {
        setLive('error');
        setError(`Live updates are off: ${kgErrorText(e)}`);
      },
    );
    return () => {
      gone = true;
      close?.();
    };
  }, [agent, ready, connected, connectionId, toast]);
  return live;
}
