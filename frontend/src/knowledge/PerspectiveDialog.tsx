// The perspective editor: the rules of a perspective, each choosing what it matches (a type, a
// predicate a node has, or a numeric range of a predicate) and what it sets (colour, size, shape,
// caption). Saving under a new name keeps the old perspective and adds this one.

import { useState, type FormEvent } from 'react';
import { Dialog } from '../components/Dialog';
import { SHAPES, typeStyle, type Shape } from './graph';
import { validPerspective, type Match, type Perspective, type Rule } from './perspective';

export function PerspectiveDialog({
  initial,
  onSave,
  onDelete,
  onClose,
}: {
  initial: Perspective;
  onSave: (p: Perspective) => void;
  onDelete?: (name: string) => void;
  onClose: () => void;
}) {
  const [name, setName] = useState(initial.name);
  const [rules, setRules] = useState<Rule[]>(initial.rules);
  const [error, setError] = useState('');

  const setRule = (i: number, r: Rule) => setRules((rs) => rs.map((x, j) => (j === i ? r : x)));
  const setMatch = (i: number, m: Match) => setRule(i, { ...rules[i], match: m });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const p = validPerspective({ name, rules });
    if (!p) {
      setError('A perspective needs a name.');
      return;
    }
    if (p.rules.length !== rules.length) {
      setError('Each rule needs a type or a predicate.');
      return;
    }
    onSave(p);
    onClose();
  };

  const num = (s: string) => (s.trim() === '' || !Number.isFinite(Number(s)) ? undefined : Number(s));

  return (
    <Dialog title="Perspective" onClose={onClose}>
      <form className="kg-form kg-perspective" onSubmit={submit}>
        <label className="kg-field">
          <span className="field-label">Perspective name</span>
          <input type="text" value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <p className="muted small">Rules apply in order; a later rule overrides what an earlier one set.</p>
        <ol className="kg-rules">
          {rules.map((r, i) => {
            const m = r.match;
            const what = m.kind === 'type' ? m.type : m.predicate;
            const n = i + 1;
            return (
              <li key={i} className="kg-rule" data-testid="kg-rule">
                <select aria-label={`Rule ${n}: matches`} value={m.kind} onChange={(e) => {
                  const k = e.target.value as Match['kind'];
                  setMatch(i, k === 'type' ? { kind: 'type', type: what } : k === 'predicate' ? { kind: 'predicate', predicate: what } : { kind: 'range', predicate: what });
                }}>
                  <option value="type">type is</option>
                  <option value="predicate">has predicate</option>
                  <option value="range">number in range</option>
                </select>
                <input
                  type="text"
                  aria-label={`Rule ${n}: ${m.kind === 'type' ? 'type' : 'predicate'}`}
                  placeholder={m.kind === 'type' ? 'ex:Person' : 'schema:age'}
                  value={what}
                  onChange={(e) => setMatch(i, m.kind === 'type' ? { kind: 'type', type: e.target.value } : { ...m, predicate: e.target.value })}
                />
                {m.kind === 'range' && (
                  <>
                    <input type="number" aria-label={`Rule ${n}: from (inclusive)`} placeholder="from" value={m.min ?? ''} onChange={(e) => setMatch(i, { ...m, min: num(e.target.value) })} />
                    <input type="number" aria-label={`Rule ${n}: below`} placeholder="below" value={m.max ?? ''} onChange={(e) => setMatch(i, { ...m, max: num(e.target.value) })} />
                  </>
                )}
                <input
                  type="color"
                  aria-label={`Rule ${n}: colour`}
                  value={r.color ?? (m.kind === 'type' ? typeStyle(m.type).color : '#8a8f98')}
                  onChange={(e) => setRule(i, { ...r, color: e.target.value })}
                />
                <input
                  type="number"
                  min={4}
                  max={200}
                  aria-label={`Rule ${n}: size`}
                  placeholder="size"
                  value={r.size ?? ''}
                  onChange={(e) => setRule(i, { ...r, size: num(e.target.value) })}
                />
                <select aria-label={`Rule ${n}: shape`} value={r.shape ?? ''} onChange={(e) => setRule(i, { ...r, shape: (e.target.value || undefined) as Shape | undefined })}>
                  <option value="">shape: as the type</option>
                  {SHAPES.map((s) => (
                    <option key={s} value={s}>
                      {s}
                    </option>
                  ))}
                </select>
                <input
                  type="text"
                  aria-label={`Rule ${n}: caption predicate`}
                  placeholder="caption: label"
                  value={r.caption ?? ''}
                  onChange={(e) => setRule(i, { ...r, caption: e.target.value || undefined })}
                />
                <button type="button" className="btn btn-small" aria-label={`Remove rule ${n}`} onClick={() => setRules((rs) => rs.filter((_, j) => j !== i))}>
                  Remove
                </button>
              </li>
            );
          })}
        </ol>
        <button type="button" className="btn btn-small" onClick={() => setRules((rs) => [...rs, { match: { kind: 'type', type: '' } }])}>
          Add rule
        </button>
        {error && (
          <p className="kg-error" role="alert">
            {error}
          </p>
        )}
        <div className="kg-form-actions">
          {onDelete && (
            <button type="button" className="btn btn-danger" onClick={() => { onDelete(initial.name); onClose(); }}>
              Delete perspective
            </button>
          )}
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary">
            Save perspective
          </button>
        </div>
      </form>
    </Dialog>
  );
}
