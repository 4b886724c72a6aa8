import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { AgentInfo, Problem } from '../api/types';
import { HubError } from '../api/client';
import { CopyButton } from '../components/CopyButton';
import { BindingChoice } from '../components/BindingChoice';
import { SignatureBadge, SignatureFacts, SignatureWarning } from '../components/CardSignature';
import { Credentials } from '../components/Credentials';
import { EmptyState } from '../components/EmptyState';
import { ErrorBox } from '../components/ErrorBox';
import { ExternalLink } from '../components/ExternalLink';
import { JsonTree } from '../components/JsonTree';
import { WireLog } from '../components/WireLog';
import { agentURL, readCard, type CardView } from '../lib/card';
import { prettyJson } from '../lib/parts';
import { hrefOf, navigate, type AgentView } from '../lib/router';
import { useListKeys } from '../lib/useListKeys';
import { useHub } from '../state/hub';
import { useStartChat } from '../state/useChat';

/** chats.start accepts it. */
const chatReady = (a: AgentInfo) => !!a.canChat || a.kind === 'remote';

const KIND_LABEL: Record<string, string> = { hub: 'This hub', local: 'Local', remote: 'Remote' };

function problemsOf(a: AgentInfo): Problem[] {
  return Array.isArray(a.problems) ? a.problems.filter((p) => p && typeof p === 'object') : [];
}

function ProblemFlag({ count }: { count: number }) {
  if (!count) return null;
  return (
    <span className="badge badge-warn" data-testid="agent-problems-flag">
      ⚠ {count} problem{count === 1 ? '' : 's'}
    </span>
  );
}

function OnlineDot({ online }: { online: boolean }) {
  return (
    <span className={`online ${online ? 'is-online' : 'is-offline'}`}>
      <span className="dot" aria-hidden="true" />
      {online ? 'online' : 'offline'}
    </span>
  );
}

function AgentCard({ agent, selected, compact }: { agent: AgentInfo; selected: boolean; compact: boolean }) {
  const card = useMemo(() => readCard(agent.card), [agent.card]);
  const problems = problemsOf(agent);
  const headingId = `agent-${agent.id}-name`;
  const skillNames = card.skills.map((s) => s.name);
  return (
    <article
      className={`agent-card ${selected ? 'selected' : ''} ${compact ? 'compact' : ''}`}
      data-testid="agent-card"
      data-agent-id={agent.id}
      aria-labelledby={headingId}
    >
      <div className="agent-card-top">
        <div className="avatar" aria-hidden="true">
          {(agent.name || agent.id || '?').trim().charAt(0).toUpperCase()}
        </div>
        <div className="agent-card-title">
          <h2 id={headingId}>
            <a href={hrefOf({ area: 'agents', agentId: agent.id })} className="stretched" aria-current={selected ? 'true' : undefined}>
              {agent.name || agent.id}
            </a>
          </h2>
          <div className="badges">
            <span className={`badge kind kind-${agent.kind}`}>{KIND_LABEL[agent.kind] ?? agent.kind}</span>
            <OnlineDot online={!!agent.online} />
            <ProblemFlag count={problems.length} />
            <SignatureBadge signature={agent.signature} />
          </div>
        </div>
      </div>
      {!compact && agent.description && <p className="agent-desc">{agent.description}</p>}
      {!compact && (
        <div className="skill-chips" aria-label="Skills">
          {skillNames.slice(0, 6).map((n, i) => (
            <span className="chip" key={i}>
              {n}
            </span>
          ))}
          {skillNames.length > 6 && <span className="chip muted">+{skillNames.length - 6}</span>}
          {skillNames.length === 0 && <span className="muted small">No skills listed</span>}
        </div>
      )}
      {!compact && chatReady(agent) && <CardChatButton agent={agent} />}
    </article>
  );
}

/** Chat, on an agent's card in the grid (above the card's stretched link). */
function CardChatButton({ agent }: { agent: AgentInfo }) {
  const chat = useStartChat();
  return (
    <div className="agent-card-actions">
      <button
        type="button"
        className="btn btn-small"
        disabled={chat.busy}
        aria-label={`Chat with ${agent.name || agent.id}`}
        onClick={() => void chat.start(agent.id)}
      >
        {chat.busy ? 'Starting…' : 'Chat'}
      </button>
      {chat.error && <ErrorBox message={chat.error} context="agent" />}
    </div>
  );
}

function YesNo({ v }: { v: boolean | undefined }) {
  if (v === undefined) return <span className="muted">not stated</span>;
  return <span className={v ? 'yes' : 'no'}>{v ? 'yes' : 'no'}</span>;
}

function Modes({ modes, isDefault }: { modes: string[]; isDefault: boolean }) {
  if (modes.length === 0) return <span className="muted">none stated</span>;
  return (
    <span className="modes">
      {modes.map((m, i) => (
        <code key={i} className="mode">
          {m}
        </code>
      ))}
      {isDefault && <span className="muted small"> (card default)</span>}
    </span>
  );
}

function Skills({ card, agent }: { card: CardView; agent: AgentInfo }) {
  const chat = useStartChat();
  const canTry = chatReady(agent);
  return (
    <section className="section" aria-labelledby="skills-h">
      <h3 id="skills-h">Skills ({card.skills.length})</h3>
      {card.skills.length === 0 && <p className="muted">This card lists no skills.</p>}
      <div className="skills">
        {card.skills.map((s, i) => (
          <article className="skill" key={`${s.id}-${i}`} data-testid="agent-skill">
            <div className="skill-head">
              <h4>{s.name}</h4>
              <code className="muted small">{s.id}</code>
            </div>
            {s.description && <p className="skill-desc">{s.description}</p>}
            {s.tags.length > 0 && (
              <div className="skill-chips" aria-label="Tags">
                {s.tags.map((t, j) => (
                  <span className="chip" key={j}>
                    {t}
                  </span>
                ))}
              </div>
            )}
            {s.examples.length > 0 && (
              <div className="examples">
                <span className="field-label">Examples</span>
                <ul>
                  {s.examples.map((ex, j) => (
                    <li key={j}>
                      <q>{ex}</q>
                      {canTry && (
                        <button
                          type="button"
                          className="btn btn-small"
                          disabled={chat.busy}
                          aria-label={`Try “${ex.slice(0, 40)}” in a new chat`}
                          onClick={() => void chat.start(agent.id, ex)}
                        >
                          Try it
                        </button>
                      )}
                      <CopyButton text={ex} label={`Copy example “${ex.slice(0, 40)}”`} />
                    </li>
                  ))}
                </ul>
              </div>
            )}
            <dl className="kv compact">
              <dt>Input</dt>
              <dd>
                <Modes modes={s.inputModes} isDefault={s.inputDefault} />
              </dd>
              <dt>Output</dt>
              <dd>
                <Modes modes={s.outputModes} isDefault={s.outputDefault} />
              </dd>
            </dl>
          </article>
        ))}
      </div>
      {chat.error && <ErrorBox message={chat.error} context="agent" />}
    </section>
  );
}

/**
 * Adds a remote agent by its URL: a base URL or the card's own URL, made whole when typed without
 * its scheme (agentURL). Its error shows below the page header (onError), where it can wrap, not
 * inside the header; Retry is offered (retryRef) only where trying the same URL again can help.
 */
function AddAgentForm({ onError, retryRef }: { onError: (message: string) => void; retryRef: { current: (() => void) | null } }) {
  const { client } = useHub();
  const [url, setUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const setError = onError;
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!url.trim() || busy) return;
    const whole = agentURL(url);
    setUrl(whole); // the person sees the URL that is tried
    setBusy(true);
    setError('');
    retryRef.current = null;
    try {
      const added = await client.call('agents.add', { url: whole });
      setUrl('');
      navigate({ area: 'agents', agentId: added.id });
    } catch (err) {
      // The same URL again helps when the agent could not be reached or answered badly, not when
      // the URL itself was refused.
      const refused = err instanceof HubError && (err.code === 'invalid_params' || err.code === 'conflict');
      retryRef.current = refused ? null : () => void submit();
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="add-agent" onSubmit={submit} aria-label="Add an agent">
      <input
        type="url"
        className="filter"
        aria-label="Agent URL"
        placeholder="https://agent.example.com"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
        disabled={busy}
      />
      <button type="submit" className="btn btn-primary" disabled={busy || !url.trim()}>
        {busy ? 'Adding…' : 'Add agent'}
      </button>
    </form>
  );
}

/** Chat, for every agent the hub can talk to; refresh and remove, for agents the owner added. */
function AgentActions({ agent }: { agent: AgentInfo }) {
  const { client } = useHub();
  const [busy, setBusy] = useState('');
  const chat = useStartChat();
  const remote = agent.kind === 'remote';
  const act = async (what: 'agents.refresh' | 'agents.remove') => {
    setBusy(what);
    try {
      await client.call(what, { id: agent.id });
      if (what === 'agents.remove') navigate('#/agents');
    } catch {
      /* the card shows lastError; a failed remove leaves the agent listed */
    } finally {
      setBusy('');
    }
  };
  return (
    <div className="remote-actions">
      {agent.lastError ? (
        <ErrorBox message={agent.lastError} context="agent" role="status" onRetry={() => act('agents.refresh')} busy={busy === 'agents.refresh'} />
      ) : null}
      <button type="button" className="btn btn-primary" disabled={chat.busy} onClick={() => void chat.start(agent.id)}>
        {chat.busy ? 'Starting…' : 'Chat'}
      </button>
      {agent.fetchedAt && <span className="muted small">Card read {new Date(agent.fetchedAt).toLocaleString()}</span>}
      {remote && (
        <>
          <button type="button" className="btn" disabled={!!busy} onClick={() => act('agents.refresh')}>
            {busy === 'agents.refresh' ? 'Refreshing…' : 'Refresh card'}
          </button>
          <button type="button" className="btn btn-danger" disabled={!!busy} onClick={() => act('agents.remove')}>
            Remove
          </button>
        </>
      )}
      {chat.error && <ErrorBox message={chat.error} context="agent" onRetry={() => void chat.start(agent.id)} />}
    </div>
  );
}

/** Overview / Raw log switch of a remote agent's detail (links, so each view has a deep link). */
function DetailTabs({ agent, view }: { agent: AgentInfo; view?: AgentView }) {
  const log = view === 'log';
  return (
    <nav className="detail-tabs" aria-label="Agent views">
      <a href={hrefOf({ area: 'agents', agentId: agent.id })} className="detail-tab" aria-current={!log ? 'page' : undefined}>
        Overview
      </a>
      <a href={hrefOf({ area: 'agents', agentId: agent.id, view: 'log' })} className="detail-tab" aria-current={log ? 'page' : undefined}>
        Raw log
      </a>
    </nav>
  );
}

/** The agent's avatar, name, kind and reachability; children add badges. */
function DetailHead({ agent, children }: { agent: AgentInfo; children?: ReactNode }) {
  return (
    <header className="detail-head">
      <div className="avatar large" aria-hidden="true">
        {(agent.name || agent.id || '?').trim().charAt(0).toUpperCase()}
      </div>
      <div>
        <h2>{agent.name || agent.id}</h2>
        <div className="badges">
          <span className={`badge kind kind-${agent.kind}`}>{KIND_LABEL[agent.kind] ?? agent.kind}</span>
          <OnlineDot online={!!agent.online} />
          {children}
        </div>
      </div>
    </header>
  );
}

function AgentDetail({ agent, view }: { agent: AgentInfo; view?: AgentView }) {
  const card = useMemo(() => readCard(agent.card), [agent.card]);
  const problems = problemsOf(agent);
  const versions = Array.isArray(agent.protocolVersions) ? agent.protocolVersions : [];
  const cardJson = useMemo(() => prettyJson(agent.card), [agent.card]);
  const remote = agent.kind === 'remote';
  // #/agents/<id>/credentials: the card, scrolled to its credentials
  useEffect(() => {
    if (view !== 'credentials') return;
    const h = document.getElementById('creds-h');
    h?.scrollIntoView?.({ block: 'start' });
    h?.focus({ preventScroll: true });
  }, [view, agent.id]);
  if (remote && view === 'log') {
    return (
      <div className="detail agent-detail" data-testid="agent-detail">
        <DetailHead agent={agent} />
        <DetailTabs agent={agent} view={view} />
        <WireLog agentId={agent.id} />
      </div>
    );
  }
  return (
    <div className="detail agent-detail" data-testid="agent-detail">
      <DetailHead agent={agent}>
        {versions.map((v) => (
          <span key={v} className="badge">
            A2A {v}
          </span>
        ))}
        <ProblemFlag count={problems.length} />
        <SignatureBadge signature={agent.signature} />
      </DetailHead>

      <SignatureWarning agent={agent} />
      {chatReady(agent) && <AgentActions agent={agent} />}
      {remote && <DetailTabs agent={agent} view={view} />}

      {problems.length > 0 && (
        <section className="problems" aria-labelledby="problems-h" data-testid="agent-problems">
          <h3 id="problems-h">
            ⚠ This card has {problems.length} problem{problems.length === 1 ? '' : 's'}
          </h3>
          <p className="small">The agent may still work, but clients that follow the specification strictly could refuse it.</p>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>
                <code>{p.path || '(card)'}</code> {p.message}
              </li>
            ))}
          </ul>
        </section>
      )}

      {(agent.description || card.description) && <p className="lead">{agent.description || card.description}</p>}

      <section className="section" aria-labelledby="about-h">
        <h3 id="about-h">About</h3>
        <dl className="kv">
          <dt>URL</dt>
          <dd>
            {agent.url ? (
              <>
                <code className="break">{agent.url}</code> <CopyButton text={agent.url} label="Copy the agent's URL" />
              </>
            ) : (
              <span className="muted">unknown</span>
            )}
          </dd>
          <dt>Agent card</dt>
          <dd>{agent.cardUrl ? <ExternalLink href={agent.cardUrl} /> : <span className="muted">unknown</span>}</dd>
          <SignatureFacts signature={agent.signature} />
          {card.version && (
            <>
              <dt>Version</dt>
              <dd>{card.version}</dd>
            </>
          )}
          {(card.providerOrganization || card.providerUrl) && (
            <>
              <dt>Provider</dt>
              <dd>
                {card.providerOrganization}
                {card.providerUrl && (
                  <>
                    {card.providerOrganization ? ' · ' : ''}
                    <ExternalLink href={card.providerUrl} />
                  </>
                )}
              </dd>
            </>
          )}
          {card.documentationUrl && (
            <>
              <dt>Documentation</dt>
              <dd>
                <ExternalLink href={card.documentationUrl} />
              </dd>
            </>
          )}
          <dt>ID</dt>
          <dd>
            <code>{agent.id}</code>
          </dd>
          <dt>Protocol versions</dt>
          <dd>{versions.length ? versions.join(', ') : <span className="muted">unknown</span>}</dd>
          {remote && (
            <>
              <dt>Dialect in use</dt>
              <dd data-testid="agent-dialect">{agent.dialect ? `A2A ${agent.dialect}` : <span className="muted">not chosen yet</span>}</dd>
              <BindingChoice agent={agent} />
              <dt>Streams</dt>
              <dd data-testid="agent-streaming">
                <YesNo v={typeof agent.streaming === 'boolean' ? agent.streaming : undefined} />
              </dd>
            </>
          )}
          <dt>Default input</dt>
          <dd>
            <Modes modes={card.defaultInputModes} isDefault={false} />
          </dd>
          <dt>Default output</dt>
          <dd>
            <Modes modes={card.defaultOutputModes} isDefault={false} />
          </dd>
        </dl>
        {card.interfaces.length > 0 && (
          <table className="table">
            <caption>Interfaces</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Binding</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {card.interfaces.map((i, k) => (
                <tr key={k}>
                  <td>
                    <code className="break">{i.url}</code>
                  </td>
                  <td>{i.binding || '—'}</td>
                  <td>{i.version || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {remote && <Credentials agent={agent} />}

      <Skills card={card} agent={agent} />

      <section className="section" aria-labelledby="caps-h">
        <h3 id="caps-h">Capabilities</h3>
        <dl className="kv">
          <dt>Streaming</dt>
          <dd>
            <YesNo v={card.streaming} />
          </dd>
          <dt>Push notifications</dt>
          <dd>
            <YesNo v={card.pushNotifications} />
          </dd>
          {card.stateTransitionHistory !== undefined && (
            <>
              <dt>State history</dt>
              <dd>
                <YesNo v={card.stateTransitionHistory} />
              </dd>
            </>
          )}
          {card.extendedCard !== undefined && (
            <>
              <dt>Extended card</dt>
              <dd>
                <YesNo v={card.extendedCard} />
              </dd>
            </>
          )}
        </dl>
        <h4>Extensions ({card.extensions.length})</h4>
        {card.extensions.length === 0 && <p className="muted">No extensions declared.</p>}
        <ul className="extensions">
          {card.extensions.map((e, i) => (
            <li key={i} className="extension" data-testid="agent-extension">
              <div>
                <ExternalLink href={e.uri}>{e.uri || '(no URI)'}</ExternalLink>
                {e.required && <span className="badge badge-warn">required</span>}
              </div>
              {e.description && <p className="small">{e.description}</p>}
              {e.params !== undefined && <JsonTree value={e.params} openDepth={1} label={`Parameters of ${e.uri}`} />}
            </li>
          ))}
        </ul>
      </section>

      <section className="section" aria-labelledby="sec-h">
        <h3 id="sec-h">Security</h3>
        {card.securitySchemes.length === 0 && <p className="muted">No security schemes declared: anyone who can reach it may call it.</p>}
        <ul className="schemes">
          {card.securitySchemes.map((s) => (
            <li key={s.name} className="scheme">
              <div>
                <strong>{s.name}</strong> <span className="badge">{s.type}</span>
              </div>
              {s.description && <p className="small">{s.description}</p>}
              {Object.keys(s.details).length > 0 && (
                <dl className="kv compact">
                  {Object.entries(s.details).map(([k, v]) => (
                    <div key={k} className="kv-row">
                      <dt>{k}</dt>
                      <dd>{typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : <JsonTree value={v} openDepth={1} />}</dd>
                    </div>
                  ))}
                </dl>
              )}
            </li>
          ))}
        </ul>
        {card.security.length > 0 && (
          <p className="small">
            Required: {card.security.map((alts) => alts.join(' + ') || '(none)').join(' or ')}
          </p>
        )}
      </section>

      <section className="section" aria-labelledby="raw-h">
        <details className="raw-card">
          <summary>
            <h3 id="raw-h">Raw card JSON</h3>
          </summary>
          <div className="raw-card-bar">
            <CopyButton text={cardJson} label="Copy card JSON" />
          </div>
          <JsonTree value={agent.card} openDepth={1} label="Agent card JSON" />
        </details>
      </section>
    </div>
  );
}

export function AgentsPage({ agentId, view }: { agentId?: string; view?: AgentView }) {
  const { agents, agentsLoaded } = useHub();
  const [filter, setFilter] = useState('');
  const [addError, setAddError] = useState('');
  const retryAdd = useRef<(() => void) | null>(null);
  const sorted = useMemo(() => {
    const rank = (a: AgentInfo) => (a.kind === 'hub' ? 0 : a.kind === 'local' ? 1 : 2);
    return [...agents].sort((a, b) => rank(a) - rank(b) || (a.name || a.id).localeCompare(b.name || b.id));
  }, [agents]);
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    if (!f) return sorted;
    return sorted.filter((a) => {
      const card = readCard(a.card);
      return [a.name, a.id, a.description, a.url, ...card.skills.map((s) => s.name)].some((s) => (s || '').toLowerCase().includes(f));
    });
  }, [sorted, filter]);
  const selected = agentId ? agents.find((a) => a.id === agentId) : undefined;
  useListKeys(
    shown.map((a) => hrefOf({ area: 'agents', agentId: a.id })),
    shown.findIndex((a) => a.id === agentId),
  );

  return (
    <div className={`page ${agentId ? 'has-detail' : ''}`}>
      <header className="page-head">
        <h1>Agents</h1>
        <span className="muted">{agents.length} known</span>
        <span className="spacer" />
        <AddAgentForm onError={setAddError} retryRef={retryAdd} />
        <input
          id="page-filter"
          className="filter"
          type="search"
          aria-label="Filter agents"
          placeholder="Filter agents  /"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
      </header>
      {addError && (
        <div className="page-errors">
          <ErrorBox message={addError} context="add-agent" onRetry={retryAdd.current ? () => retryAdd.current?.() : undefined} />
        </div>
      )}
      {agentsLoaded && agents.length === 0 ? (
        <div className="page-scroll">
          <EmptyState title="No agents yet">
            <p>The hub lists itself, its demo agent and every agent you register here.</p>
          </EmptyState>
        </div>
      ) : agentId ? (
        <div className="two-pane">
          <div className="pane-list" aria-label="Agents">
            {shown.map((a) => (
              <AgentCard key={a.id} agent={a} selected={a.id === agentId} compact />
            ))}
          </div>
          <div className="pane-detail">
            <a className="back-link" href="#/agents">
              ← All agents
            </a>
            {selected ? (
              <AgentDetail agent={selected} view={view} />
            ) : agentsLoaded ? (
              <EmptyState title="Agent not found">
                <p>
                  There is no agent <code>{agentId}</code> on this hub. <a href="#/agents">Back to all agents</a>.
                </p>
              </EmptyState>
            ) : (
              <p className="muted">Loading…</p>
            )}
          </div>
        </div>
      ) : (
        <div className="card-grid" aria-label="Agents">
          {!agentsLoaded && <p className="muted">Loading agents…</p>}
          {shown.map((a) => (
            <AgentCard key={a.id} agent={a} selected={false} compact={false} />
          ))}
          {agentsLoaded && shown.length === 0 && <p className="muted">No agent matches “{filter}”.</p>}
        </div>
      )}
    </div>
  );
}
