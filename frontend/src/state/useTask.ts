// One task, live: tasks.get once, then pushed `task` events appended in seq order. A hole in the
// sequence, a "lagged" push or a reconnection makes it ask tasks.events for what it missed.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { HubClient } from '../api/client';
import type { TaskDetail, TaskSummary, TimelineEvent } from '../api/types';
import { parseTime } from '../lib/format';
import { applyPushed, contiguousEnd, hasGap, mergeEvents, stateOf } from '../lib/timeline';
import { isDisconnect, useHub, useReconnectKey } from './hub';

export interface TaskView {
  detail: TaskDetail | null;
  summary: TaskSummary | null;
  events: TimelineEvent[];
  loading: boolean;
  error: string | null;
  /** Times tasks.events was asked for missed entries (shown nowhere; useful to tests). */
  refetches: number;
  reload: () => void;
}

function newer(a: TaskSummary | null, b: TaskSummary | null | undefined): TaskSummary | null {
  if (!b) return a;
  if (!a) return b;
  const ta = parseTime(a.updatedAt);
  const tb = parseTime(b.updatedAt);
  return Number.isFinite(tb) && Number.isFinite(ta) && tb < ta ? a : b;
}

/** Keeps the summary's state in line with the log when the log has moved on. */
function withLogState(s: TaskSummary | null, events: TimelineEvent[]): TaskSummary | null {
  const st = stateOf(events);
  return s && st && s.state !== st ? { ...s, state: st } : s;
}

export function useTask(agent: string | undefined, id: string | undefined, client?: HubClient): TaskView {
  const hub = useHub();
  const c = client ?? hub.client;
  const { lagKey } = hub;
  const reconnectKey = useReconnectKey();
  const [detail, setDetail] = useState<TaskDetail | null>(null);
  const [summary, setSummary] = useState<TaskSummary | null>(null);
  const [events, setEventsState] = useState<TimelineEvent[]>([]);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [refetches, setRefetches] = useState(0);
  const [nonce, setNonce] = useState(0);

  const eventsRef = useRef<TimelineEvent[]>([]);
  const keyRef = useRef('');
  const loadingRef = useRef(false);
  const bufferRef = useRef<TimelineEvent[]>([]);
  const fetchingRef = useRef(false);
  const againRef = useRef(false);

  const key = agent && id ? `${agent}\u0000${id}` : '';
  keyRef.current = key;

  const setEvents = useCallback((ev: TimelineEvent[]) => {
    eventsRef.current = ev;
    setEventsState(ev);
  }, []);

  const fetchMissing = useCallback(() => {
    if (!agent || !id) return;
    if (fetchingRef.current) {
      againRef.current = true;
      return;
    }
    fetchingRef.current = true;
    const myKey = `${agent}\u0000${id}`;
    setRefetches((n) => n + 1);
    c.call('tasks.events', { agent, id, after: contiguousEnd(eventsRef.current) }).then(
      (r) => {
        fetchingRef.current = false;
        if (keyRef.current !== myKey) return;
        const merged = mergeEvents(eventsRef.current, Array.isArray(r?.events) ? r.events : []);
        setEvents(merged);
        setSummary((s) => withLogState(s, merged));
        if (againRef.current) {
          againRef.current = false;
          fetchMissing();
        }
      },
      () => {
        fetchingRef.current = false;
        againRef.current = false;
      },
    );
  }, [agent, id, c, setEvents]);

  // A different task: start from nothing.
  useEffect(() => {
    setDetail(null);
    setSummary(null);
    setEvents([]);
    setError(null);
    againRef.current = false;
  }, [key, setEvents]);

  // Load (and reload on every new connection).
  useEffect(() => {
    if (!agent || !id) {
      setDetail(null);
      setSummary(null);
      setEvents([]);
      setError(null);
      setLoading(false);
      return;
    }
    let live = true;
    const myKey = `${agent}\u0000${id}`;
    setLoading(true);
    loadingRef.current = true;
    bufferRef.current = [];
    c.call('tasks.get', { agent, id }).then(
      (d) => {
        if (!live || keyRef.current !== myKey) return;
        loadingRef.current = false;
        const base = Array.isArray(d?.events) ? d.events : [];
        // Keep what we had (a reconnection reloads the same task), add what arrived meanwhile.
        const merged = mergeEvents(mergeEvents(eventsRef.current, base), bufferRef.current);
        bufferRef.current = [];
        setDetail(d);
        setSummary((s) => withLogState(newer(s && s.id === d.summary?.id ? s : null, d.summary), merged));
        setEvents(merged);
        setError(null);
        setLoading(false);
        if (hasGap(merged)) fetchMissing();
      },
      (e: Error) => {
        if (!live || keyRef.current !== myKey || isDisconnect(e)) return;
        loadingRef.current = false;
        setLoading(false);
        setError(e.message || 'Could not load the task.');
      },
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [agent, id, c, reconnectKey, nonce]);

  // Pushed entries of this task.
  useEffect(() => {
    if (!agent || !id) return;
    return c.on('task', (u) => {
      if (!u || u.agent !== agent || u.taskId !== id || !u.event) return;
      if (loadingRef.current) {
        bufferRef.current.push(u.event);
        setSummary((s) => newer(s, u.summary));
        return;
      }
      const { events: next, outcome } = applyPushed(eventsRef.current, u.event);
      if (outcome !== 'duplicate') setEvents(next);
      setSummary((s) => newer(s, u.summary));
      if (outcome === 'gap') fetchMissing();
    });
  }, [agent, id, c, fetchMissing, setEvents]);

  // A task sent from a chat to an added agent is the conversation's record: a chat entry about it
  // reloads it.
  const local = hub.agents.some((a) => a.id === agent && a.kind !== 'remote'); // its own log is pushed
  useEffect(() => {
    if (!agent || !id || local) return;
    return c.on('chat', (u) => {
      if (u?.entry?.taskId === id && u.conversation?.agentId === agent) setNonce((n) => n + 1);
    });
  }, [agent, id, c, local]);

  // The hub dropped pushes for us: ask for what we missed.
  const firstLag = useRef(lagKey);
  useEffect(() => {
    if (lagKey === firstLag.current) return;
    firstLag.current = lagKey;
    if (!loadingRef.current) fetchMissing();
  }, [lagKey, fetchMissing]);

  const reload = useCallback(() => setNonce((n) => n + 1), []);
  return { detail, summary, events, loading, error, refetches, reload };
}
