import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { useHub } from '../state/hub';
import { Credentials } from './Credentials';

const agent: AgentInfo = {
  id: 'w',
  name: 'Weather',
  description: '',
  kind: 'remote',
  url: 'https://w.example.com',
  cardUrl: 'https://w.example.com/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['0.3'],
  card: {},
  problems: [],
  dialect: '0.3',
  streaming: false,
  auth: {
    schemes: [
      { name: 'key', kind: 'apiKey', in: 'header', paramName: 'X-Api-Key', saved: false },
      { name: 'oauth', kind: 'oauth2', tokenUrl: 'https://w.example.com/token', scopes: ['read'], saved: true },
      { name: 'mtls', kind: 'unsupported', unsupported: 'Mutual TLS is not supported by the hub.', saved: false },
      { name: 'jwt', kind: 'bearer', saved: false }, // not asked for by the card's alternatives
    ],
    alternatives: [['key'], ['oauth'], ['mtls']],
    required: true,
    satisfied: true,
    store: 'file /home/me/.config/agenthub/credentials.json',
  },
};

/** Renders the form for the agent as the hub state has it (so saving updates it). */
function Live() {
  const { agents } = useHub();
  const a = agents.find((x) => x.id === 'w');
  return a ? <Credentials agent={a} /> : null;
}

async function setup() {
  const r = await renderWithHub(<Live />);
  await hub(() => r.socket.replyAll('agents.list', { agents: [agent] }));
  return r;
}

const form = (name: string) => screen.getByRole('form', { name: `Credentials for ${name}` });

describe('Credentials', () => {
  it('lists only the schemes the card asks for, with the fields each needs', async () => {
    await setup();
    const schemes = screen.getAllByTestId('credential-scheme').map((s) => s.getAttribute('data-scheme'));
    expect(schemes).toEqual(['key', 'oauth', 'mtls']);
    expect(within(form('key')).getByLabelText('API key').getAttribute('type')).toBe('password');
    expect(screen.getByText(/Sent in the X-Api-Key header/)).toBeTruthy();
    expect(within(form('oauth')).getByLabelText('Client ID')).toBeTruthy();
    expect(within(form('oauth')).getByLabelText('Client secret').getAttribute('type')).toBe('password');
    expect(screen.getByText('https://w.example.com/token')).toBeTruthy();
    // unsupported: the reason, no form
    expect(screen.getByText('Mutual TLS is not supported by the hub.')).toBeTruthy();
    expect(screen.queryByRole('form', { name: 'Credentials for mtls' })).toBeNull();
    expect(screen.getByText(/the file \/home\/me\/.config\/agenthub\/credentials.json/)).toBeTruthy();
    expect(screen.getByTestId('credentials-summary').textContent).toContain('It accepts: key or oauth or mtls.');
  });

  it('saves a key with setCredential, never shows it again, and marks the scheme saved', async () => {
    const { socket, container } = await setup();
    const save = within(form('key')).getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    const input = within(form('key')).getByLabelText('API key') as HTMLInputElement;
    await userEvent.type(input, 'sk-very-secret');
    await userEvent.click(save);
    const req = socket.request('agents.setCredential');
    expect(req.params).toEqual({ id: 'w', scheme: 'key', apiKey: 'sk-very-secret' });
    const after: AgentInfo = { ...agent, auth: { ...agent.auth!, schemes: agent.auth!.schemes!.map((s) => (s.name === 'key' ? { ...s, saved: true } : s)) } };
    await hub(() => socket.reply(req.id, after));
    expect(input.value).toBe('');
    expect(container.innerHTML).not.toContain('sk-very-secret');
    const key = screen.getAllByTestId('credential-scheme')[0];
    expect(within(key).getByTestId('credential-saved').textContent).toBe('saved');
    expect(within(key).getByRole('status').textContent).toBe('Saved.');
  });

  it('needs both oauth2 fields, and forgets a saved credential', async () => {
    const { socket } = await setup();
    const f = form('oauth');
    await userEvent.type(within(f).getByLabelText('Client ID'), 'my-client');
    expect((within(f).getByRole('button', { name: 'Save' }) as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(within(f).getByLabelText('Client secret'), 's3');
    await userEvent.click(within(f).getByRole('button', { name: 'Save' }));
    const set = socket.request('agents.setCredential');
    expect(set.params).toEqual({ id: 'w', scheme: 'oauth', clientId: 'my-client', clientSecret: 's3' });
    // nothing else can be done to the scheme while its save is in flight
    expect((within(f).getByRole('button', { name: 'Forget' }) as HTMLButtonElement).disabled).toBe(true);
    await hub(() => socket.reply(set.id, agent));

    await userEvent.click(within(f).getByRole('button', { name: 'Forget' }));
    const clear = socket.request('agents.clearCredential');
    expect(clear.params).toEqual({ id: 'w', scheme: 'oauth' });
    const forgotten: AgentInfo = { ...agent, auth: { ...agent.auth!, schemes: agent.auth!.schemes!.map((s) => (s.name === 'oauth' ? { ...s, saved: false } : s)) } };
    await hub(() => socket.reply(clear.id, forgotten));
    expect(within(form('oauth')).queryByRole('button', { name: 'Forget' })).toBeNull();
    expect(within(form('oauth')).getByRole('status').textContent).toBe('Forgotten.');
    // only saved schemes can be forgotten
    expect(within(form('key')).queryByRole('button', { name: 'Forget' })).toBeNull();
  });

  it('shows the hub’s refusal', async () => {
    const { socket } = await setup();
    await userEvent.type(within(form('key')).getByLabelText('API key'), 'x');
    await userEvent.click(within(form('key')).getByRole('button', { name: 'Save' }));
    await hub(() => socket.fail(socket.request('agents.setCredential').id, 'internal', 'keyring unavailable'));
    expect(within(form('key')).getByRole('alert').textContent).toBe('keyring unavailable');
  });

  it('says when the card asks for nothing', async () => {
    const { socket } = await renderWithHub(<Live />);
    await hub(() => socket.replyAll('agents.list', { agents: [{ ...agent, auth: { schemes: [], alternatives: [], required: false, satisfied: true, store: 'keyring' } }] }));
    expect(screen.getByText('This agent’s card asks for no credentials.')).toBeTruthy();
  });
});
