// One open channel: its object, the run of events held (newest page first, older pages on demand,
// live events from channels/stream), and what the bridge says its agents are doing.

import { useCallback, useEffect, useRef, useState } from 'react';
import { getChannel, history, type Ext } from './api';
import { firstGap, mergeEvents, newestPage, olderPage } from './events';
import type { BridgeState, Channel, ChannelEvent, MemberEntry } from './model';

export interface ChannelState {
  channel: Channel | null;
  events: ChannelEvent[];
  /** the first page has arrived */
  loaded: boolean;
  /** sequence 1 is held (or the channel is empty): nothing older to load */
  atStart: boolean;
  loadingOlder: boolean;
  error: Error | null;
  /** agent member id -> its working state (channels of this hub only) */
  bridge: Record<string, BridgeState>;
}

const FIRST_PAGE = 50;

export function useChannel(ext: Ext, channelId: string, agent: string | undefined, refreshKey: number) {
  const [channel, setChannel] = useState<Channel | null>(null);
  const [events, setEvents] = useState<ChannelEvent[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const [bridge, setBridge] = useState<Record<string, BridgeState>>({});
  // Joins and leaves (channels of this hub only), shown among the events as system lines.
  const [joins, setJoins] = useState<MemberEntry[]>([]);
  // The channel's newest sequence when it was first read (what the unread divider may mark).
  const [newestAtOpen, setNewestAtOpen] = useState<number | undefined>(undefined);
  const eventsRef = useRef(events);
  eventsRef.current = events;
  const gen = useRef(0);

  const add = useCallback((incoming: ChannelEvent[]) => setEvents((cur) => mergeEvents(cur, incoming)), []);

  // The newest page, then the live stream from right after it (the stream replays whatever was
  // published in between, and mergeEvents drops what arrives twice).
  useEffect(() => {
    const my = ++gen.current;
    let close: (() => void) | undefined;
    setError(null);
    (async () => {
      try {
        const c = await getChannel(ext, channelId, agent);
        if (my !== gen.current) return;
        setChannel(c);
        const last = typeof c.lastSequence === 'number' ? c.lastSequence : 0;
        setNewestAtOpen((cur) => cur ?? last);
        const first = last > 0 ? await history(ext, channelId, newestPage(last, FIRST_PAGE), agent) : [];
        if (my !== gen.current) return;
        setEvents((cur) => mergeEvents(cur, first));
        setLoaded(true);
        const held = eventsRef.current;
        const since = Math.max(last, first.length ? first[first.length - 1].sequence : 0, held.length ? held[held.length - 1].sequence : 0);
        close = ext.stream(
          'channels/stream',
          { channelId, sinceSequence: since },
          (r) => {
            const item = r as { kind?: string; event?: ChannelEvent };
            if (item && item.kind === 'messageEvent' && item.event && typeof item.event.sequence === 'number') add([item.event]);
          },
          { agent, onError: (e) => my === gen.current && setError(e) },
        );
      } catch (e) {
        if (my === gen.current) {
          setError(e as Error);
          setLoaded(true);
        }
      }
    })();
    return () => {
      gen.current++;
      close?.();
    };
  }, [ext, channelId, agent, refreshKey, add]);

  // A hole (the stream skipped ahead, e.g. after a lag) is filled from history.
  const filling = useRef(false);
  useEffect(() => {
    const gap = firstGap(events);
    if (!gap || filling.current) return;
    filling.current = true;
    history(ext, channelId, gap, agent)
      .then(add, (e: Error) => setError(e))
      .finally(() => {
        filling.current = false;
      });
  }, [events, ext, channelId, agent, add]);

  const atStart = loaded && (events.length === 0 || events[0].sequence <= 1);
  const loadingRef = useRef(false);
  const loadOlder = useCallback(async () => {
    const held = eventsRef.current;
    const page = held.length ? olderPage(held[0].sequence) : null;
    if (!page || loadingRef.current) return;
    loadingRef.current = true;
    setLoadingOlder(true);
    const my = gen.current;
    try {
      const older = await history(ext, channelId, page, agent);
      if (my === gen.current) add(older);
    } catch (e) {
      if (my === gen.current) setError(e as Error);
    } finally {
      loadingRef.current = false;
      setLoadingOlder(false);
    }
  }, [ext, channelId, agent, add]);

  const joinsGen = useRef(0);
  const reloadJoins = useCallback(() => {
    if (agent || !ext.memberLog) return;
    const my = ++joinsGen.current;
    ext.memberLog(channelId).then(
      (list) => my === joinsGen.current && setJoins(list),
      () => {}, // an older gateway without it: no lines
    );
  }, [ext, channelId, agent]);
  useEffect(() => {
    setJoins([]);
    reloadJoins();
  }, [reloadJoins, refreshKey]);

  // The agents' working state: read once, then kept by the gateway's bridge topic (handled by the page).
  useEffect(() => {
    if (agent || !ext.bridgeStates) return;
    let live = true;
    ext.bridgeStates(channelId).then(
      (list) => live && setBridge(Object.fromEntries(list.map((s) => [s.member, s]))),
      () => {}, // a gateway without the bridge: no states to show
    );
    return () => {
      live = false;
    };
  }, [ext, channelId, agent, refreshKey]);
  const onBridge = useCallback(
    (s: BridgeState) => {
      if (!s || s.channelId !== channelId || typeof s.member !== 'string') return;
      setBridge((cur) => ({ ...cur, [s.member]: s }));
    },
    [channelId],
  );

  const state: ChannelState = { channel, events, loaded, atStart, loadingOlder, error, bridge };
  return { ...state, joins, reloadJoins, newestAtOpen, setChannel, add, loadOlder, onBridge };
}
