import { useEffect, useState } from 'react';
import type { PushSummary } from '../api/types';
import { useHub } from '../state/hub';

/** 86400 → "24h", 90 → "1m 30s" (hours, as the --push-give-up flag and the README say them). */
export function giveUpText(seconds: number): string {
  const parts: string[] = [];
  let left = Math.round(seconds);
  for (const [unit, size] of [['h', 3600], ['m', 60], ['s', 1]] as const) {
    if (left >= size) {
      parts.push(`${Math.floor(left / size)}${unit}`);
      left %= size;
    }
  }
  return parts.slice(0, 2).join(' ') || '0s';
}

/** The one line about a task's push notifications, e.g. "Push: delivered 5 · failed 1: webhook answered 500 (gave up after 24h)". */
export function pushText(p: PushSummary): string {
  const bits = [`delivered ${p.delivered}`];
  if (p.pending > 0) bits.push(p.lastError ? `pending ${p.pending}, retrying: ${p.lastError}` : `pending ${p.pending}`);
  if (p.failed > 0) bits.push(`failed ${p.failed}: ${p.lastError || 'gave up'} (gave up after ${giveUpText(p.giveUpAfterSeconds)})`);
  if (p.canceled > 0) bits.push(`canceled ${p.canceled}`);
  return `Push: ${bits.join(' · ')}`;
}

/** A task's push delivery, from its detail and then live from the hub's "push" topic. */
export function PushLine({ agent, taskId, initial }: { agent: string; taskId: string; initial?: PushSummary }) {
  const { client } = useHub();
  const [push, setPush] = useState<PushSummary | undefined>(initial);
  useEffect(() => setPush(initial), [initial]);
  useEffect(
    () =>
      client.on('push', (u) => {
        if (u && u.agent === agent && u.taskId === taskId && u.push) setPush(u.push);
      }),
    [client, agent, taskId],
  );
  if (!push) return null;
  const failed = push.failed > 0;
  return (
    <p className={failed ? 'push-line push-failed' : 'push-line muted small'} data-testid="push-line" role={failed ? 'alert' : undefined}>
      {pushText(push)}
    </p>
  );
}
