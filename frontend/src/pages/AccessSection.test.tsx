import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AccessKey } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { AccessSection } from './AccessSection';

const KEY = 'ahk_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';
const bot: AccessKey = { id: 'agent://bot', name: 'bot', keyPrefix: 'ahk_01234567', createdAt: new Date().toISOString() };

async function setup(keys: AccessKey[] = [], anonymous = 'send') {
  const r = await renderWithHub(<AccessSection hubUrl="http://127.0.0.1:47470" rpcUrl="http://127.0.0.1:47470/a2a" />);
  await hub(() => {
    r.socket.replyAll('access.list', { principals: keys });
    r.socket.replyAll('access.policy', { anonymous });
  });
  return r;
}

describe('AccessSection', () => {
  it('without keys says what a key is for, with commands to paste', async () => {
    await setup();
    const empty = screen.getByTestId('access-empty');
    expect(empty.textContent).toContain('No keys yet');
    expect(empty.textContent).toContain("X-Api-Key: KEY");
    expect(empty.textContent).toContain("-u 'NAME:KEY'");
    expect((screen.getByRole('radio', { name: /Let them send messages/ }) as HTMLInputElement).checked).toBe(true);
  });

  it('lists keys by their first characters and when they were last used, never the key', async () => {
    const used = { ...bot, name: 'ci', id: 'agent://ci', lastUsedAt: new Date(Date.now() - 5 * 60_000).toISOString() };
    const { container } = await setup([bot, used]);
    const rows = screen.getAllByTestId('access-key');
    expect(rows.map((r) => r.getAttribute('data-name'))).toEqual(['bot', 'ci']);
    expect(within(rows[0]).getByText('ahk_01234567…')).toBeTruthy();
    expect(within(rows[0]).getByTestId('access-last-used').textContent).toBe('never used');
    expect(within(rows[1]).getByTestId('access-last-used').textContent).toBe('last used 5 min ago');
    expect(screen.queryByTestId('access-empty')).toBeNull();
    expect(container.innerHTML).not.toContain(KEY);
  });

  it('checks the name as it is typed, as the hub does', async () => {
    await setup([bot]);
    const input = screen.getByLabelText("New key's name");
    const create = screen.getByRole('button', { name: 'Create key' }) as HTMLButtonElement;
    expect(create.disabled).toBe(true);
    await userEvent.type(input, 'Build Bot');
    expect(screen.getByRole('alert').textContent).toMatch(/not allowed|lower-case/);
    expect(create.disabled).toBe(true);
    await userEvent.clear(input);
    await userEvent.type(input, 'bot');
    expect(screen.getByRole('alert').textContent).toMatch(/already a key named bot/);
    expect(create.disabled).toBe(true);
    await userEvent.clear(input);
    await userEvent.type(input, 'build-bot');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(create.disabled).toBe(false);
  });

  it('shows a new key once, with the commands that use it, and forgets it when dismissed', async () => {
    const { socket, container } = await setup();
    await userEvent.type(screen.getByLabelText("New key's name"), 'ci-bot');
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    const req = socket.request('access.add');
    expect(req.params).toEqual({ name: 'ci-bot' });
    const principal = { ...bot, id: 'agent://ci-bot', name: 'ci-bot' };
    await hub(() => socket.reply(req.id, { principal, key: KEY }));
    const box = screen.getByTestId('new-key-box');
    expect((within(box).getByLabelText('New API key') as HTMLInputElement).value).toBe(KEY);
    expect(box.textContent).toContain("won't be shown again");
    expect(box.textContent).toContain(`-u 'ci-bot:${KEY}'`);
    expect((screen.getByLabelText("New key's name") as HTMLInputElement).value).toBe('');
    // The other windows refetch on the pushed topic; so does this one.
    await hub(() => socket.push({ topic: 'access', data: { name: 'ci-bot' } }));
    await hub(() => socket.replyAll('access.list', { principals: [principal] }));
    expect(screen.getAllByTestId('access-key')).toHaveLength(1);
    await userEvent.click(within(box).getByRole('button', { name: 'I have copied it' }));
    expect(screen.queryByTestId('new-key-box')).toBeNull();
    expect(container.innerHTML).not.toContain(KEY);
  });

  it('a refused add says why and keeps the name', async () => {
    const { socket } = await setup();
    await userEvent.type(screen.getByLabelText("New key's name"), 'ci-bot');
    await userEvent.click(screen.getByRole('button', { name: 'Create key' }));
    await hub(() => socket.fail(socket.request('access.add').id, 'conflict', 'a principal of that name already exists'));
    expect(screen.getByRole('alert').textContent).toContain('already exists');
    expect((screen.getByLabelText("New key's name") as HTMLInputElement).value).toBe('ci-bot');
  });

  it('rotates only after a confirmation, then shows the new key once', async () => {
    const { socket } = await setup([bot]);
    await userEvent.click(screen.getByRole('button', { name: 'Rotate bot' }));
    const dialog = screen.getByRole('dialog', { name: 'Give bot a new key?' });
    expect(socket.sent.some((f) => f.method === 'access.rotate')).toBe(false);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(socket.sent.some((f) => f.method === 'access.rotate')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: 'Rotate bot' }));
    await userEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Rotate key' }));
    const req = socket.request('access.rotate');
    expect(req.params).toEqual({ name: 'bot' });
    await hub(() => socket.reply(req.id, { principal: bot, key: KEY }));
    expect(screen.queryByRole('dialog')).toBeNull();
    const box = screen.getByTestId('new-key-box');
    expect(box.textContent).toContain('New key for bot');
    expect(box.textContent).toContain('The old key, and every token made with it, no longer work.');
  });

  it('revokes only after a confirmation', async () => {
    const { socket } = await setup([bot]);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke bot' }));
    const dialog = screen.getByRole('dialog', { name: "Revoke bot's key?" });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    const req = socket.request('access.remove');
    expect(req.params).toEqual({ name: 'bot' });
    await hub(() => socket.reply(req.id, {}));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('sets the anonymous policy, and goes back to the stored one if the hub refuses', async () => {
    const { socket } = await setup([], 'send');
    const off = screen.getByRole('radio', { name: /Refuse them/ }) as HTMLInputElement;
    await userEvent.click(off);
    const req = socket.request('access.setPolicy');
    expect(req.params).toEqual({ anonymous: 'off' });
    await hub(() => socket.reply(req.id, { anonymous: 'off' }));
    expect(off.checked).toBe(true);

    await userEvent.click(screen.getByRole('radio', { name: /Let them read only/ }));
    await hub(() => socket.fail(socket.request('access.setPolicy').id, 'internal', 'disk full'));
    expect(off.checked).toBe(true);
    expect(screen.getByRole('alert').textContent).toBe('disk full');
  });

  it('follows a policy changed in another window', async () => {
    const { socket } = await setup([], 'send');
    await hub(() => socket.push({ topic: 'access', data: { name: '' } }));
    await hub(() => {
      socket.replyAll('access.list', { principals: [] });
      socket.replyAll('access.policy', { anonymous: 'read-public' });
    });
    expect((screen.getByRole('radio', { name: /Let them read only/ }) as HTMLInputElement).checked).toBe(true);
  });
});
