import { useEffect, useState } from 'react';
import type { StateInfo } from '../api/client';

/** Shown while the hub is unreachable; the client retries by itself with backoff. */
export function ConnectionBanner({ conn, onRetry }: { conn: StateInfo; onRetry: () => void }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (conn.state !== 'reconnecting') return;
    const t = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(t);
  }, [conn.state]);
  if (conn.state !== 'reconnecting' && conn.state !== 'connecting') return null;
  if (conn.state === 'connecting' && conn.connectionId === 0) {
    return (
      <div className="connection-banner info" role="status" data-testid="connection-banner">
        Connecting to the hub…
      </div>
    );
  }
  const secs = conn.retryAt ? Math.max(0, Math.ceil((conn.retryAt - now) / 1000)) : 0;
  return (
    <div className="connection-banner" role="status" data-testid="connection-banner">
      <span className="pulse" aria-hidden="true" />
      <span>
        Not connected to the hub — retrying…
        {conn.retryAt && secs > 0 ? <span className="muted"> next attempt in {secs}s</span> : null}
      </span>
      <button type="button" className="btn btn-small" onClick={onRetry}>
        Retry now
      </button>
    </div>
  );
}
