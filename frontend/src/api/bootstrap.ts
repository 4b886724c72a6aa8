// Where the websocket is and which token opens it: from the Wails binding in the desktop window, from
// the one-time link `agenthub serve` prints in a browser, or from VITE_HUB_WS for `npm run dev`.

export const TOKEN_KEY = 'agenthub.token';

export interface DesktopConnection {
  wsUrl: string;
  token: string;
  uiUrl: string;
}

export type Bootstrap =
  | {
      mode: 'desktop' | 'browser' | 'dev';
      resolveUrl: () => Promise<string>;
      probeUnauthorized?: () => Promise<boolean>;
      /**
       * Calls back when a new token arrives in the URL of this tab (a fresh link opened in it);
       * returns the unsubscribe function.
       */
      watchToken?: (onToken: () => void) => () => void;
    }
  | { mode: 'no-token' };

interface WailsWindow {
  go?: { app?: { App?: { Connection?: () => Promise<DesktopConnection> } } };
  wails?: unknown;
  runtime?: unknown;
}

export function withToken(wsUrl: string, token: string): string {
  return wsUrl + (wsUrl.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token);
}

/** Reads `token` from a fragment such as "#token=abc", "#/inbox?token=abc" or "#/inbox&token=abc". */
export function tokenFromHash(hash: string): { token: string | null; rest: string } {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const qi = raw.indexOf('?');
  const pathParts = (qi >= 0 ? raw.slice(0, qi) : raw).split('&');
  let path = pathParts[0];
  const params = pathParts.slice(1);
  if (path.includes('=') && !path.startsWith('/')) {
    params.unshift(path);
    path = '';
  }
  if (qi >= 0) params.push(...raw.slice(qi + 1).split('&'));
  let token: string | null = null;
  const kept: string[] = [];
  for (const p of params) {
    if (!p) continue;
    if (p.startsWith('token=')) {
      const v = p.slice('token='.length);
      try {
        token = decodeURIComponent(v);
      } catch {
        token = v;
      }
    } else {
      kept.push(p);
    }
  }
  return { token: token || null, rest: path + (kept.length ? '?' + kept.join('&') : '') };
}

/**
 * Takes the token out of the visible URL (so it is not bookmarked, shared or kept in history) and keeps
 * it for this tab in sessionStorage. Returns the token to use, or null when there is none.
 */
export function takeToken(loc: Location, hist: History, storage: Storage | null): string | null {
  const { token, rest } = tokenFromHash(loc.hash);
  if (token) {
    try {
      storage?.setItem(TOKEN_KEY, token);
    } catch {
      /* storage may be unavailable; the token still works for this page */
    }
    hist.replaceState(hist.state, '', loc.pathname + loc.search + (rest ? '#' + rest : ''));
    return token;
  }
  try {
    return storage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

/**
 * Keeps a regenerated token for this tab (Settings → Regenerate): the next connection uses it. The
 * desktop window asks its binding for the token each time and needs nothing kept.
 */
export function keepToken(token: string, storage: Storage | null = safeSessionStorage()): void {
  try {
    storage?.setItem(TOKEN_KEY, token);
  } catch {
    /* no storage: this page keeps the old token until reloaded with the new link */
  }
}

function safeSessionStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

function desktopBinding(w: WailsWindow): (() => Promise<DesktopConnection>) | undefined {
  const fn = w.go?.app?.App?.Connection;
  return typeof fn === 'function' ? fn : undefined;
}

function looksLikeWails(w: WailsWindow, loc: Location): boolean {
  return loc.protocol === 'wails:' || w.wails !== undefined || w.runtime !== undefined;
}

async function waitForBinding(w: WailsWindow, ms: number): Promise<(() => Promise<DesktopConnection>) | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const fn = desktopBinding(w);
    if (fn || Date.now() >= until) return fn;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface BootstrapEnv {
  VITE_HUB_WS?: string;
  VITE_HUB_TOKEN?: string;
}

export async function bootstrap(
  w: Window = window,
  env: BootstrapEnv = import.meta.env as BootstrapEnv,
  fetchImpl: typeof fetch = (...a) => fetch(...a),
): Promise<Bootstrap> {
  const ww = w as unknown as WailsWindow;
  const binding = desktopBinding(ww) ?? (looksLikeWails(ww, w.location) ? await waitForBinding(ww, 3000) : undefined);
  if (binding) {
    return {
      mode: 'desktop',
      resolveUrl: async () => {
        const c = await binding.call(ww.go!.app!.App);
        return withToken(c.wsUrl, c.token);
      },
    };
  }

  let storage: Storage | null = null;
  try {
    storage = w.sessionStorage;
  } catch {
    storage = null;
  }
  let token = takeToken(w.location, w.history, storage) ?? (env.VITE_HUB_TOKEN || null);
  if (!token) return { mode: 'no-token' };
  // A token regenerated in Settings lands in storage (keepToken): it wins over the one read at load.
  const current = () => {
    try {
      return storage?.getItem(TOKEN_KEY) || token!;
    } catch {
      return token!;
    }
  };

  const watchToken = (onToken: () => void) => {
    const on = () => {
      if (!tokenFromHash(w.location.hash).token) return;
      const t = takeToken(w.location, w.history, storage);
      if (t) {
        token = t;
        onToken();
      }
    };
    w.addEventListener('hashchange', on);
    return () => w.removeEventListener('hashchange', on);
  };

  if (env.VITE_HUB_WS) {
    const base = env.VITE_HUB_WS;
    return { mode: 'dev', resolveUrl: async () => withToken(base, current()), watchToken };
  }

  const secure = w.location.protocol === 'https:';
  const wsBase = `${secure ? 'wss' : 'ws'}://${w.location.host}/ui/ws`;
  return {
    mode: 'browser',
    resolveUrl: async () => withToken(wsBase, current()),
    watchToken,
    // A plain GET of /ui/ws with a good token is a failed upgrade (400); with a bad one it is 401.
    probeUnauthorized: async () => {
      try {
        const r = await fetchImpl(withToken(`${w.location.protocol}//${w.location.host}/ui/ws`, current()), {
          cache: 'no-store',
          credentials: 'omit',
        });
        return r.status === 401;
      } catch {
        return false;
      }
    },
  };
}
