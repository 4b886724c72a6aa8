// Navigation is the URL fragment, so every view has a deep link:
//   #/agents  #/agents/<id>  #/tasks  #/tasks/<agent>/<id>  #/inbox  #/inbox/<id>  #/settings

import { useEffect, useState } from 'react';

export type Area = 'agents' | 'tasks' | 'inbox' | 'settings';

export type Route =
  | { area: 'agents'; agentId?: string }
  | { area: 'tasks'; agent?: string; taskId?: string }
  | { area: 'inbox'; taskId?: string }
  | { area: 'settings' };

function dec(s: string | undefined): string | undefined {
  if (s === undefined || s === '') return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function parseHash(hash: string): Route {
  const raw = (hash.startsWith('#') ? hash.slice(1) : hash).split('?')[0];
  const seg = raw.split('/').filter((s) => s !== '');
  switch (seg[0]) {
    case 'tasks':
      if (seg.length >= 3) return { area: 'tasks', agent: dec(seg[1]), taskId: dec(seg.slice(2).join('/')) };
      return { area: 'tasks' };
    case 'inbox':
      return seg.length >= 2 ? { area: 'inbox', taskId: dec(seg.slice(1).join('/')) } : { area: 'inbox' };
    case 'settings':
      return { area: 'settings' };
    case 'agents':
    default:
      return seg[0] === 'agents' && seg.length >= 2 ? { area: 'agents', agentId: dec(seg.slice(1).join('/')) } : { area: 'agents' };
  }
}

const enc = encodeURIComponent;

export function hrefOf(r: Route): string {
  switch (r.area) {
    case 'agents':
      return r.agentId ? `#/agents/${enc(r.agentId)}` : '#/agents';
    case 'tasks':
      return r.agent && r.taskId ? `#/tasks/${enc(r.agent)}/${enc(r.taskId)}` : '#/tasks';
    case 'inbox':
      return r.taskId ? `#/inbox/${enc(r.taskId)}` : '#/inbox';
    case 'settings':
      return '#/settings';
  }
}

export function navigate(r: Route | string): void {
  const href = typeof r === 'string' ? r : hrefOf(r);
  if (window.location.hash !== href) window.location.hash = href;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', on);
    on();
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}
