import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { hub, renderWithHub } from '../test/hub';
import { useHub } from '../state/hub';
import { BindingChoice } from './BindingChoice';

const agent: AgentInfo = {
  id: 'g',
  name: 'Many bindings',
  description: '',
  kind: 'remote',
  url: 'http://127.0.0.1:9000',
  cardUrl: 'http://127.0.0.1:9000/.well-known/agent-card.json',
  online: true,
  protocolVersions: ['1.0'],
  card: {},
  problems: [],
  bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
  binding: 'auto',
  bindingInUse: 'JSONRPC',
};

/** The choice for the agent as the hub state has it (so a change updates it). */
function Live() {
  const { agents } = useHub();
  const a = agents.find((x) => x.id === 'g');
  return a ? (
    <dl>
      <BindingChoice agent={a} />
    </dl>
  ) : null;
}

async function setup(a: AgentInfo) {
  const r = await renderWithHub(<Live />);
  await hub(() => r.socket.replyAll('agents.list', { agents: [a] }));
  return r;
}

describe('BindingChoice', () => {
  it('offers automatic and the card’s bindings, and sends the choice', async () => {
    const { socket } = await setup({ ...agent, bindingInUse: '' });
    // Shown, the agent is read afresh once: which binding is in use changes with calls.
    const get = socket.request('agents.get');
    expect(get.params).toEqual({ id: 'g' });
    await hub(() => socket.reply(get.id, agent));
    expect(socket.sent.filter((f) => f.method === 'agents.get')).toHaveLength(1);
    const select = screen.getByLabelText('Binding') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['Automatic (JSON-RPC)', 'JSON-RPC', 'HTTP+JSON (REST)', 'gRPC']);
    expect(select.value).toBe('auto');
    expect(screen.getByTestId('agent-binding-in-use').textContent).toBe('in use: JSON-RPC');
    await userEvent.selectOptions(select, 'gRPC');
    const req = socket.request('agents.setBinding');
    expect(req.params).toEqual({ id: 'g', binding: 'GRPC' });
    await hub(() => socket.reply(req.id, { ...agent, binding: 'GRPC', bindingInUse: '' }));
    expect((screen.getByLabelText('Binding') as HTMLSelectElement).value).toBe('GRPC');
    expect(screen.getByTestId('agent-binding-in-use').textContent).toBe('not used yet');
  });

  it('says why a choice was refused, and keeps the one in force', async () => {
    const { socket } = await setup(agent);
    await userEvent.selectOptions(screen.getByLabelText('Binding'), 'HTTP+JSON (REST)');
    const req = socket.request('agents.setBinding');
    await hub(() => socket.fail(req.id, 'invalid_params', 'binding not offered: Many bindings does not offer HTTP+JSON'));
    expect(screen.getByRole('alert').textContent).toContain('does not offer HTTP+JSON');
    expect((screen.getByLabelText('Binding') as HTMLSelectElement).value).toBe('auto');
  });

  it('has nothing to choose when the card offers one binding', async () => {
    await setup({ ...agent, bindings: ['JSONRPC'] });
    expect((screen.getByLabelText('Binding') as HTMLSelectElement).disabled).toBe(true);
  });
});
