// The Explorer's panels: the side panel of the selection (NodePanel or EdgePanel), the status
// line, the legend and the toasts over the canvas, and the edit dialog. They render what they are
// given and call back; the state they show belongs to the graph, the edits and the live stream.

import { useCallback, useMemo, useState } from 'react';
import type { EdgeSingular } from 'cytoscape';
import { EditDialog } from './EditDialog';
import { shortId } from './graph';
import { kgErrorText } from './kg';
import { LINKS_PAGE, NodePanel } from './NodePanel';
import { EdgePanel, ShapeIcon } from './parts';
import type { DialogState, KnowledgeEdits } from './useKnowledgeEdits';
import type { ExplorerGraph } from './useExplorerGraph';

interface Toast {
  id: number;
  text: string;
}

/** Short notes over the canvas: the newest four, each gone after 6 s. */
export function useToasts() {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const toast = useCallback((text: string) => {
    const id = Date.now() + Math.random();
    setToasts((t) => [...t.slice(-3), { id, text }]);
    setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), 6000);
  }, []);
  return { toasts, toast };
}

/** What the canvas is doing (loading, opening a node, drawing a link). */
export function StatusLine({ drawHint, status, drawMode }: { drawHint: string; status: string; drawMode: boolean }) {
  return (
    <div className="kg-overlay-top">
      <span className="kg-status" role="status" data-testid="kg-status">
        {drawHint || status || (drawMode ? 'Drag from one node to another to link them.' : '')}
      </span>
    </div>
  );
}

/** How many nodes and links are in view, whether the view is live, and the perspective's rules (or types) with their looks. */
export function Legend({ g, live }: { g: ExplorerGraph; live: 'off' | 'on' | 'error' }) {
  const { counts, legend } = g;
  return (
    <div className="kg-legend" aria-label="Legend">
      <span className="small muted">
        {counts.nodes.toLocaleString('en')} nodes · {counts.edges.toLocaleString('en')} links ·{' '}
        <span data-testid="kg-live" className={`kg-live kg-live-${live}`}>
          {live === 'on' ? 'live' : live === 'error' ? 'live updates off' : 'connecting…'}
        </span>
      </span>
      <ul>
        {legend.map((l) => (
          <li key={l.key}>
            <ShapeIcon shape={l.shape} color={l.color} />
            <span>{l.text}</span>
            <span className="muted">{l.count.toLocaleString('en')}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Toasts({ toasts }: { toasts: Toast[] }) {
  return (
    <div className="kg-toasts" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className="kg-toast" data-testid="kg-toast">
          {t.text}
        </div>
      ))}
    </div>
  );
}

/** The side panel: the selected node's statements, the selected link, or how to start. */
export function SelectionPanel({ g, edits }: { g: ExplorerGraph; edits: KnowledgeEdits }) {
  const { selection, detail, detailError, counts, ready, cyRef, expanded, caps, expand, collapse, togglePin, open, q } = g;
  const { deleteNode, addAttribute, editLiteral, removeStatements, deleteEdge } = edits;
  const cy = cyRef.current;
  const selNode = selection?.kind === 'node' ? cy?.getElementById(selection.id) : undefined;
  const selEdge = selection?.kind === 'edge' ? cy?.getElementById(selection.id) : undefined;
  const isExpanded = selection?.kind === 'node' && expanded.current.has(selection.id);
  const isPinned = !!selNode && selNode.nonempty() && selNode.locked();
  const cap = detail ? (caps.current.get(detail.id) ?? LINKS_PAGE) : LINKS_PAGE;

  const nameOf = useMemo(
    () => (id: string) => {
      const n = cyRef.current?.getElementById(id);
      return n && n.nonempty() ? (n.data('label') as string) : shortId(id);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [counts, detail],
  );

  return (
    <aside className="kg-side" aria-label="Selection">
      {!selection && (
        <div className="kg-side-empty">
          <h2>Nothing selected</h2>
          <p className="muted">Search for a node above, or click one in the graph to see its statements. Right-click for more.</p>
          <p className="muted small">
            {counts.nodes === 0 && ready ? 'The graph is empty: create the first node with New node.' : ''}
          </p>
        </div>
      )}
      {selection?.kind === 'node' && (
        <NodePanel
          key={selection.id}
          id={selection.id}
          detail={detail}
          detailError={detailError}
          fallbackLabel={selNode?.nonempty() ? (selNode.data('label') as string) : shortId(selection.id)}
          expanded={isExpanded}
          pinned={isPinned}
          cap={cap}
          nameOf={nameOf}
          onExpand={(first) => void expand(selection.id, first)}
          onCollapse={() => collapse(selection.id)}
          onTogglePin={() => togglePin(selection.id)}
          onDelete={() => void deleteNode(selection.id)}
          onAddAttribute={() => addAttribute(selection.id)}
          onEditLiteral={editLiteral}
          onRemove={removeStatements}
          onOpen={(id) => void open(id)}
        />
      )}
      {selection?.kind === 'edge' && selEdge && selEdge.nonempty() && (
        <EdgePanel
          edge={selEdge as EdgeSingular}
          agentQuery={q}
          nameOf={nameOf}
          onOpen={(id) => void open(id)}
          onDelete={() => deleteEdge(selection.id)}
        />
      )}
    </aside>
  );
}

/** The dialog that asks for an edit's values and justification, and shows why the hub refused it. */
export function EditDialogHost({ dialog, onClose }: { dialog: DialogState; onClose: () => void }) {
  return (
    <EditDialog
      title={dialog.title}
      summary={dialog.summary}
      fields={dialog.fields}
      submitLabel={dialog.submitLabel}
      withCertainty={dialog.withCertainty}
      onSubmit={async (s) => {
        try {
          await dialog.run(s);
        } catch (e) {
          throw new Error(kgErrorText(e));
        }
      }}
      onClose={() => {
        dialog.onCancel?.();
        onClose();
      }}
    />
  );
}
