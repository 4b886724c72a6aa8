// The channels in the sidebar: those channels/list answers, plus (on this hub) the direct chats the
// owner has with principals, found by their deterministic ids since channels/list never lists them.
// On this hub the gateway's "channel" topic carries every new event (unread counts grow live) and
// every change of a channel the owner sees (the list is read again), one topic however many channels.
// Another hub has no such topic: its first MAX_REMOTE_STREAMS channels are watched with
// channels/stream, and the list (with every channel's newest sequence) is read every half minute.

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

/** Streams opened on another hub at most: the gateway allows 32 per connection, for every page. */
export const MAX_REMOTE_STREAMS = 16;

export function useChannelList(ext: Ext, client: HubClient, agent: string | undefined, refreshKey: number): ChannelList {
  const [channels, setChannels] = useState<Channel[]>([]);
  const [directs, setDirects] = useState<Channel[]>([]);
  const [last, setLast] = useState<Record<string, number>>({});
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState('');
  const [nonce, setNonce] = useState(0);
  const refetch = useCallback(() => setNonce((n) => n + 1), []);
  // Another hub pushes nothing of channels created, members added or direct chats opened: its list
  // is read again every half minute (the streams of the channels already listed stay open).
  useEffect(() => {
    if (!agent) return;
    const t = window.setInterval(refetch, 30_000);
    return () => window.clearInterval(t);
  }, [agent, refetch]);
  // A new connection may have missed pushes: this hub's list is read again on each one.
  const [connection, setConnection] = useState(client.state.connectionId);
  useEffect(() => client.onState((s) => setConnection(s.connectionId)), [client]);
  const listConnection = agent ? 0 : connection;

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
  }, [ext, client, agent, refreshKey, nonce, listConnection]);
  // Another source: nothing listed yet.
  useEffect(() => setLoaded(false), [agent]);

  // Arrivals are gathered and applied once a moment, so a burst of thousands of events costs a few
  // renders, not thousands.
  const pending = useRef<Record<string, number>>({});
  const timer = useRef<number | null>(null);
  const arrived = useCallback((id: string, seq: number) => {
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
    pending.current[id] = Math.max(pending.current[id] ?? 0, seq);
    if (timer.current === null) timer.current = window.setTimeout(flush, 100);
  }, []);
  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
      timer.current = null;
    },
    [],
  );

  // This hub: one topic for every channel. An event raises its channel's newest sequence; any other
  // change (created, members, updated, deleted) and a lag (pushes were dropped) read the list again.
  useEffect(() => {
    if (agent) return;
    const offChannel = client.on('channel', (d) => {
      if (!d || typeof d.channelId !== 'string') return;
      if (typeof d.sequence === 'number') arrived(d.channelId, d.sequence);
      else if (d.change) refetch();
    });
    const offLagged = client.on('lagged', refetch);
    return () => {
      offChannel();
      offLagged();
    };
  }, [client, agent, arrived, refetch]);

  // Another hub: one stream per channel, from its newest event, for the first MAX_REMOTE_STREAMS;
  // the others' counts move with the half-minute list.
  const ids = agent
    ? [...channels, ...directs]
        .slice(0, MAX_REMOTE_STREAMS)
        .map((c) => c.id)
        .join('\n')
    : '';
  const lastRef = useRef(last);
  lastRef.current = last;
  useEffect(() => {
    if (!agent || !ids) return;
    const closers = ids.split('\n').map((id) =>
      ext.stream(
        'channels/stream',
        { channelId: id, sinceSequence: lastRef.current[id] ?? 0 },
        (r) => {
          const seq = (r as { event?: { sequence?: unknown } })?.event?.sequence;
          if (typeof seq === 'number') arrived(id, seq);
        },
        { agent },
      ),
    );
    return () => closers.forEach((c) => c());
  }, [ext, agent, ids, arrived]);
  const upsert = useCallback((c: Channel) => {
    const put = (cur: Channel[]) => (cur.some((x) => x.id === c.id) ? cur.map((x) => (x.id === c.id ? c : x)) : [...cur, c]);
    if (c.id.startsWith('chan:direct:')) setDirects(put);
    else setChannels(put);
    setLast((cur) => ((cur[c.id] ?? 0) >= (c.lastSequence ?? 0) ? cur : { ...cur, [c.id]: c.lastSequence ?? 0 }));
  }, []);

  return { channels, directs, last, loaded, error, reload: refetch, upsert };
}
