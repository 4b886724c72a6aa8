// The websocket client of the UI gateway (backend/uiapi): requests matched to replies by id, pushed
// topics dispatched to subscribers, and automatic reconnection with exponential backoff.

import type { ExtFrame, MethodName, Methods, RpcErrorDetail, TopicName, Topics } from './types';

export type ConnectionState =
  | 'connecting' // first attempt, nothing shown yet
  | 'open'
  | 'reconnecting' // lost (or never reached): waiting for the next attempt
  | 'unauthorized' // the hub refused our token: retrying will not help
  | 'stopped';

export class HubError extends Error {
  readonly code: string;
  /** code "rpc_error": the JSON-RPC error the extension answered (its code, e.g. -32020). */
  readonly rpc?: RpcErrorDetail;
  constructor(code: string, message: string, rpc?: RpcErrorDetail) {
    super(message);
    this.name = 'HubError';
    this.code = code;
    this.rpc = rpc;
  }
}

/** The subset of the browser WebSocket the client uses (so tests can pass a fake). */
export interface SocketLike {
  readyState: number;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type SocketFactory = (url: string) => SocketLike;

export interface Backoff {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** 0..1: the delay is reduced by up to this fraction at random, so many tabs do not retry in step. */
  jitter: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 500, maxMs: 5_000, factor: 2, jitter: 0.2 };

/** Delay before reconnect attempt number `attempt` (0-based). */
export function backoffDelay(attempt: number, b: Backoff = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const base = Math.min(b.maxMs, b.initialMs * Math.pow(b.factor, Math.max(0, attempt)));
  return Math.round(base * (1 - b.jitter * random()));
}

export interface HubClientOptions {
  /** The full websocket URL (token included); called before every attempt. */
  resolveUrl: () => Promise<string> | string;
  socketFactory?: SocketFactory;
  backoff?: Backoff;
  /** A call that gets no reply within this time is rejected with code "timeout". */
  requestTimeoutMs?: number;
  /** Asked after an attempt that never opened: true when the hub refuses the token (HTTP 401). */
  probeUnauthorized?: () => Promise<boolean>;
  random?: () => number;
}

interface Pending {
  id: number;
  frame: string;
  sent: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

type Handler = (data: unknown) => void;

export interface StateInfo {
  state: ConnectionState;
  /** Increments each time a connection opens: a change means "refetch what is on screen". */
  connectionId: number;
  /** When the next attempt is due (ms since epoch), while reconnecting. */
  retryAt?: number;
  lastError?: string;
}

const OPEN = 1;

export class HubClient {
  private readonly opts: Required<Omit<HubClientOptions, 'probeUnauthorized'>> &
    Pick<HubClientOptions, 'probeUnauthorized'>;
  private socket: SocketLike | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private topicHandlers = new Map<string, Set<Handler>>();
  private stateHandlers = new Set<(s: StateInfo) => void>();
  private info: StateInfo = { state: 'connecting', connectionId: 0 };
  private attempt = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private stopped = true;
  /** Bumped by start, stop and each attempt: an attempt that finds it changed gives up. */
  private gen = 0;

  constructor(opts: HubClientOptions) {
    this.opts = {
      socketFactory: (url) => new WebSocket(url) as unknown as SocketLike,
      backoff: DEFAULT_BACKOFF,
      requestTimeoutMs: 30_000,
      random: Math.random,
      ...opts,
    };
  }

  get state(): StateInfo {
    return this.info;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.gen++;
    void this.connect();
  }

  stop(): void {
    this.stopped = true;
    this.gen++;
    this.dropSocket('bye');
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new HubError('disconnected', 'The client was stopped.'));
    }
    this.pending.clear();
    this.setState({ state: 'stopped' });
  }

  /**
   * Drops the current connection (if any) and connects again at once: for a new token (the person
   * opened a fresh link in this tab), also out of the "unauthorized" state.
   */
  reconnect(): void {
    if (this.stopped) return;
    if (this.dropSocket('reconnect')) {
      for (const p of [...this.pending.values()]) {
        if (!p.sent) continue;
        clearTimeout(p.timer);
        this.pending.delete(p.id);
        p.reject(new HubError('disconnected', 'The connection to the hub was renewed.'));
      }
    }
    this.attempt = 0;
    void this.connect();
  }

  /** Cancels a pending retry and closes the socket without its handlers firing; reports whether there was one. */
  private dropSocket(reason: string): boolean {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const s = this.socket;
    this.socket = null;
    if (!s) return false;
    s.onclose = s.onmessage = s.onerror = s.onopen = null;
    try {
      s.close(1000, reason);
    } catch {
      /* already closed */
    }
    return true;
  }

  /** Skip the rest of the backoff delay and try now. */
  retryNow(): void {
    if (this.stopped || this.info.state === 'open' || this.socket) return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    void this.connect();
  }

  call<M extends MethodName>(method: M, params: Methods[M][0]): Promise<Methods[M][1]> {
    const id = this.nextId++;
    const frame = JSON.stringify({ id, method, params });
    return new Promise<Methods[M][1]>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new HubError('timeout', `No reply to ${method} in time.`));
      }, this.opts.requestTimeoutMs);
      const p: Pending = { id, frame, sent: false, resolve: resolve as (v: unknown) => void, reject, timer };
      this.pending.set(id, p);
      this.flush();
    });
  }

  /** Subscribes to a pushed topic; returns the unsubscribe function. */
  on<T extends TopicName>(topic: T, handler: (data: Topics[T]) => void): () => void {
    let set = this.topicHandlers.get(topic);
    if (!set) {
      set = new Set();
      this.topicHandlers.set(topic, set);
    }
    const h = handler as Handler;
    set.add(h);
    return () => {
      set.delete(h);
    };
  }

  onState(handler: (s: StateInfo) => void): () => void {
    this.stateHandlers.add(handler);
    return () => {
      this.stateHandlers.delete(handler);
    };
  }

  private setState(patch: Partial<StateInfo>): void {
    this.info = { ...this.info, ...patch };
    for (const h of [...this.stateHandlers]) {
      try {
        h(this.info);
      } catch (e) {
        console.error(e);
      }
    }
  }

  private flush(): void {
    const s = this.socket;
    if (!s || s.readyState !== OPEN || this.info.state !== 'open') return;
    for (const p of this.pending.values()) {
      if (p.sent) continue;
      try {
        s.send(p.frame);
        p.sent = true;
      } catch {
        return; // the close handler will deal with it
      }
    }
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.gen;
    this.setState({ state: this.info.connectionId === 0 && this.attempt === 0 ? 'connecting' : 'reconnecting', retryAt: undefined });
    let url: string;
    try {
      url = await this.opts.resolveUrl();
    } catch (e) {
      if (gen === this.gen) this.scheduleRetry(String((e as Error)?.message ?? e));
      return;
    }
    if (this.stopped || gen !== this.gen) return;
    let socket: SocketLike;
    try {
      socket = this.opts.socketFactory(url);
    } catch (e) {
      this.scheduleRetry(String((e as Error)?.message ?? e));
      return;
    }
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      opened = true;
      this.attempt = 0;
      this.setState({ state: 'open', connectionId: this.info.connectionId + 1, retryAt: undefined, lastError: undefined });
      this.flush();
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      this.receive(ev.data);
    };
    socket.onerror = () => {
      /* onclose follows */
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      // Replies to frames already sent will never come.
      for (const p of [...this.pending.values()]) {
        if (!p.sent) continue;
        clearTimeout(p.timer);
        this.pending.delete(p.id);
        p.reject(new HubError('disconnected', 'The connection to the hub was lost.'));
      }
      if (this.stopped) return;
      if (!opened && this.opts.probeUnauthorized) {
        void this.opts.probeUnauthorized().then(
          (refused) => {
            if (this.stopped || gen !== this.gen) return; // a newer attempt (e.g. a new token) took over
            if (refused) {
              this.setState({ state: 'unauthorized', lastError: 'The hub refused the token.' });
            } else {
              this.scheduleRetry('Could not reach the hub.');
            }
          },
          () => {
            if (!this.stopped && gen === this.gen) this.scheduleRetry('Could not reach the hub.');
          },
        );
        return;
      }
      this.scheduleRetry(opened ? 'The connection to the hub was lost.' : 'Could not reach the hub.');
    };
  }

  private scheduleRetry(error: string): void {
    if (this.stopped) return;
    const delay = backoffDelay(this.attempt, this.opts.backoff, this.opts.random);
    this.attempt++;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.setState({ state: 'reconnecting', retryAt: Date.now() + delay, lastError: error });
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(data);
    } catch {
      return;
    }
    if (!frame || typeof frame !== 'object') return;
    const f = frame as { id?: unknown; result?: unknown; error?: unknown; topic?: unknown; data?: unknown };
    if (typeof f.id === 'number') {
      const p = this.pending.get(f.id);
      if (!p) return;
      this.pending.delete(f.id);
      clearTimeout(p.timer);
      if (f.error && typeof f.error === 'object') {
        const e = f.error as { code?: unknown; message?: unknown; rpc?: unknown };
        const rpc = e.rpc && typeof e.rpc === 'object' && typeof (e.rpc as RpcErrorDetail).code === 'number' ? (e.rpc as RpcErrorDetail) : undefined;
        p.reject(new HubError(typeof e.code === 'string' ? e.code : 'internal', typeof e.message === 'string' ? e.message : 'Request failed.', rpc));
      } else {
        p.resolve(f.result);
      }
      return;
    }
    if (typeof f.topic === 'string') {
      const set = this.topicHandlers.get(f.topic);
      if (!set) return;
      for (const h of [...set]) {
        try {
          h(f.data);
        } catch (e) {
          console.error(e);
        }
      }
    }
  }
}

/**
 * Calls an extension method (channels/…, knowledge/…) with the spec's own params and returns its
 * result: on this hub as the owner, or on the added agent `agent`. A JSON-RPC error the extension
 * answers rejects with a HubError whose `rpc` holds its code.
 */
export function extCall<T = unknown>(client: HubClient, method: string, params: unknown, agent?: string): Promise<T> {
  return client.call('ext.call', agent ? { agent, method, params } : { method, params }) as Promise<T>;
}

export interface ExtStreamOptions {
  agent?: string;
  /** The stream's error (the extension's JSON-RPC error, or the connection lost: code 0); onEnd follows. */
  onError?: (e: RpcErrorDetail) => void;
  /** The stream ended, for whatever reason; called once. Resume with the spec's own cursor. */
  onEnd?: () => void;
}

/**
 * Opens an extension stream (channels/stream, knowledge/subscribe) and calls onResult with each result
 * in order. Resolves to a close function once the stream is open; rejects like extCall when it cannot
 * open. A lost connection ends the stream (onError with code 0, then onEnd): the hub closed it too.
 */
export async function extStream(
  client: HubClient,
  method: string,
  params: unknown,
  onResult: (result: unknown) => void,
  opts: ExtStreamOptions = {},
): Promise<() => void> {
  let id: string | null = null;
  let ended = false;
  const early: ExtFrame[] = [];
  const connection = client.state.connectionId;
  const finish = () => {
    if (ended) return;
    ended = true;
    offFrames();
    offState();
    opts.onEnd?.();
  };
  const handle = (f: ExtFrame) => {
    if (ended) return;
    if (f.result !== undefined) onResult(f.result);
    if (f.error) opts.onError?.(f.error);
    if (f.end) finish();
  };
  const offFrames = client.on('ext', (f) => {
    if (id === null) early.push(f); // the hub sends the reply first; kept only in case of reordering
    else if (f.stream === id) handle(f);
  });
  const offState = client.onState((s) => {
    if (ended || id === null) return;
    if (s.state !== 'open' || s.connectionId !== connection) {
      opts.onError?.({ code: 0, message: 'The connection to the hub was lost.' });
      finish();
    }
  });
  let opened: { stream: string };
  try {
    opened = await client.call('ext.stream', opts.agent ? { agent: opts.agent, method, params } : { method, params });
  } catch (e) {
    offFrames();
    offState();
    throw e;
  }
  id = opened.stream;
  for (const f of early.splice(0)) if (f.stream === id) handle(f);
  return () => {
    if (ended) return;
    ended = true;
    offFrames();
    offState();
    void client.call('ext.close', { stream: opened.stream }).catch(() => {});
  };
}
