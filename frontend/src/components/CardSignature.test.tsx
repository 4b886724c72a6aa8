import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { useHub } from '../state/hub';
import { SignatureBadge, SignatureWarning } from './CardSignature';

const base: AgentInfo = {
  id: 'w',
  name: 'Weather',
  description: '',
  kind: 'remote',
  url: 'https://w.example.com',
  cardUrl: 'https://w.example.com/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0'],
  card: {},
  problems: [],
};

const changed: AgentInfo = {
  ...base,
  signature: { state: 'key_changed', detail: 'the card verifies with key NEW, but key OLD was pinned', pinnedKey: 'OLD', pendingKey: 'NEW', blocked: true },
};

/** The warning and the badge for the agent as the hub state has it (so trusting updates it). */
function Live() {
  const { agents } = useHub();
  const a = agents.find((x) => x.id === 'w');
  return a ? (
    <>
      <SignatureBadge signature={a.signature} />
      <SignatureWarning agent={a} />
    </>
  ) : null;
}

async function setup(agent: AgentInfo) {
  const r = await renderWithHub(<Live />);
  await hub(() => r.socket.replyAll('agents.list', { agents: [agent] }));
  return r;
}

describe('CardSignature', () => {
  it('holds back a card whose interfaces are on other hosts until the owner agrees', async () => {
    const elsewhere: AgentInfo = { ...base, signature: { state: 'unsigned', blocked: true, foreignHosts: ['api.other.example'] } };
    const { socket } = await setup(elsewhere);
    const warning = screen.getByTestId('signature-warning');
    expect(warning.textContent).toContain('sends the hub to other hosts');
    expect(warning.textContent).toContain('api.other.example');
    await userEvent.click(screen.getByRole('button', { name: 'Use these hosts' }));
    const req = socket.request('agents.trustCard');
    expect(req.params).toEqual({ id: 'w' });
    await hub(() => socket.reply(req.id, { ...base, signature: { state: 'unsigned', blocked: false, confirmed: true, foreignHosts: ['api.other.example'] } }));
    expect(screen.queryByTestId('signature-warning')).toBeNull();
  });

  it('warns of a changed key, shows both keys, and trusts the new one on confirm', async () => {
    const { socket } = await setup(changed);
    expect(screen.getByTestId('signature-badge').textContent).toBe('⚠ Signing key changed');
    const warning = screen.getByTestId('signature-warning');
    expect(warning.textContent).toContain('will not talk to this agent until you confirm');
    expect(warning.textContent).toContain('OLD');
    expect(warning.textContent).toContain('NEW');
    await userEvent.click(screen.getByRole('button', { name: 'Trust the new key' }));
    const req = socket.request('agents.trustCard');
    expect(req.params).toEqual({ id: 'w' });
    await hub(() => socket.reply(req.id, { ...base, signature: { state: 'signed', pinnedKey: 'NEW', blocked: false } }));
    expect(screen.queryByTestId('signature-warning')).toBeNull();
    expect(screen.getByTestId('signature-badge').textContent).toBe('✓ Signed');
  });

  it('offers to trust an invalid card anyway, and says why the hub refused', async () => {
    const { socket } = await setup({ ...base, signature: { state: 'invalid', detail: 'signature 1: alg "none" is not accepted', blocked: true } });
    expect(screen.getByTestId('signature-warning').textContent).toContain('alg "none" is not accepted');
    await userEvent.click(screen.getByRole('button', { name: 'Trust this card anyway' }));
    await hub(() => socket.fail(socket.request('agents.trustCard').id, 'not_found', 'no such agent'));
    expect(screen.getByRole('status').textContent).toBe('no such agent');
  });

  it('shows unsigned and confirmed cards without a warning', async () => {
    await setup({ ...base, signature: { state: 'invalid', blocked: false, confirmed: true } });
    expect(screen.queryByTestId('signature-warning')).toBeNull();
    expect(screen.getByTestId('signature-badge').textContent).toBe('⚠ Signature invalid (accepted)');
  });
});
