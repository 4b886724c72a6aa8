import { describe, expect, it, vi } from 'vitest';
import { bootstrap, keepToken, takeToken, tokenFromHash, TOKEN_KEY, withToken } from './bootstrap';

describe('tokenFromHash', () => {
  it.each([
    ['#token=abc', 'abc', ''],
    ['#token=a%2Fb', 'a/b', ''],
    ['#/inbox?token=abc', 'abc', '/inbox'],
    ['#/inbox&token=abc', 'abc', '/inbox'],
    ['#/tasks?x=1&token=abc&y=2', 'abc', '/tasks?x=1&y=2'],
    ['#/agents', null, '/agents'],
    ['', null, ''],
  ])('%s', (hash, token, rest) => {
    expect(tokenFromHash(hash)).toEqual({ token, rest });
  });
});

function fakeWindow(href: string, extra: Record<string, unknown> = {}) {
  const url = new URL(href);
  const store = new Map<string, string>();
  const loc = { hash: url.hash, pathname: url.pathname, search: url.search, host: url.host, protocol: url.protocol };
  const history = {
    state: null,
    replaceState: vi.fn((_s: unknown, _t: string, u: string) => {
      const n = new URL(u, href);
      loc.hash = n.hash;
    }),
  };
  const sessionStorage = {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  };
  const events = new EventTarget();
  const w = {
    location: loc,
    history,
    sessionStorage,
    addEventListener: events.addEventListener.bind(events),
    removeEventListener: events.removeEventListener.bind(events),
    ...extra,
  } as unknown as Window;
  const navigateHash = (hash: string) => {
    loc.hash = hash;
    events.dispatchEvent(new Event('hashchange'));
  };
  return { w, store, history, loc, navigateHash };
}

describe('takeToken', () => {
  it('moves the token from the URL to sessionStorage', () => {
    const { w, store, history, loc } = fakeWindow('http://127.0.0.1:47470/#token=s3cret');
    expect(takeToken(w.location, w.history, w.sessionStorage)).toBe('s3cret');
    expect(store.get(TOKEN_KEY)).toBe('s3cret');
    expect(history.replaceState).toHaveBeenCalledWith(null, '', '/');
    expect(loc.hash).toBe('');
  });

  it('keeps the route and uses the stored token after a reload', () => {
    const { w, store, history } = fakeWindow('http://127.0.0.1:47470/#/inbox');
    store.set(TOKEN_KEY, 'kept');
    expect(takeToken(w.location, w.history, w.sessionStorage)).toBe('kept');
    expect(history.replaceState).not.toHaveBeenCalled();
  });
});

describe('bootstrap', () => {
  it('uses the Wails binding in the desktop window', async () => {
    const Connection = vi.fn(async () => ({ wsUrl: 'ws://127.0.0.1:5555/ui/ws', token: 'a b', uiUrl: 'http://127.0.0.1:5555/' }));
    const { w } = fakeWindow('wails://wails/', { go: { app: { App: { Connection } } } });
    const b = await bootstrap(w, {});
    expect(b.mode).toBe('desktop');
    if (b.mode === 'no-token') throw new Error('unreachable');
    expect(await b.resolveUrl()).toBe('ws://127.0.0.1:5555/ui/ws?token=a%20b');
    expect(Connection).toHaveBeenCalledTimes(1);
  });

  it('connects to /ui/ws on the same host in a browser, and probes for a refused token', async () => {
    const { w } = fakeWindow('http://127.0.0.1:47470/#token=t1');
    const fetchImpl = vi.fn(async () => new Response('', { status: 401 }));
    const b = await bootstrap(w, {}, fetchImpl as unknown as typeof fetch);
    if (b.mode !== 'browser') throw new Error(`mode ${b.mode}`);
    expect(await b.resolveUrl()).toBe('ws://127.0.0.1:47470/ui/ws?token=t1');
    expect(await b.probeUnauthorized!()).toBe(true);
    expect(fetchImpl).toHaveBeenCalledWith('http://127.0.0.1:47470/ui/ws?token=t1', expect.anything());
  });

  it('uses wss on https', async () => {
    const { w } = fakeWindow('https://hub.local/#token=t1');
    const b = await bootstrap(w, {});
    if (b.mode === 'no-token') throw new Error('unreachable');
    expect(await b.resolveUrl()).toBe('wss://hub.local/ui/ws?token=t1');
  });

  it('points the dev server at VITE_HUB_WS', async () => {
    const { w } = fakeWindow('http://localhost:5173/#token=t2');
    const b = await bootstrap(w, { VITE_HUB_WS: 'ws://127.0.0.1:47471/ui/ws' });
    if (b.mode !== 'dev') throw new Error(`mode ${b.mode}`);
    expect(await b.resolveUrl()).toBe('ws://127.0.0.1:47471/ui/ws?token=t2');
  });

  it('switches to a new token opened in the same tab (the hub restarted)', async () => {
    const { w, loc, store, navigateHash } = fakeWindow('http://127.0.0.1:47470/#token=old');
    const b = await bootstrap(w, {});
    if (b.mode !== 'browser') throw new Error(`mode ${b.mode}`);
    const onToken = vi.fn();
    const off = b.watchToken!(onToken);
    navigateHash('#/tasks'); // an ordinary navigation is not a new token
    expect(onToken).not.toHaveBeenCalled();
    navigateHash('#token=new');
    expect(onToken).toHaveBeenCalledTimes(1);
    expect(await b.resolveUrl()).toBe('ws://127.0.0.1:47470/ui/ws?token=new');
    expect(store.get(TOKEN_KEY)).toBe('new');
    expect(loc.hash).toBe('');
    off();
    navigateHash('#token=newer');
    expect(onToken).toHaveBeenCalledTimes(1);
  });

  it('connects with a token regenerated in Settings, kept for this tab', async () => {
    const { w, store } = fakeWindow('http://127.0.0.1:47470/#token=old');
    const b = await bootstrap(w, {}, (async () => new Response('', { status: 400 })) as unknown as typeof fetch);
    if (b.mode !== 'browser') throw new Error(`mode ${b.mode}`);
    keepToken('regenerated', w.sessionStorage);
    expect(store.get(TOKEN_KEY)).toBe('regenerated');
    expect(await b.resolveUrl()).toBe('ws://127.0.0.1:47470/ui/ws?token=regenerated');
  });

  it('says so when there is no token', async () => {
    const { w } = fakeWindow('http://127.0.0.1:47470/');
    expect((await bootstrap(w, {})).mode).toBe('no-token');
  });

  it('withToken appends to a URL that already has a query', () => {
    expect(withToken('ws://h/ui/ws?x=1', 't')).toBe('ws://h/ui/ws?x=1&token=t');
  });
});
