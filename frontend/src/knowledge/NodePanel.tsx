// The side panel of the selected node: its types, its attributes (each value edited in place) and its
// links, each with certainty and provenance; expand, collapse, pin and delete.

import { useState } from 'react';
import { edgeElement, hiddenLinks, linksOf, shortId, toKG, valueText, type GNodeDetail, type GStatement } from './graph';
import type { KGStatement } from './kg';
import { Meta } from './parts';

/** How many links an opened node shows at first; "Show more" adds twice as many. */
export const LINKS_PAGE = 25;
/** The schema's cap on one list. */
export const LINKS_MAX = 1000;

export function NodePanel({
  id,
  detail,
  detailError,
  fallbackLabel,
  expanded,
  pinned,
  cap,
  nameOf,
  onExpand,
  onCollapse,
  onTogglePin,
  onDelete,
  onAddAttribute,
  onEditLiteral,
  onRemove,
  onOpen,
}: {
  id: string;
  detail: GNodeDetail | null;
  detailError: string;
  /** The label to show until the node's details have been read. */
  fallbackLabel: string;
  expanded: boolean;
  pinned: boolean;
  /** How many links of each direction the view asked for. */
  cap: number;
  nameOf: (id: string) => string;
  /** Shows the node's links (up to `first` each way when given). */
  onExpand: (first?: number) => void;
  onCollapse: () => void;
  onTogglePin: () => void;
  onDelete: () => void;
  onAddAttribute: () => void;
  onEditLiteral: (st: GStatement, text: string) => void;
  onRemove: (stmts: KGStatement[], title: string, label: string) => void;
  onOpen: (id: string) => void;
}) {
  const [editing, setEditing] = useState<{ key: string; text: string } | null>(null);
  const shownLinks = detail ? linksOf(detail).length : 0;
  const hidden = detail ? hiddenLinks(detail, shownLinks) : 0;
  return (
    <div className="kg-node" data-testid="kg-node-panel">
      <h2>{detail?.label || fallbackLabel}</h2>
      <code className="break small">{id}</code>
      <div className="kg-chips">
        {(detail?.types ?? []).map((t) => (
          <span key={t} className="kg-chip">
            {t}
          </span>
        ))}
      </div>
      <div className="kg-actions">
        <button type="button" className="btn btn-small" onClick={() => (expanded ? onCollapse() : onExpand())}>
          {expanded ? 'Collapse' : 'Expand'}
        </button>
        <button type="button" className="btn btn-small" aria-pressed={pinned} onClick={onTogglePin}>
          {pinned ? 'Unpin' : 'Pin'}
        </button>
        <button type="button" className="btn btn-small btn-danger" onClick={onDelete}>
          Delete node
        </button>
      </div>
      {detailError && <p className="kg-error">{detailError}</p>}
      {detail && (
        <>
          <section className="kg-section">
            <div className="kg-section-head">
              <h3>Attributes</h3>
              <button type="button" className="btn btn-small" onClick={onAddAttribute}>
                Add
              </button>
            </div>
            {(detail.attributes ?? []).length === 0 ? (
              <p className="muted small">None.</p>
            ) : (
              <ul className="kg-stmts">
                {(detail.attributes ?? []).map((st) => {
                  const key = JSON.stringify([st.predicate, st.value, st.graph]);
                  const isEditing = editing?.key === key;
                  return (
                    <li key={key} className="kg-stmt" data-testid="kg-attribute" data-predicate={st.predicate}>
                      <span className="kg-pred" title={st.predicate}>
                        {shortId(st.predicate)}
                      </span>
                      {isEditing ? (
                        <form
                          className="kg-inline"
                          onSubmit={(e) => {
                            e.preventDefault();
                            // The change is asked for (and justified) in a dialog; the field closes now.
                            if (editing.text !== valueText(st.value)) onEditLiteral(st, editing.text);
                            setEditing(null);
                          }}
                        >
                          <label className="sr-only" htmlFor={`kg-edit-${key}`}>
                            New value of {shortId(st.predicate)}
                          </label>
                          <input
                            id={`kg-edit-${key}`}
                            type="text"
                            autoFocus
                            value={editing.text}
                            onChange={(e) => setEditing({ key, text: e.target.value })}
                            onKeyDown={(e) => e.key === 'Escape' && setEditing(null)}
                          />
                          <button type="submit" className="btn btn-small btn-primary">
                            Save
                          </button>
                          <button type="button" className="btn btn-small" onClick={() => setEditing(null)}>
                            Cancel
                          </button>
                        </form>
                      ) : (
                        <button
                          type="button"
                          className="kg-value"
                          title="Edit this value"
                          aria-label={`Edit ${shortId(st.predicate)}: ${valueText(st.value)}`}
                          onClick={() => setEditing({ key, text: valueText(st.value) })}
                        >
                          {valueText(st.value)}
                        </button>
                      )}
                      <Meta st={st} />
                      {!isEditing && (
                        <button
                          type="button"
                          className="btn btn-ghost btn-small"
                          aria-label={`Delete ${shortId(st.predicate)}`}
                          onClick={() => onRemove([toKG(st)], `Delete ${shortId(st.predicate)}`, `delete ${shortId(st.predicate)} of ${shortId(st.subject)}`)}
                        >
                          ✕
                        </button>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
          </section>
          <section className="kg-section">
            <h3>Links</h3>
            {shownLinks === 0 ? (
              <p className="muted small">None.</p>
            ) : (
              <ul className="kg-stmts">
                {linksOf(detail).map((st) => {
                  const outgoing = st.subject === detail.id;
                  const other = outgoing ? st.object : st.subject;
                  const eid = edgeElement(st).data.id;
                  return (
                    <li key={eid} className="kg-stmt" data-testid="kg-link">
                      <span className="kg-pred" title={st.predicate}>
                        {outgoing ? '→' : '←'} {shortId(st.predicate)}
                      </span>
                      <button type="button" className="kg-value" onClick={() => onOpen(other)}>
                        {nameOf(other)}
                      </button>
                      <Meta st={st} />
                      <button
                        type="button"
                        className="btn btn-ghost btn-small"
                        aria-label={`Delete the link ${shortId(st.predicate)} ${outgoing ? 'to' : 'from'} ${nameOf(other)}`}
                        onClick={() => onRemove([toKG(st)], `Delete the link ${shortId(st.predicate)}`, `delete link ${shortId(st.subject)} → ${shortId(other)}`)}
                      >
                        ✕
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
            {hidden > 0 && (
              <div className="kg-more">
                <span className="muted small">{hidden} more not shown.</span>
                <button type="button" className="btn btn-small" onClick={() => onExpand(Math.min(LINKS_MAX, cap + LINKS_PAGE * 2))}>
                  Show more
                </button>
                <button type="button" className="btn btn-small" onClick={() => onExpand(LINKS_MAX)}>
                  Show all {Math.min(LINKS_MAX, shownLinks + hidden)}
                </button>
              </div>
            )}
          </section>
        </>
      )}
    </div>
  );
}
