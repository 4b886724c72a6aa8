import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { WireEntry } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { WireLog } from './WireLog';

const entry = (id: number, extra: Partial<WireEntry> = {}): WireEntry => ({
  id,
  at: `2025-01-01T10:00:${String(id).padStart(2, '0')}.250000000Z`,
  callId: `call-${id}`,
  kind: 'request',
  method: 'message/send',
  url: 'https://one.example.com/a2a',
  header: { 'Content-Type': 'application/json', 'X-Api-Key': '•••' },
  body: '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"parts":[{"kind":"text","text":"hi"}]}}}',
  ...extra,
});

describe('WireLog', () => {
  it('lists entries newest first, expands one, loads older, and takes live entries', async () => {
    const { socket } = await renderWithHub(<WireLog agentId="r1" />);
    const first = socket.request('wire.list');
    expect(first.params).toEqual({ agentId: 'r1', limit: 100 });
    await hub(() =>
      socket.reply(first.id, {
        entries: [entry(11, { kind: 'response', status: 200, durationMs: 1234, body: 'not json <b>at all</b>' }), entry(10)],
        next: 10,
      }),
    );
    const rows = () => within(screen.getByRole('list', { name: 'Raw log entries' })).getAllByTestId('wire-entry');
    expect(rows().map((r) => r.getAttribute('data-kind'))).toEqual(['response', 'request']);
    const top = within(rows()[0]).getByRole('button');
    expect(top.textContent).toContain('message/send');
    expect(top.textContent).toContain('200');
    expect(top.textContent).toContain('1.2s');
    expect(top.getAttribute('aria-expanded')).toBe('false');

    // expand the request: its header (secrets masked by the hub) and its body pretty-printed
    const req = within(rows()[1]).getByRole('button');
    await userEvent.click(req);
    expect(req.getAttribute('aria-expanded')).toBe('true');
    const headers = within(rows()[1]).getByRole('table', { name: 'Header' });
    expect(within(headers).getByText('•••')).toBeTruthy();
    expect(within(rows()[1]).getByTestId('wire-body').textContent).toContain('"method": "message/send"');
    // a body that is not JSON is shown as text
    await userEvent.click(top);
    expect(within(rows()[0]).getByTestId('wire-body').textContent).toBe('not json <b>at all</b>');
    expect(document.querySelector('.wire-body b')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Load older' }));
    const older = socket.request('wire.list');
    expect(older.params).toEqual({ agentId: 'r1', before: 10, limit: 100 });
    await hub(() => socket.reply(older.id, { entries: [entry(9), entry(10)] }));
    expect(rows()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Load older' })).toBeNull();

    await hub(() => socket.push({ topic: 'wire', data: { agentId: 'other', entry: entry(99) } }));
    expect(rows()).toHaveLength(3);
    await hub(() => socket.push({ topic: 'wire', data: { agentId: 'r1', entry: entry(12, { kind: 'event', body: 'data: {"kind":"status-update"}' }) } }));
    expect(rows()).toHaveLength(4);
    expect(rows()[0].getAttribute('data-kind')).toBe('event');
  });

  it('shows a gRPC call\'s status, a failed one marked', async () => {
    const { socket } = await renderWithHub(<WireLog agentId="r1" />);
    const first = socket.request('wire.list');
    const grpc = { method: '/lf.a2a.v1.A2AService/GetTask', url: '127.0.0.1:47572', kind: 'response' };
    await hub(() =>
      socket.reply(first.id, {
        entries: [
          entry(21, { ...grpc, header: { 'grpc-status': 'NotFound' }, body: 'task not found' }),
          entry(20, { ...grpc, header: { 'grpc-status': 'OK' }, body: '{"id":"t1"}' }),
        ],
      }),
    );
    const statuses = screen.getAllByTestId('wire-status');
    expect(statuses.map((s) => s.textContent)).toEqual(['NotFound', 'OK']);
    expect(statuses.map((s) => s.classList.contains('no'))).toEqual([true, false]);
  });

  it('says when there is nothing yet', async () => {
    const { socket } = await renderWithHub(<WireLog agentId="r1" />);
    await hub(() => socket.replyAll('wire.list', { entries: null }));
    expect(screen.getByText(/Nothing yet/)).toBeTruthy();
  });
});
