// Small pieces of the explorer's side panel and canvas: the legend's shapes, a statement's certainty
// and provenance, the selected link's panel and the right-click menu.

import type { EdgeSingular } from 'cytoscape';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { authorshipIds, authorshipText, shortId, withAuthor, type GStatement, type Shape } from './graph';
import { displayName } from '../channels/names';
import { useAgentsIfAny } from '../state/hub';

/** A small drawing of a type's shape, for the legend. */
export function ShapeIcon({ shape, color }: { shape: Shape; color: string }) {
  const paths: Record<Shape, ReactNode> = {
    ellipse: <circle cx="8" cy="8" r="6" />,
    'round-rectangle': <rect x="2" y="3" width="12" height="10" rx="3" />,
    diamond: <path d="M8 1.5 14.5 8 8 14.5 1.5 8Z" />,
    hexagon: <path d="M4.5 2h7L15 8l-3.5 6h-7L1 8Z" />,
    triangle: <path d="M8 2 14.5 14h-13Z" />,
    pentagon: <path d="M8 1.5 14.5 6.2 12 14H4L1.5 6.2Z" />,
  };
  return (
    <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true" fill={color}>
      {paths[shape]}
    </svg>
  );
}

/** A statement's certainty and provenance, as the side panel shows them: who by name ("You", an
 * agent's name, a key's name), their ids in the tooltip. */
export function Meta({ st }: { st: GStatement }) {
  const agents = useAgentsIfAny();
  const c = typeof st.certainty === 'number' ? st.certainty : 1;
  const by = authorshipText(st, (id) => displayName(id, agents));
  const ids = authorshipIds(st);
  return (
    <span className="kg-meta small muted">
      <span className={c < 1 ? 'kg-uncertain' : ''}>certainty {c.toFixed(2)}</span>
      {by && (
        <>
          {' · '}
          <span title={ids || undefined}>{by}</span>
        </>
      )}
    </span>
  );
}

export function EdgePanel({
  edge,
  agentQuery,
  nameOf,
  onOpen,
  onDelete,
}: {
  edge: EdgeSingular;
  agentQuery: <T>(graphql: string, variables?: Record<string, unknown>) => Promise<T>;
  nameOf: (id: string) => string;
  onOpen: (id: string) => void;
  onDelete: () => void;
}) {
  const source = edge.data('source') as string;
  const target = edge.data('target') as string;
  const predicate = edge.data('predicate') as string;
  const [st, setSt] = useState<GStatement | null>(null);
  useEffect(() => {
    let live = true;
    void withAuthor((fields) =>
      agentQuery<{ statements: { items: GStatement[] } }>(
        `query Edge($s: ID!, $p: ID!, $o: ID!) { statements(subject: $s, predicate: $p, object: $o, first: 5) { items { ${fields} } } }`,
        { s: source, p: predicate, o: target },
      ),
    ).then(
      (d) => live && setSt(d.statements?.items?.[0] ?? null),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [agentQuery, source, predicate, target]);
  return (
    <div className="kg-node" data-testid="kg-edge-panel">
      <h2>{shortId(predicate)}</h2>
      <code className="break small">{predicate}</code>
      <p>
        <button type="button" className="kg-value" onClick={() => onOpen(source)}>
          {nameOf(source)}
        </button>{' '}
        →{' '}
        <button type="button" className="kg-value" onClick={() => onOpen(target)}>
          {nameOf(target)}
        </button>
      </p>
      {st && (
        <p>
          <Meta st={st} />
        </p>
      )}
      <div className="kg-actions">
        <button type="button" className="btn btn-small btn-danger" onClick={onDelete}>
          Delete link
        </button>
      </div>
    </div>
  );
}

export function ContextMenu({ x, y, items, onClose }: { x: number; y: number; items: { label: string; run: () => void }[]; onClose: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const away = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', away);
    return () => window.removeEventListener('mousedown', away);
  }, [onClose]);
  return (
    <div
      ref={ref}
      className="kg-menu"
      role="menu"
      style={{ left: x, top: y }}
      onKeyDown={(e) => {
        const its = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
        const i = its.indexOf(document.activeElement as HTMLElement);
        if (e.key === 'Escape') onClose();
        if (e.key === 'ArrowDown') its[(i + 1) % its.length]?.focus();
        if (e.key === 'ArrowUp') its[(i - 1 + its.length) % its.length]?.focus();
      }}
    >
      {items.map((it) => (
        <button
          key={it.label}
          type="button"
          role="menuitem"
          className="kg-menu-item"
          onClick={() => {
            onClose();
            it.run();
          }}
        >
          {it.label}
        </button>
      ))}
    </div>
  );
}
