import { TASK_STATES } from '../api/types';

const KNOWN = new Set<string>(TASK_STATES);

/** A task state as coloured text, e.g. "working". */
export function StateBadge({ state }: { state: string | undefined }) {
  const s = typeof state === 'string' && state ? state : 'unknown';
  const cls = KNOWN.has(s) ? s : 'unknown';
  return (
    <span className={`badge state state-${cls}`} data-state={cls}>
      {s}
    </span>
  );
}
