import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PushSummary } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { giveUpText, PushLine, pushText } from './PushLine';

const summary = (extra: Partial<PushSummary> = {}): PushSummary => ({
  configs: 1,
  delivered: 5,
  pending: 0,
  failed: 0,
  canceled: 0,
  giveUpAfterSeconds: 86400,
  ...extra,
});

describe('PushLine', () => {
  it('says how delivery stands, in words', () => {
    expect(pushText(summary())).toBe('Push: delivered 5');
    expect(pushText(summary({ pending: 2, lastError: 'webhook answered 503 Service Unavailable' }))).toBe(
      'Push: delivered 5 · pending 2, retrying: webhook answered 503 Service Unavailable',
    );
    expect(pushText(summary({ failed: 1, lastError: 'webhook answered 500 Internal Server Error', lastStatus: 500 }))).toBe(
      'Push: delivered 5 · failed 1: webhook answered 500 Internal Server Error (gave up after 24h)',
    );
    expect(giveUpText(3)).toBe('3s');
    expect(giveUpText(90)).toBe('1m 30s');
  });

  it('shows nothing for a task without push notifications, then a failure live, as a warning', async () => {
    const { container, socket } = await renderWithHub(<PushLine agent="demo" taskId="t1" />);
    expect(container.textContent).toBe('');

    await hub(() => socket.push({ topic: 'push', data: { agent: 'demo', taskId: 'other', push: summary() } }));
    expect(screen.queryByTestId('push-line')).toBeNull();

    await hub(() => socket.push({ topic: 'push', data: { agent: 'demo', taskId: 't1', push: summary({ delivered: 1 }) } }));
    expect(screen.getByTestId('push-line').textContent).toBe('Push: delivered 1');
    expect(screen.queryByRole('alert')).toBeNull();

    const failed = summary({ delivered: 1, failed: 2, lastError: 'webhook answered 500 Internal Server Error', giveUpAfterSeconds: 3 });
    await hub(() => socket.push({ topic: 'push', data: { agent: 'demo', taskId: 't1', push: failed } }));
    const line = screen.getByRole('alert');
    expect(line.textContent).toBe('Push: delivered 1 · failed 2: webhook answered 500 Internal Server Error (gave up after 3s)');
    expect(line.className).toContain('push-failed');
  });

  it('starts from the task detail', async () => {
    await renderWithHub(<PushLine agent="hub" taskId="t2" initial={summary({ pending: 1 })} />);
    expect(screen.getByTestId('push-line').textContent).toBe('Push: delivered 5 · pending 1');
  });
});
