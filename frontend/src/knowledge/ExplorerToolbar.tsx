// The Explorer's toolbar: search (the results drop down under the field), new node, drawing
// links, undo and redo, fit, layout, start over, and the saved views (kept in localStorage, see
// views.ts). It holds the search's and the saved views' own state; everything it does to the
// graph goes through the graph's and the edits' commands.

import { useEffect, useRef, useState } from 'react';
import { MoreMenu } from '../components/MoreMenu';
import { saveFile, utf8ToBase64 } from '../native';
import { NODE_FIELDS, nodeElement, shortId, type GNode } from './graph';
import { kgErrorText } from './kg';
import { ShapeIcon } from './parts';
import type { KnowledgeEdits } from './useKnowledgeEdits';
import type { ExplorerGraph } from './useExplorerGraph';
import { deletePerspective, generatePerspective, type Perspective } from './perspective';
import { PerspectiveDialog } from './PerspectiveDialog';
import { decodeScene, deleteView, encodeScene, loadViews, MAX_SCENE_BYTES, saveView, snapshotView, type SavedView } from './views';

export function ExplorerToolbar({
  agent,
  g,
  edits,
  drawMode,
  setDrawMode,
  toast,
}: {
  agent?: string;
  g: ExplorerGraph;
  edits: KnowledgeEdits;
  drawMode: boolean;
  setDrawMode: (f: (d: boolean) => boolean) => void;
  toast: (text: string) => void;
}) {
  const { q, open, fit, relayout, startOver } = g;
  const { newNode, nextUndo, nextRedo, runUndo } = edits;
  const nodeCount = g.counts.nodes;
  const [searchText, setSearchText] = useState('');
  const [results, setResults] = useState<GNode[] | null>(null);
  const [searchError, setSearchError] = useState('');
  const [views, setViews] = useState<SavedView[]>(() => loadViews(localStorage, agent));
  const [viewName, setViewName] = useState('');
  const [editing, setEditing] = useState<Perspective | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);

  // A new source: its own saved views, and no results from the one before.
  useEffect(() => {
    setResults(null);
    setViews(loadViews(localStorage, agent));
  }, [agent]);

  // ---- search ----

  useEffect(() => {
    const text = searchText.trim();
    if (text === '') {
      setResults(null);
      setSearchError('');
      return;
    }
    let live = true;
    const t = setTimeout(async () => {
      try {
        const d = await q<{ search: GNode[] }>(`query Search($text: String!) { search(text: $text, first: 20) { ${NODE_FIELDS} } }`, { text });
        if (live) {
          setResults(d.search ?? []);
          setSearchError('');
        }
      } catch (e) {
        if (live) setSearchError(kgErrorText(e));
      }
    }, 250);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [searchText, q, agent]);

  // ---- saved views ----

  const saveCurrentView = () => {
    const nodes = g.snapshot();
    if (!nodes || viewName.trim() === '') return;
    const v = snapshotView(viewName, nodes, new Date(), g.sceneExtras());
    setViews(saveView(localStorage, agent, v));
    toast(`Saved the view “${v.name}” (${v.nodes.length} nodes).`);
  };

  const openView = async (name: string) => {
    const v = views.find((x) => x.name === name);
    if (v) await g.openView(v);
  };

  // ---- scene files ----

  const exportScene = () => {
    const nodes = g.snapshot();
    if (!nodes) return;
    const v = snapshotView(viewName.trim() || 'scene', nodes, new Date(), g.sceneExtras());
    void saveFile(`${v.name}.scene.json`, utf8ToBase64(encodeScene(v))).then(
      (r) => r.saved && toast(`Exported the scene “${v.name}” (${v.nodes.length} nodes).`),
      (e) => toast(`The scene was not exported: ${e instanceof Error ? e.message : String(e)}`),
    );
  };

  const importScene = async (file: File | undefined) => {
    if (!file) return;
    let v: SavedView;
    try {
      if (file.size > MAX_SCENE_BYTES) throw new Error('The file is too large to be a scene.');
      v = decodeScene(await file.text());
    } catch (e) {
      g.setError(`${file.name}: ${e instanceof Error ? e.message : String(e)} Nothing was changed.`);
      return;
    }
    g.setError('');
    setViews(saveView(localStorage, agent, v));
    await g.openView(v);
  };

  return (
    <div className="kg-toolbar" role="toolbar" aria-label="Graph">
      <div className="kg-search">
        <label className="sr-only" htmlFor="kg-search">
          Search the graph
        </label>
        <input
          id="kg-search"
          type="search"
          placeholder="Search nodes…"
          title="Search nodes by name or value"
          value={searchText}
          onChange={(e) => setSearchText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && results && results.length > 0) void open(results[0].id);
            if (e.key === 'Escape') setSearchText('');
          }}
        />
        {results !== null && (
          <div className="kg-results" role="region" aria-label="Search results">
            {searchError ? (
              <p className="kg-error">{searchError}</p>
            ) : results.length === 0 ? (
              <p className="muted small">No node matches “{searchText.trim()}”.</p>
            ) : (
              <ul>
                {results.map((n) => {
                  const d = nodeElement(n).data;
                  return (
                    <li key={n.id}>
                      <button
                        type="button"
                        className="kg-result"
                        data-testid="kg-result"
                        onClick={() => {
                          void open(n.id);
                          setSearchText('');
                        }}
                      >
                        <ShapeIcon shape={d.shape} color={d.color} />
                        <span className="kg-result-label">{d.label}</span>
                        <code className="muted small">{n.id}</code>
                        {d.type && <span className="kg-chip">{shortId(d.type)}</span>}
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
          </div>
        )}
      </div>
      <button type="button" className="btn btn-small" onClick={() => newNode()}>
        New node
      </button>
      <button
        type="button"
        className="btn btn-small"
        aria-pressed={drawMode}
        title="Drag from one node to another to link them"
        onClick={() => setDrawMode((d) => !d)}
      >
        {drawMode ? 'Drawing links' : 'Draw links'}
      </button>
      <span className="kg-sep" aria-hidden="true" />
      <button
        type="button"
        className="btn btn-small"
        disabled={!nextUndo}
        title={nextUndo ? `Undo ${nextUndo.label} (Ctrl+Z)` : 'Nothing to undo'}
        onClick={() => void runUndo(false)}
      >
        Undo
      </button>
      <button
        type="button"
        className="btn btn-small"
        disabled={!nextRedo}
        title={nextRedo ? `Redo ${nextRedo.label} (Ctrl+Shift+Z)` : 'Nothing to redo'}
        onClick={() => void runUndo(true)}
      >
        Redo
      </button>
      <span className="kg-sep" aria-hidden="true" />
      <button type="button" className="btn btn-small" onClick={() => fit()}>
        Fit
      </button>
      <button
        type="button"
        className="btn btn-small"
        title="Arrange the nodes again (pinned ones stay)"
        onClick={() => relayout()}
      >
        Layout
      </button>
      <button
        type="button"
        className="btn btn-small"
        title="Clear the view and show the first nodes of the graph again"
        onClick={() => startOver()}
      >
        Start over
      </button>
      {/* Two rows by design: finding and editing above, how the graph looks and its scenes below
          (one row wrapped wherever the width ran out). */}
      <span className="kg-break" aria-hidden="true" />
      <label className="select-label">
        Perspective
        <select
          value={g.perspective?.name ?? ''}
          onChange={(e) => {
            const p = g.perspectives.find((x) => x.name === e.target.value);
            if (p) g.choosePerspective(p);
          }}
        >
          {!g.perspective && <option value="">By type</option>}
          {g.perspectives.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name}
            </option>
          ))}
        </select>
      </label>
      <button
        type="button"
        className="btn btn-small"
        title="Edit the rules of the perspective in use (save under a new name to add one)"
        onClick={() => setEditing(g.perspective ?? generatePerspective(g.legend.map((l) => l.type ?? '')))}
      >
        Edit perspective…
      </button>
      {editing && (
        <PerspectiveDialog
          initial={editing}
          onSave={(p) => {
            g.storePerspective(p);
            toast(`Saved the perspective “${p.name}”.`);
          }}
          onDelete={
            g.perspectives.length > 1 && g.perspectives.some((p) => p.name === editing.name)
              ? (name) => {
                  const left = deletePerspective(localStorage, agent, name);
                  g.setPerspectives(left);
                  g.choosePerspective(left[0] ?? null);
                }
              : undefined
          }
          onClose={() => setEditing(null)}
        />
      )}
      <span className="kg-sep" aria-hidden="true" />
      <label className="select-label">
        View
        <select
          value=""
          onChange={(e) => {
            if (e.target.value) void openView(e.target.value);
          }}
          disabled={views.length === 0}
        >
          <option value="">{views.length ? 'Open a saved view…' : 'No saved views'}</option>
          {views.map((v) => (
            <option key={v.name} value={v.name}>
              {v.name} ({v.nodes.length})
            </option>
          ))}
        </select>
      </label>
      {/* Saving a view is rarer than opening one: under its own button, so the toolbar stays one line. */}
      <MoreMenu label="Save view (the nodes on screen, with their positions)" summary="Save view">
      <form
        className="kg-saveview"
        onSubmit={(e) => {
          e.preventDefault();
          saveCurrentView();
        }}
      >
        <label className="sr-only" htmlFor="kg-view-name">
          View name
        </label>
        <input id="kg-view-name" type="text" placeholder="View name" value={viewName} onChange={(e) => setViewName(e.target.value)} />
        <button type="submit" className="btn btn-small" disabled={viewName.trim() === '' || nodeCount === 0}>
          Save view
        </button>
        {views.some((v) => v.name === viewName.trim()) && (
          <button type="button" className="btn btn-small btn-danger" onClick={() => setViews(deleteView(localStorage, agent, viewName.trim()))}>
            Delete view
          </button>
        )}
      </form>
      <div className="kg-saveview">
        <button type="button" className="btn btn-small" disabled={nodeCount === 0} onClick={exportScene} title="Download what is on screen as a scene file (nodes, positions, perspective, zoom, selection)">
          Export scene
        </button>
        <button type="button" className="btn btn-small" onClick={() => fileRef.current?.click()} title="Open a scene file exported from AgentHub">
          Import scene…
        </button>
        <input
          ref={fileRef}
          type="file"
          accept=".json,application/json"
          aria-label="Scene file"
          data-testid="kg-scene-file"
          hidden
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            void importScene(f);
          }}
        />
      </div>
      </MoreMenu>
    </div>
  );
}
