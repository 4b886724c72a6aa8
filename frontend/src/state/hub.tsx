// The connection to the hub as React state: the client, whether it is connected, the hub's info, its
// agents and the inbox counts, and a refresh key that changes whenever on-screen data may be stale
// (a new connection, or a "lagged" push).

import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { HubClient, StateInfo } from '../api/client';
import type { AgentInfo, HubInfo, InboxCounts, TopicName, Topics } from '../api/types';

export interface HubContextValue {
  client: HubClient;
  conn: StateInfo;
  hub: HubInfo | null;
  agents: AgentInfo[];
  agentsLoaded: boolean;
  inbox: InboxCounts | null;
  setUnread: (n: number) => void;
  /** Changes on every reconnection and every "lagged" push: refetch what is on screen. */
  refreshKey: number;
  /** Changes on every "lagged" push only (timelines refetch just what they missed). */
  lagKey: number;
  reloadAgents: () => void;
  /** Puts an agent as a call returned it (e.g. after saving a credential) into the list at once. */
  updateAgent: (a: AgentInfo) => void;
}

const HubContext = createContext<HubContextValue | null>(null);

export function useHub(): HubContextValue {
  const v = useContext(HubContext);
  if (!v) throw new Error('useHub outside HubProvider');
  return v;
}

/** The agents the hub knows, or none outside a HubProvider (a component tested on its own). */
export function useAgentsIfAny(): AgentInfo[] {
  return useContext(HubContext)?.agents ?? [];
}

/** Subscribes to a pushed topic for the component's lifetime (the handler may change freely). */
export function useTopic<T extends TopicName>(topic: T, handler: (data: Topics[T]) => void): void {
  const { client } = useHub();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => client.on(topic, (d) => ref.current(d)), [client, topic]);
}

function agentsOf(v: { agents?: AgentInfo[] | null } | null | undefined): AgentInfo[] {
  return Array.isArray(v?.agents) ? v!.agents!.filter((a) => a && typeof a === 'object' && typeof a.id === 'string') : [];
}

export function HubProvider({ client, children }: { client: HubClient; children: ReactNode }) {
  const [conn, setConn] = useState<StateInfo>(client.state);
  const [hub, setHub] = useState<HubInfo | null>(null);
  const [agents, setAgents] = useState<AgentInfo[]>([]);
  const [agentsLoaded, setAgentsLoaded] = useState(false);
  const [inbox, setInbox] = useState<InboxCounts | null>(null);
  const [lagKey, setLagKey] = useState(0);
  const [agentsNonce, setAgentsNonce] = useState(0);

  useEffect(() => client.onState(setConn), [client]);

  useEffect(() => {
    const offs = [
      client.on('hello', (info) => {
        if (!info || typeof info !== 'object') return;
        setHub(info);
        if (Array.isArray(info.agents)) {
          setAgents(agentsOf(info));
          setAgentsLoaded(true);
        }
      }),
      client.on('inbox', (c) => {
        if (c && typeof c.unread === 'number') setInbox({ unread: c.unread, waiting: typeof c.waiting === 'number' ? c.waiting : 0 });
      }),
      client.on('lagged', () => setLagKey((k) => k + 1)),
      // A registered agent was added, refreshed or removed (here or in another window): refetch.
      client.on('agents', () => setAgentsNonce((n) => n + 1)),
    ];
    return () => offs.forEach((off) => off());
  }, [client]);

  // On every connection: the hub's info, its agents and the unread count.
  useEffect(() => {
    if (conn.state !== 'open') return;
    let live = true;
    client.call('hub.info', {}).then(
      (info) => live && info && setHub(info),
      () => {},
    );
    client.call('agents.list', {}).then(
      (r) => {
        if (!live) return;
        setAgents(agentsOf(r));
        setAgentsLoaded(true);
      },
      () => {},
    );
    client.call('inbox.list', {}).then(
      (r) => {
        if (!live || !r) return;
        const waiting = Array.isArray(r.tasks) ? r.tasks.filter((t) => t?.waitingForOwner).length : 0;
        setInbox({ unread: typeof r.unread === 'number' ? r.unread : 0, waiting });
      },
      () => {},
    );
    return () => {
      live = false;
    };
  }, [client, conn.state, conn.connectionId, lagKey, agentsNonce]);

  const value = useMemo<HubContextValue>(
    () => ({
      client,
      conn,
      hub,
      agents,
      agentsLoaded,
      inbox,
      setUnread: (n: number) => setInbox((c) => ({ unread: n, waiting: c?.waiting ?? 0 })),
      // The first connection is not a change: calls made before it were queued and sent on open.
      refreshKey: Math.max(conn.connectionId, 1) * 100_000 + lagKey,
      lagKey,
      reloadAgents: () => setAgentsNonce((n) => n + 1),
      updateAgent: (a: AgentInfo) => {
        if (!a || typeof a !== 'object' || typeof a.id !== 'string') return;
        setAgents((list) => (list.some((x) => x.id === a.id) ? list.map((x) => (x.id === a.id ? a : x)) : [...list, a]));
      },
    }),
    [client, conn, hub, agents, agentsLoaded, inbox, lagKey],
  );
  return <HubContext.Provider value={value}>{children}</HubContext.Provider>;
}

/** Changes only when a connection opens after the first one (calls made earlier were queued). */
export function useReconnectKey(): number {
  return Math.max(useHub().conn.connectionId, 1);
}

/** A lost connection is shown by the banner and followed by a refetch: not an error of the view. */
export function isDisconnect(e: unknown): boolean {
  return (e as { code?: string } | null)?.code === 'disconnected';
}

export function agentName(agents: AgentInfo[], id: string): string {
  const a = agents.find((x) => x.id === id);
  return a?.name || id;
}
