import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { takeToken, tokenFromHash, TOKEN_KEY, type Bootstrap } from './api/bootstrap';
import { HubClient } from './api/client';
import { ConnectionBanner } from './components/ConnectionBanner';
import { ShortcutHelp } from './components/ShortcutHelp';
import { Welcome } from './components/Welcome';
import { hrefOf, navigate, useRoute, type Area, type Route } from './lib/router';
import { createShortcutHandler } from './lib/shortcuts';
import { useTheme } from './lib/theme';
import { onNativeEvent } from './native';
import { AgentsPage } from './pages/AgentsPage';
import { ChatsPage } from './pages/ChatsPage';
import { InboxPage } from './pages/InboxPage';
import { KnowledgePage } from './pages/KnowledgePage';
import { ScenariosPage } from './pages/ScenariosPage';
import { SettingsPage } from './pages/SettingsPage';
import { TasksPage } from './pages/TasksPage';
import { HubProvider, useHub } from './state/hub';

function Logo() {
  return (
    <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true" className="logo">
      <circle cx="12" cy="12" r="3.2" fill="currentColor" />
      <circle cx="4.5" cy="6" r="2.2" fill="currentColor" opacity="0.65" />
      <circle cx="19.5" cy="6" r="2.2" fill="currentColor" opacity="0.65" />
      <circle cx="12" cy="20.5" r="2.2" fill="currentColor" opacity="0.65" />
      <path d="M6.3 7.2 9.6 10.4M17.7 7.2l-3.3 3.2M12 15.3v3" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
    </svg>
  );
}

export function Screen({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="screen">
      <div className="screen-card">
        <div className="brand big">
          <Logo /> AgentHub
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </div>
  );
}

/** This page's own address (the hub's real port), for the example link. */
function hereOrigin(): string {
  try {
    const o = window.location.origin;
    return o && o !== 'null' && /^https?:/.test(o) ? o : 'http://127.0.0.1:47470';
  } catch {
    return 'http://127.0.0.1:47470';
  }
}

export function NoTokenScreen() {
  return (
    <Screen title="Open AgentHub with its link">
      <p>
        Open the UI with the link <code>agenthub serve</code> printed (it carries the UI token), for example <code>{hereOrigin()}/#token=…</code>.
      </p>
      <p className="muted small">
        The token keeps other programs and web pages on this computer away from your hub. It stays the same across restarts, in the file{' '}
        <code>ui-token</code> of the hub’s data directory, until it is regenerated in Settings.
      </p>
    </Screen>
  );
}

function UnauthorizedScreen() {
  useEffect(() => {
    try {
      sessionStorage.removeItem(TOKEN_KEY);
    } catch {
      /* ignore */
    }
  }, []);
  return (
    <Screen title="This link has expired">
      <p>
        The hub did not accept this page’s token: it was regenerated in Settings, or the link belongs to another hub. Open the link{' '}
        <code>agenthub serve</code> prints, for example <code>{hereOrigin()}/#token=…</code>, or copy it from Settings in a window that is
        still connected.
      </p>
    </Screen>
  );
}

const NAV: { area: Area; label: string; icon: string }[] = [
  { area: 'agents', label: 'Agents', icon: '◉' },
  { area: 'chats', label: 'Chats', icon: '❝' },
  { area: 'tasks', label: 'Tasks', icon: '≡' },
  { area: 'inbox', label: 'Inbox', icon: '✉' },
  { area: 'knowledge', label: 'Knowledge', icon: '⬡' },
  { area: 'scenarios', label: 'Scenarios', icon: '▷' },
];

/** The shortcut of each area, shown in the navigation's tooltips (the labels hide in a narrow window). */
const NAV_KEYS: Record<Area, string> = { agents: 'g a', chats: 'g c', tasks: 'g t', inbox: 'g i', knowledge: 'g k', scenarios: 'g r', settings: 'g s' };

function Shell() {
  const route = useRoute();
  const { conn, inbox, client } = useHub();
  const [theme, setTheme] = useTheme();
  const [help, setHelp] = useState(false);
  // The Knowledge area stays mounted once visited (hidden while another area is open): its canvas,
  // selection, zoom and query are where the person left them when they come back.
  const [knowledge, setKnowledge] = useState<{ seen: boolean; agent?: string }>({ seen: false });
  const knowledgeAgent = route.area === 'knowledge' ? route.agent : undefined;
  useEffect(() => {
    if (route.area === 'knowledge') setKnowledge({ seen: true, agent: knowledgeAgent });
  }, [route.area, knowledgeAgent]);

  useEffect(() => {
    const handler = createShortcutHandler({
      go: (area) => navigate({ area } as Route),
      focusFilter: () => {
        const el = document.getElementById('page-filter');
        if (el) {
          el.focus();
          (el as HTMLInputElement).select?.();
        }
      },
      showHelp: () => setHelp(true),
      escape: () => {
        const r = window.location.hash;
        if (/^#\/(agents|chats|tasks|inbox)\/./.test(r)) navigate(`#/${r.split('/')[1]}`);
      },
    });
    const on = (e: KeyboardEvent) => {
      if (help && e.key !== 'Escape') return;
      handler(e);
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [help]);

  // A click on a desktop notification of a new inbox task opens that task.
  useEffect(
    () =>
      onNativeEvent('inbox:open', (id) => {
        if (typeof id === 'string' && id !== '') navigate({ area: 'inbox', taskId: id });
      }),
    [],
  );

  useEffect(() => {
    const names: Record<Area, string> = {
      agents: 'Agents',
      chats: 'Chats',
      tasks: 'Tasks',
      inbox: 'Inbox',
      knowledge: 'Knowledge',
      scenarios: 'Scenarios',
      settings: 'Settings',
    };
    const unread = inbox?.unread ? `(${inbox.unread}) ` : '';
    document.title = `${unread}${names[route.area]} · AgentHub`;
  }, [route.area, inbox?.unread]);

  if (conn.state === 'unauthorized') return <UnauthorizedScreen />;

  const unread = inbox?.unread ?? 0;
  let page: ReactNode;
  switch (route.area) {
    case 'agents':
      page = <AgentsPage agentId={route.agentId} view={route.view} />;
      break;
    case 'chats':
      page = <ChatsPage conversationId={route.conversationId} channelId={route.channelId} channelAgent={route.agent} />;
      break;
    case 'tasks':
      page = <TasksPage agent={route.agent} taskId={route.taskId} />;
      break;
    case 'inbox':
      page = <InboxPage taskId={route.taskId} />;
      break;
    case 'knowledge':
      page = null; // kept mounted below, once visited
      break;
    case 'scenarios':
      page = <ScenariosPage scenarioId={route.scenarioId} />;
      break;
    case 'settings':
      page = <SettingsPage theme={theme} setTheme={setTheme} onShowShortcuts={() => setHelp(true)} section={route.section} />;
      break;
  }

  return (
    <div className="app">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <Logo /> <span>AgentHub</span>
        </div>
        <ul className="nav-list">
          {NAV.map((n) => (
            <li key={n.area}>
              <a
                href={hrefOf({ area: n.area } as Route)}
                className="nav-link"
                aria-current={route.area === n.area ? 'page' : undefined}
                title={`${n.label} (${NAV_KEYS[n.area]})`}
              >
                <span className="nav-icon" aria-hidden="true">
                  {n.icon}
                </span>
                <span className="nav-label">{n.label}</span>
                {n.area === 'inbox' && unread > 0 && (
                  <span className="nav-badge" role="status" aria-label={`${unread} unread`} data-testid="unread-badge">
                    {unread > 99 ? '99+' : unread}
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
        <span className="spacer-v" />
        <ul className="nav-list">
          <li>
            <a href="#/settings" className="nav-link" aria-current={route.area === 'settings' ? 'page' : undefined} title={`Settings (${NAV_KEYS.settings})`}>
              <span className="nav-icon" aria-hidden="true">
                ⚙
              </span>
              <span className="nav-label">Settings</span>
            </a>
          </li>
        </ul>
        <div className="sidebar-foot">
          <span className={`conn-dot ${conn.state === 'open' ? 'ok' : 'down'}`} aria-hidden="true" />
          <span className="small muted">{conn.state === 'open' ? 'Connected' : conn.state === 'connecting' ? 'Connecting…' : 'Offline'}</span>
          <span className="spacer" />
          <button type="button" className="btn btn-ghost btn-small" aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)" onClick={() => setHelp(true)}>
            ?
          </button>
        </div>
      </nav>
      <div className="main-col">
        <ConnectionBanner conn={conn} onRetry={() => client.retryNow()} />
        <Welcome />
        <main className="main">
          {page}
          {(knowledge.seen || route.area === 'knowledge') && (
            <KnowledgePage agent={route.area === 'knowledge' ? route.agent : knowledge.agent} visible={route.area === 'knowledge'} />
          )}
        </main>
      </div>
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
    </div>
  );
}

export function App({ boot }: { boot: Bootstrap }) {
  const client = useMemo(
    () =>
      boot.mode === 'no-token'
        ? null
        : new HubClient({
            resolveUrl: boot.resolveUrl,
            probeUnauthorized: boot.probeUnauthorized,
          }),
    [boot],
  );
  useEffect(() => {
    if (!client) return;
    client.start();
    return () => client.stop();
  }, [client]);
  // A fresh link opened in this tab (the hub restarted with a new token): use it at once.
  useEffect(() => {
    if (!client || boot.mode === 'no-token' || !boot.watchToken) return;
    return boot.watchToken(() => client.reconnect());
  }, [client, boot]);
  // Without a token, wait for one to arrive in the URL.
  useEffect(() => {
    if (boot.mode !== 'no-token') return;
    const on = () => {
      if (tokenFromHash(window.location.hash).token) {
        takeToken(window.location, window.history, window.sessionStorage);
        window.location.reload();
      }
    };
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, [boot]);
  if (!client) return <NoTokenScreen />;
  return (
    <HubProvider client={client}>
      <Shell />
    </HubProvider>
  );
}
