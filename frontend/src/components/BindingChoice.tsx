import { useEffect, useRef, useState } from 'react';
import type { AgentInfo } from '../api/types';
import { useHub } from '../state/hub';

/** A binding as people read it. */
export const BINDING_LABEL: Record<string, string> = {
  JSONRPC: 'JSON-RPC',
  'HTTP+JSON': 'HTTP+JSON (REST)',
  GRPC: 'gRPC',
};

/**
 * Which of A2A's bindings the hub talks to a remote agent over: automatic (JSON-RPC when its card
 * offers it, else REST, else gRPC) or one the owner picks among those the card offers
 * (agents.setBinding). The hub still falls back to the card's others when the chosen one cannot be
 * reached.
 */
export function BindingChoice({ agent }: { agent: AgentInfo }) {
  const { client, updateAgent } = useHub();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const offered = agent.bindings ?? [];
  // Which binding is in use changes with calls (a fallback, a first chat), not with the agent's
  // record: read it afresh each time the agent is shown.
  // (updateAgent changes with every change of the agent list, this one included: not a dependency.)
  const update = useRef(updateAgent);
  update.current = updateAgent;
  useEffect(() => {
    let live = true;
    client
      .call('agents.get', { id: agent.id })
      .then((a) => live && update.current(a))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [client, agent.id]);
  const choose = async (binding: string) => {
    setBusy(true);
    setError('');
    try {
      updateAgent(await client.call('agents.setBinding', { id: agent.id, binding }));
    } catch (err) {
      setError((err as Error)?.message || 'Could not change the binding.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <dt>
        <label htmlFor={`binding-${agent.id}`}>Binding</label>
      </dt>
      <dd>
        <select
          id={`binding-${agent.id}`}
          data-testid="agent-binding"
          value={agent.binding || 'auto'}
          disabled={busy || offered.length < 2}
          onChange={(e) => void choose(e.target.value)}
        >
          <option value="auto">Automatic{offered[0] ? ` (${BINDING_LABEL[offered[0]] ?? offered[0]})` : ''}</option>
          {offered.map((b) => (
            <option key={b} value={b}>
              {BINDING_LABEL[b] ?? b}
            </option>
          ))}
        </select>{' '}
        <span className="muted small" data-testid="agent-binding-in-use">
          {agent.bindingInUse ? `in use: ${BINDING_LABEL[agent.bindingInUse] ?? agent.bindingInUse}` : 'not used yet'}
        </span>
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
      </dd>
    </>
  );
}
