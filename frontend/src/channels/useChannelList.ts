// The channels in the sidebar: those channels/list answers, plus (on this hub) the direct chats the
// owner has with principals, found by their deterministic ids since channels/list never lists them.
// Each is watched with channels/stream from its newest event, so unread counts grow live.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { AccessKey } from '../api/types';
import type { HubClient } from '../api/client';
import { directId, getChannel, listChannels, type Ext } from './api';
import type { Channel } from './model';

export interface ChannelList {
  channels: Channel[];
  directs: Channel[];
  /** channel id -> newest sequence known */
  last: Record<string, number>;
  loaded: boolean;
  error: string;
  reload: () => void;
  /** puts a channel (created, changed, or opened by link) into the list at once */
  upsert: (c: Channel) => void;
}

export function useChannelList(ext: Ext, client: HubClient, agent: string | undefined, refreshKey: number): ChannelList {
  const [channels, setChannels] = useState<Channel[]>([]);
  const [directs, setDirects] = useState<Channel[]>([]);
  const [last, setLast] = useState<Record<string, number>>({});
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState('');
  const [nonce, setNonce] = useState(0);
  // No push says "you were added to a channel" or "someone opened a direct chat with you": the list is
  // read again every half minute (the streams of the channels already listed stay open).
  useEffect(() => {
    const t = window.setInterval(() => setNonce((n) => n + 1), 30_000);
    return () => window.clearInterval(t);
  }, []);

  useEffect(() => {
    let live = true;
    (async () => {
      try {
        const list = await listChannels(ext, agent);
        let found: Channel[] = [];
        if (!agent) {
          const r = await client.call('access.list', {}).catch(() => null);
          const principals: AccessKey[] = Array.isArray(r?.principals) ? r!.principals : [];
          const ids = principals.map((p) => directId(p.id));
          const got = await Promise.all(ids.map((id) => getChannel(ext, id).catch(() => null)));
          found = got.filter((c): c is Channel => c !== null);
        }
        if (!live) return;
        setChannels(list);
        setDirects(found);
        setLast((cur) => {
          const next = { ...cur };
          for (const c of [...list, ...found]) next[c.id] = Math.max(next[c.id] ?? 0, c.lastSequence ?? 0);
          return next;
        });
        setError('');
      } catch (e) {
        if (live) setError((e as Error)?.message || 'Could not list the channels.');
      } finally {
        if (live) setLoaded(true);
      }
    })();
    return () => {
      live = false;
    };
  }, [ext, client, agent, refreshKey, nonce]);
  // Another source: nothing listed yet.
  useEffect(() => setLoaded(false), [agent]);

  // One stream per channel, from its newest event; arrivals are gathered and applied once a frame,
  // so a burst of thousands of events costs a few renders, not thousands.
  const ids = [...channels, ...directs].map((c) => c.id).join('\n');
  const lastRef = useRef(last);
  lastRef.current = last;
  const pending = useRef<Record<string, number>>({});
  const timer = useRef<number | null>(null);
  useEffect(() => {
    const flush = () => {
      timer.current = null;
      const got = pending.current;
      pending.current = {};
      setLast((cur) => {
        let next = cur;
        for (const [id, seq] of Object.entries(got)) if ((cur[id] ?? 0) < seq) next = next === cur ? { ...cur, [id]: seq } : Object.assign(next, { [id]: seq });
        return next;
      });
    };
    const closers = (ids ? ids.split('\n') : []).map((id) =>
      ext.stream(
        'channels/stream',
        { channelId: id, sinceSequence: lastRef.current[id] ?? 0 },
        (r) => {
          const seq = (r as { event?: { sequence?: unknown } })?.event?.sequence;
          if (typeof seq !== 'number') return;
          pending.current[id] = Math.max(pending.current[id] ?? 0, seq);
          if (timer.current === null) timer.current = window.setTimeout(flush, 100);
        },
        { agent },
      ),
    );
    return () => {
      closers.forEach((c) => c());
      if (timer.current !== null) window.clearTimeout(timer.current);
      timer.current = null;
    };
  }, [ext, agent, ids]);
  const upsert = useCallback((c: Channel) => {
    const put = (cur: Channel[]) => (cur.some((x) => x.id === c.id) ? cur.map((x) => (x.id === c.id ? c : x)) : [...cur, c]);
    if (c.id.startsWith('chan:direct:')) setDirects(put);
    else setChannels(put);
    setLast((cur) => ((cur[c.id] ?? 0) >= (c.lastSequence ?? 0) ? cur : { ...cur, [c.id]: c.lastSequence ?? 0 }));
  }, []);

  return { channels, directs, last, loaded, error, reload: () => setNonce((n) => n + 1), upsert };
}
