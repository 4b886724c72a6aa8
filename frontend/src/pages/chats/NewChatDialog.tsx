// The "New chat" dialog: picks the agent to talk to. It exists apart from the page so the page reads
// as its sidebar and its views; it starts a chat (useStartChat) and touches nothing else.

import type { AgentInfo } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { ErrorBox } from '../../components/ErrorBox';
import { useHub } from '../../state/hub';
import { useStartChat } from '../../state/useChat';

/** Agents the owner can chat with: this hub's own (the demo agent, the hub itself), then added ones by name. */
export function chatAgents(agents: AgentInfo[]): AgentInfo[] {
  const rank = (a: AgentInfo) => (a.kind === 'local' ? 0 : a.kind === 'hub' ? 1 : 2);
  return agents
    .filter((a) => a.canChat || a.kind === 'remote')
    .sort((a, b) => rank(a) - rank(b) || (a.name || a.id).localeCompare(b.name || b.id));
}

export function NewChatDialog({ onClose }: { onClose: () => void }) {
  const { agents, agentsLoaded } = useHub();
  const { start, busy, error } = useStartChat();
  const list = chatAgents(agents);
  return (
    <Dialog title="New chat" onClose={onClose}>
      {list.length === 0 ? (
        <p>
          {agentsLoaded ? 'There is no agent to chat with yet. ' : 'Loading agents… '}
          <a href="#/agents" onClick={onClose}>
            Add one by its URL on the Agents page
          </a>
          .
        </p>
      ) : (
        <>
          <p className="muted small">Pick the agent to talk to. Everything you exchange is recorded on this computer.</p>
          <ul className="agent-pick" aria-label="Agents to chat with">
            {list.map((a) => (
              <li key={a.id}>
                <button
                  type="button"
                  className="agent-pick-btn"
                  aria-label={`Chat with ${a.name || a.id}`}
                  disabled={busy}
                  onClick={() =>
                    void start(a.id).then((c) => {
                      if (c) onClose();
                    })
                  }
                >
                  <span className="avatar" aria-hidden="true">
                    {(a.name || a.id || '?').trim().charAt(0).toUpperCase()}
                  </span>
                  <span className="agent-pick-text">
                    <span className="agent-pick-name">{a.name || a.id}</span>
                    {a.description && <span className="muted small agent-pick-desc">{a.description}</span>}
                  </span>
                  <span className={`online ${a.online ? 'is-online' : 'is-offline'}`}>
                    <span className="dot" aria-hidden="true" />
                    {a.online ? 'online' : 'offline'}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {error && <ErrorBox message={error} context="agent" />}
    </Dialog>
  );
}
