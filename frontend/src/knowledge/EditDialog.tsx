import { useId, useState, type FormEvent } from 'react';
import { Dialog } from '../components/Dialog';

export interface EditField {
  name: string;
  label: string;
  value?: string;
  required?: boolean;
  /** Suggestions (a datalist): predicates or types already in the view. */
  suggestions?: string[];
  placeholder?: string;
}

export interface EditSubmit {
  values: Record<string, string>;
  justification: string;
  /** undefined: none given (the hub takes 1). */
  certainty?: number;
}

/** Parses the certainty field: blank is none; otherwise a number within [0, 1]. */
export function parseCertainty(text: string): { ok: true; value?: number } | { ok: false; error: string } {
  const t = text.trim();
  if (t === '') return { ok: true };
  const n = Number(t);
  if (!Number.isFinite(n) || n < 0 || n > 1) return { ok: false, error: 'Certainty is a number from 0 to 1.' };
  return { ok: true, value: n };
}

/**
 * Every edit of the graph asks why (the update's justification, kept with the statements) and, if
 * the person wants, how certain it is. The dialog stays open with the hub's answer when the update
 * is refused (an alignment rule, a conflict).
 */
export function EditDialog({
  title,
  summary,
  fields = [],
  submitLabel,
  withCertainty = true,
  onSubmit,
  onClose,
}: {
  title: string;
  summary?: string;
  fields?: EditField[];
  submitLabel: string;
  withCertainty?: boolean;
  onSubmit: (s: EditSubmit) => Promise<void>;
  onClose: () => void;
}) {
  const id = useId();
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f.name, f.value ?? ''])));
  const [justification, setJustification] = useState('');
  const [certainty, setCertainty] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const missing = fields.find((f) => f.required && (values[f.name] ?? '').trim() === '');
    if (missing) return setError(`${missing.label} is required.`);
    if (justification.trim() === '') return setError('Say why: the justification is kept with the change.');
    const c = parseCertainty(certainty);
    if (!c.ok) return setError(c.error);
    setBusy(true);
    setError('');
    try {
      await onSubmit({ values, justification: justification.trim(), certainty: c.value });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <Dialog title={title} onClose={onClose}>
      <form className="kg-form" onSubmit={submit}>
        {summary && <p className="kg-summary">{summary}</p>}
        {fields.map((f) => (
          <label key={f.name} className="kg-field">
            <span className="field-label">
              {f.label}
              {f.required ? '' : ' (optional)'}
            </span>
            <input
              type="text"
              value={values[f.name] ?? ''}
              placeholder={f.placeholder}
              list={f.suggestions?.length ? `${id}-${f.name}` : undefined}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
            {f.suggestions?.length ? (
              <datalist id={`${id}-${f.name}`}>
                {f.suggestions.map((s) => (
                  <option key={s} value={s} />
                ))}
              </datalist>
            ) : null}
          </label>
        ))}
        <label className="kg-field">
          <span className="field-label">Justification</span>
          <textarea value={justification} onChange={(e) => setJustification(e.target.value)} placeholder="Why this change?" rows={2} />
        </label>
        {withCertainty && (
          <label className="kg-field">
            <span className="field-label">Certainty, 0 to 1 (optional)</span>
            <input type="text" inputMode="decimal" value={certainty} onChange={(e) => setCertainty(e.target.value)} placeholder="1" />
          </label>
        )}
        {error && (
          <p className="kg-error" role="alert">
            {error}
          </p>
        )}
        <div className="kg-form-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : submitLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
