import { useState } from 'react';

const PAGE = 200;

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return v !== null && typeof v === 'object';
}

function Primitive({ value }: { value: unknown }) {
  if (value === null) return <span className="json-null">null</span>;
  switch (typeof value) {
    case 'string':
      return <span className="json-string">{JSON.stringify(value)}</span>;
    case 'number':
      return <span className="json-number">{String(value)}</span>;
    case 'boolean':
      return <span className="json-bool">{String(value)}</span>;
    default:
      return <span className="json-null">{String(value)}</span>;
  }
}

function Node({ name, value, depth, openDepth }: { name: string | null; value: unknown; depth: number; openDepth: number }) {
  const [open, setOpen] = useState(depth < openDepth);
  const [shown, setShown] = useState(PAGE);
  const key = name !== null ? <span className="json-key">{name}: </span> : null;
  if (!isContainer(value)) {
    return (
      <div className="json-line">
        {key}
        <Primitive value={value} />
      </div>
    );
  }
  const isArr = Array.isArray(value);
  const entries: [string, unknown][] = isArr ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const summary = isArr ? `[${entries.length} item${entries.length === 1 ? '' : 's'}]` : `{${entries.length} key${entries.length === 1 ? '' : 's'}}`;
  if (entries.length === 0) {
    return (
      <div className="json-line">
        {key}
        <span className="json-punct">{isArr ? '[]' : '{}'}</span>
      </div>
    );
  }
  return (
    <div className="json-node">
      <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="json-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {key}
        <span className="json-punct">{summary}</span>
      </button>
      {open && (
        <div className="json-children">
          {entries.slice(0, shown).map(([k, v]) => (
            <Node key={k} name={isArr ? null : k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown && (
            <button type="button" className="btn btn-small" onClick={() => setShown((s) => s + PAGE)}>
              Show {Math.min(PAGE, entries.length - shown)} more of {entries.length - shown}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** Collapsible, escaped view of any JSON value. Children of closed nodes are not rendered. */
export function JsonTree({ value, openDepth = 2, label }: { value: unknown; openDepth?: number; label?: string }) {
  return (
    <div className="json-tree" role="group" aria-label={label}>
      <Node name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
