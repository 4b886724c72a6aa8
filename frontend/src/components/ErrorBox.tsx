import { explain, type ErrorContext } from '../lib/errors';

/**
 * An error as a person reads it: one sentence, what to try, the raw message folded away, and Retry
 * where trying again makes sense.
 */
export function ErrorBox({
  message,
  context = 'generic',
  onRetry,
  retryLabel = 'Retry',
  busy = false,
  role = 'alert',
}: {
  message: string;
  context?: ErrorContext;
  onRetry?: () => void;
  retryLabel?: string;
  busy?: boolean;
  role?: 'alert' | 'status';
}) {
  const e = explain(message, context);
  return (
    <div className="error-box" role={role} data-testid="error-box">
      <p className="error-sentence">{e.sentence}</p>
      {e.fix && <p className="error-fix small">{e.fix}</p>}
      {e.details && e.details !== e.sentence && (
        <details className="error-details">
          <summary>Details</summary>
          <code className="break">{e.details}</code>
        </details>
      )}
      {onRetry && (
        <button type="button" className="btn btn-small" onClick={onRetry} disabled={busy}>
          {busy ? 'Retrying…' : retryLabel}
        </button>
      )}
    </div>
  );
}
