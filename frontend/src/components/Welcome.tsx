// The first-run welcome: a card on the first screen (the Agents list) with the three things to do
// first — chat with the demo agent, open the inbox, add an agent by URL — that goes away once all
// three are done, or when the person hides it.
//
// Where "done" lives: two of the steps are read from the hub's own data, so they hold in any browser
// and survive a reinstall: a conversation exists (chats.list), and an agent other than the demo one
// was added (agents). The other two facts — the inbox was opened, the card was hidden — only ever
// happen in a browser, so they are kept in its localStorage under a key holding the hub's data
// directory: another hub (another data dir) gets its own welcome, and no server setting is needed.

import { useCallback, useEffect, useState } from 'react';
import type { AgentInfo } from '../api/types';
import { hrefOf, useRoute } from '../lib/router';
import { isDisconnect, useHub } from '../state/hub';
import { useStartChat } from '../state/useChat';
import './Welcome.css';

interface Seen {
  inbox?: boolean;
  hidden?: boolean;
}

export function welcomeKey(dataDir: string): string {
  return `agenthub.welcome:${dataDir}`;
}

function readSeen(key: string): Seen {
  try {
    const v = JSON.parse(localStorage.getItem(key) ?? '{}');
    return v && typeof v === 'object' ? (v as Seen) : {};
  } catch {
    return {};
  }
}

function origin(u: string | undefined): string {
  try {
    return new URL(u ?? '').origin;
  } catch {
    return '';
  }
}

/** The hub's own demo agent (kind "local"). */
export function demoAgent(agents: AgentInfo[]): AgentInfo | undefined {
  return agents.find((a) => a.kind === 'local');
}

/** The demo agent as a remote agent the owner can chat with (the welcome adds it so), if it was added. */
export function demoAsRemote(agents: AgentInfo[]): AgentInfo | undefined {
  const demo = demoAgent(agents);
  const at = origin(demo?.cardUrl || demo?.url);
  return at ? agents.find((a) => a.kind === 'remote' && origin(a.cardUrl || a.url) === at) : undefined;
}

export function Welcome() {
  const route = useRoute();
  const { client, conn, hub, agents, agentsLoaded, refreshKey } = useHub();
  const key = hub?.dataDir ? welcomeKey(hub.dataDir) : '';
  const [seen, setSeen] = useState<Seen>({});
  const [chats, setChats] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const { start } = useStartChat();

  useEffect(() => setSeen(key ? readSeen(key) : {}), [key]);

  const remember = useCallback(
    (more: Seen) => {
      if (!key) return;
      const next = { ...readSeen(key), ...more };
      try {
        localStorage.setItem(key, JSON.stringify(next));
      } catch {
        /* private mode: the card just shows again next time */
      }
      setSeen(next);
    },
    [key],
  );

  // Opening the inbox, by any way, ticks its step.
  useEffect(() => {
    if (route.area === 'inbox' && key && !seen.inbox) remember({ inbox: true });
  }, [route.area, key, seen.inbox, remember]);

  const firstScreen = route.area === 'agents' && !route.agentId;
  const visible = firstScreen && !!key && !seen.hidden && conn.state === 'open';

  useEffect(() => {
    if (!visible) return;
    let live = true;
    client.call('chats.list', {}).then(
      (r) => live && setChats(Array.isArray(r?.conversations) ? r.conversations.length : 0),
      (e: Error) => live && !isDisconnect(e) && setChats(0),
    );
    return () => {
      live = false;
    };
  }, [client, visible, refreshKey]);

  const demo = demoAgent(agents);
  const demoRemote = demoAsRemote(agents);
  const steps = {
    chat: (chats ?? 0) > 0,
    inbox: !!seen.inbox,
    agent: agents.some((a) => a.kind === 'remote' && a !== demoRemote),
  };
  const allDone = steps.chat && steps.inbox && steps.agent;

  // Once everything is done the card is gone for good, even if a step is later undone.
  useEffect(() => {
    if (visible && chats !== null && agentsLoaded && allDone) remember({ hidden: true });
  }, [visible, chats, agentsLoaded, allDone, remember]);

  if (!visible || chats === null || !agentsLoaded || allDone) return null;

  // One click: the demo agent is added by its URL (as any agent would be) unless it already was,
  // and a chat with it opens.
  const chatWithDemo = async () => {
    if (busy) return;
    setBusy(true);
    setError('');
    try {
      let target = demoRemote;
      if (!target) {
        if (!demo) throw new Error('The demo agent is not running (AgentHub was started with --no-demo).');
        target = await client.call('agents.add', { url: demo.cardUrl || demo.url });
      }
      const c = await start(target.id);
      if (!c) throw new Error('Could not start the chat.');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="welcome card" aria-labelledby="welcome-title" data-testid="welcome">
      <div className="welcome-head">
        <h2 id="welcome-title">Welcome to AgentHub</h2>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => remember({ hidden: true })}>
          Hide
        </button>
      </div>
      <p className="muted">Three things to try first. This card goes away once they are done.</p>
      <ol className="welcome-steps">
        <li data-done={steps.chat || undefined}>
          <span className="welcome-check" aria-hidden="true">
            {steps.chat ? '✓' : '1'}
          </span>
          <span className="welcome-text">
            <strong>Chat with the demo agent.</strong> It runs on this computer and answers as it goes.
          </span>
          <button type="button" className="btn btn-primary btn-small" disabled={busy} onClick={() => void chatWithDemo()}>
            {busy ? 'Starting…' : 'Chat with the demo agent'}
          </button>
          {steps.chat && <span className="sr-only">done</span>}
        </li>
        <li data-done={steps.inbox || undefined}>
          <span className="welcome-check" aria-hidden="true">
            {steps.inbox ? '✓' : '2'}
          </span>
          <span className="welcome-text">
            <strong>Open your inbox.</strong> Agents that need you — a question, an approval — wait there.
          </span>
          <a className="btn btn-small" href={hrefOf({ area: 'inbox' })}>
            Open the inbox
          </a>
        </li>
        <li data-done={steps.agent || undefined}>
          <span className="welcome-check" aria-hidden="true">
            {steps.agent ? '✓' : '3'}
          </span>
          <span className="welcome-text">
            <strong>Add an agent by its URL.</strong> Paste the address of any A2A agent into the URL field below.
          </span>
          <a
            className="btn btn-small"
            href={hrefOf({ area: 'agents' })}
            onClick={(e) => {
              e.preventDefault();
              const input = document.querySelector<HTMLInputElement>('input[aria-label="Agent URL"]');
              input?.scrollIntoView({ block: 'center' });
              input?.focus();
            }}
          >
            Add an agent by URL
          </a>
        </li>
      </ol>
      <p className="welcome-more small" data-testid="welcome-more">
        Then bring several agents into a <a href={hrefOf({ area: 'chats' })}>channel</a> and @mention them, and explore or edit the{' '}
        <a href={hrefOf({ area: 'knowledge' })}>knowledge graph</a> they share with you.
      </p>
      {error && (
        <p className="welcome-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
