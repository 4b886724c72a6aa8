// The Knowledge page's Explore tab: a search-first view of the graph drawn with cytoscape.js
// (fcose layout, edgehandles to draw links), with a side panel that shows and edits the selected
// node's statements. Every edit goes through knowledge/update with the person's justification and
// can be undone (the inverse patches, sent as a new update); knowledge/subscribe keeps the view live.
//
// This file composes the parts, each in its own file: the view of the graph and its commands
// (useExplorerGraph), the edits and their undo (useKnowledgeEdits), the live stream
// (useLiveChanges), the canvas and its menu (GraphCanvas), the toolbar (ExplorerToolbar) and the
// panels (ExplorerPanels).

import { useCallback, useEffect, useState } from 'react';
import { EditDialogHost, Legend, SelectionPanel, StatusLine, Toasts, useToasts } from './ExplorerPanels';
import { ExplorerToolbar } from './ExplorerToolbar';
import { CanvasMenu, GraphCanvas, type MenuState } from './GraphCanvas';
import { useExplorerGraph } from './useExplorerGraph';
import { useKnowledgeEdits } from './useKnowledgeEdits';
import { useLiveChanges } from './useLiveChanges';

export interface ShowRequest {
  ids: string[];
  /** with the links among them (and to nodes in view): "Show what I imported" */
  links?: boolean;
  nonce: number;
}

export function Explorer({
  agent,
  active,
  show,
  connectionId,
  connected,
}: {
  agent?: string;
  /** The tab is on screen (cytoscape measures its container then). */
  active: boolean;
  /** Nodes to bring into view (the Query and Table tabs' "show in graph", "Show what I imported"). */
  show?: ShowRequest;
  /** The gateway connection's number: a new one means the live stream must be opened again. */
  connectionId: number;
  connected: boolean;
}) {
  const { toasts, toast } = useToasts();
  const [menu, setMenu] = useState<MenuState | null>(null);
  const [drawMode, setDrawMode] = useState(false);
  const [drawHint, setDrawHint] = useState('');
  const closeMenu = useCallback(() => setMenu(null), []);

  const g = useExplorerGraph(agent, toast);
  const live = useLiveChanges(g, { agent, connected, connectionId, toast });
  const edits = useKnowledgeEdits(g, { agent, active, toast, closeMenu });

  // Nodes the Query tab asked to show.
  useEffect(() => {
    if (!show || show.ids.length === 0) return;
    void g.showNodes(show.ids, show.links);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [show?.nonce]);

  return (
    <div className="kg-explorer">
      <ExplorerToolbar agent={agent} g={g} edits={edits} drawMode={drawMode} setDrawMode={setDrawMode} toast={toast} />

      {g.error && (
        <p className="error-line" role="alert">
          {g.error}
        </p>
      )}

      <div className="kg-body">
        <GraphCanvas g={g} active={active} drawMode={drawMode} select={g.select} onMenu={setMenu} onDrawHint={setDrawHint} onLink={edits.link}>
          <StatusLine drawHint={drawHint} status={g.status} drawMode={drawMode} />
          <Legend g={g} live={live} />
          <Toasts toasts={toasts} />
        </GraphCanvas>

        <SelectionPanel g={g} edits={edits} />
      </div>

      {menu && <CanvasMenu menu={menu} g={g} edits={edits} onClose={closeMenu} />}

      {edits.dialog && <EditDialogHost dialog={edits.dialog} onClose={edits.closeDialog} />}
    </div>
  );
}
