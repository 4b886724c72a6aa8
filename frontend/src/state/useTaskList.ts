// The Tasks list: pages of tasks.list (newest first), more loaded on demand, kept current by pushed
// `task` events (batched, so a busy hub does not re-render the list for every event).

import { useCallback, useEffect, useRef, useState } from 'react';
import type { TaskSummary } from '../api/types';
import { newestFirst, appendPage, matchesFilter, taskKey, upsertTasks, type TaskFilter } from '../lib/tasklist';
import { isDisconnect, useHub } from './hub';

export const PAGE_SIZE = 100;

export interface TaskListState {
  tasks: TaskSummary[];
  hasMore: boolean;
  loading: boolean;
  error: string | null;
  /** True once the first page for the current filter has arrived. */
  loaded: boolean;
  loadMore: () => void;
}

export function useTaskList(filter: TaskFilter): TaskListState {
  const { client, refreshKey } = useHub();
  const [tasks, setTasks] = useState<TaskSummary[]>([]);
  const [next, setNext] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const filterKey = `${filter.agent ?? ''}\u0000${filter.state ?? ''}`;
  const genRef = useRef(0); // bumps when the filter changes: stale replies are dropped
  const lastFilterKey = useRef<string | null>(null);
  const loadingMore = useRef(false);
  const nextRef = useRef(next);
  nextRef.current = next;
  const tasksRef = useRef(tasks);
  tasksRef.current = tasks;

  // A task sent from a chat or a channel to an added agent changes without a "task" push (its log is
  // the conversation's, or the channel's): a chat entry about a task, or an agent's state in a channel
  // changing, refetches the first page, at most every 500 ms.
  const [chatKey, setChatKey] = useState(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const later = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        setChatKey((k) => k + 1);
      }, 500);
    };
    const offChat = client.on('chat', (u) => {
      if (u?.entry?.taskId) later();
    });
    const offBridge = client.on('bridge', later);
    return () => {
      offChat();
      offBridge();
      if (timer) clearTimeout(timer);
    };
  }, [client]);

  // First page: on a new filter replace the list; on a reconnection or "lagged" merge it in.
  useEffect(() => {
    const filterChanged = lastFilterKey.current !== filterKey;
    lastFilterKey.current = filterKey;
    const gen = filterChanged ? ++genRef.current : genRef.current;
    if (filterChanged) {
      setTasks([]);
      setNext(undefined);
      setLoaded(false);
    }
    setLoading(true);
    const params = { limit: PAGE_SIZE, ...(filter.agent ? { agent: filter.agent } : {}), ...(filter.state ? { state: filter.state } : {}) };
    client.call('tasks.list', params).then(
      (r) => {
        if (gen !== genRef.current) return;
        const page = Array.isArray(r?.tasks) ? r.tasks : [];
        if (filterChanged || tasksRef.current.length <= page.length) {
          setTasks(page);
          setNext(r?.next || undefined);
        } else {
          setTasks((cur) => upsertTasks(cur, page, matchesFilter(filter)));
        }
        setLoaded(true);
        setLoading(false);
        setError(null);
      },
      (e: Error) => {
        if (gen !== genRef.current) return;
        setLoading(false);
        if (!isDisconnect(e)) setError(e.message);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, filterKey, refreshKey, chatKey]);

  const loadMore = useCallback(() => {
    const cursor = nextRef.current;
    if (!cursor || loadingMore.current) return;
    loadingMore.current = true;
    const gen = genRef.current;
    setLoading(true);
    client
      .call('tasks.list', {
        limit: PAGE_SIZE,
        cursor,
        ...(filter.agent ? { agent: filter.agent } : {}),
        ...(filter.state ? { state: filter.state } : {}),
      })
      .then(
        (r) => {
          loadingMore.current = false;
          if (gen !== genRef.current) return;
          setTasks((cur) => appendPage(cur, Array.isArray(r?.tasks) ? r.tasks : []));
          setNext(r?.next || undefined);
          setLoading(false);
        },
        (e: Error) => {
          loadingMore.current = false;
          if (gen !== genRef.current) return;
          setLoading(false);
          if (!isDisconnect(e)) setError(e.message);
        },
      );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, filterKey]);

  // Pushed updates, applied at most every 150 ms.
  useEffect(() => {
    let batch: TaskSummary[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const matches = matchesFilter(filter);
    const flush = () => {
      timer = null;
      const items = batch;
      batch = [];
      setTasks((cur) => {
        const known = new Set(cur.map(taskKey));
        const tail = cur[cur.length - 1];
        // A task older than the last row shown arrives with a later page, in its place.
        const fit = items.filter((t) => known.has(taskKey(t)) || !nextRef.current || !tail || newestFirst(t, tail) <= 0);
        return upsertTasks(cur, fit, matches);
      });
    };
    const off = client.on('task', (u) => {
      if (!u?.summary || typeof u.summary.id !== 'string') return;
      batch.push(u.summary);
      if (!timer) timer = setTimeout(flush, 150);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, filterKey]);

  return { tasks, hasMore: !!next, loading, error, loaded, loadMore };
}
