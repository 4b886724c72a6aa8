// Navigation is the URL fragment, so every view has a deep link:
//   #/agents  #/agents/<id>  #/agents/<id>/log  #/agents/<id>/credentials
//   #/chats  #/chats/<conversationId>  #/chats/channel/<channelId>[?agent=<agentId>] (a channel, on
//   an added agent's hub with ?agent)  #/tasks  #/tasks/<agent>/<id>  #/inbox  #/inbox/<id>  #/settings
//   #/settings/access  #/knowledge  #/knowledge?agent=<id> (an added agent's knowledge graph)
//   #/scenarios  #/scenarios/<id>

import { useEffect, useState } from 'react';

export type Area = 'agents' | 'chats' | 'tasks' | 'inbox' | 'knowledge' | 'scenarios' | 'settings';

/** A view of one agent: its card (default), its raw wire log, or its card scrolled to the credentials. */
export type AgentView = 'log' | 'credentials';

export type Route =
  | { area: 'agents'; agentId?: string; view?: AgentView }
  | { area: 'chats'; conversationId?: string; channelId?: string; agent?: string }
  | { area: 'tasks'; agent?: string; taskId?: string }
  | { area: 'inbox'; taskId?: string }
  | { area: 'knowledge'; agent?: string }
  | { area: 'scenarios'; scenarioId?: string }
  | { area: 'settings'; section?: SettingsSection };

/** A section of Settings with a deep link of its own (the page scrolls to it). */
export type SettingsSection = 'access';

function dec(s: string | undefined): string | undefined {
  if (s === undefined || s === '') return undefined;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

const AGENT_VIEWS = new Set<string>(['log', 'credentials']);

export function parseHash(hash: string): Route {
  const [raw, search = ''] = (hash.startsWith('#') ? hash.slice(1) : hash).split('?');
  const seg = raw.split('/').filter((s) => s !== '');
  switch (seg[0]) {
    case 'knowledge': {
      const agent = new URLSearchParams(search).get('agent');
      return agent ? { area: 'knowledge', agent } : { area: 'knowledge' };
    }
    case 'tasks':
      if (seg.length >= 3) return { area: 'tasks', agent: dec(seg[1]), taskId: dec(seg.slice(2).join('/')) };
      return { area: 'tasks' };
    case 'chats':
      if (seg[1] === 'channel' && seg.length >= 3) {
        const agent = new URLSearchParams(search).get('agent') || undefined;
        return { area: 'chats', channelId: dec(seg.slice(2).join('/')), ...(agent ? { agent } : {}) };
      }
      return seg.length >= 2 ? { area: 'chats', conversationId: dec(seg.slice(1).join('/')) } : { area: 'chats' };
    case 'inbox':
      return seg.length >= 2 ? { area: 'inbox', taskId: dec(seg.slice(1).join('/')) } : { area: 'inbox' };
    case 'scenarios':
      return seg.length >= 2 ? { area: 'scenarios', scenarioId: dec(seg.slice(1).join('/')) } : { area: 'scenarios' };
    case 'settings':
      return seg[1] === 'access' ? { area: 'settings', section: 'access' } : { area: 'settings' };
    case 'agents':
    default: {
      if (seg[0] !== 'agents' || seg.length < 2) return { area: 'agents' };
      // ids are encoded by hrefOf, so a third segment is a view
      if (seg.length === 3 && AGENT_VIEWS.has(seg[2])) return { area: 'agents', agentId: dec(seg[1]), view: seg[2] as AgentView };
      return { area: 'agents', agentId: dec(seg.slice(1).join('/')) };
    }
  }
}

const enc = encodeURIComponent;

export function hrefOf(r: Route): string {
  switch (r.area) {
    case 'agents':
      if (!r.agentId) return '#/agents';
      return r.view ? `#/agents/${enc(r.agentId)}/${r.view}` : `#/agents/${enc(r.agentId)}`;
    case 'chats':
      if (r.channelId) return `#/chats/channel/${enc(r.channelId)}${r.agent ? `?agent=${enc(r.agent)}` : ''}`;
      return r.conversationId ? `#/chats/${enc(r.conversationId)}` : '#/chats';
    case 'tasks':
      return r.agent && r.taskId ? `#/tasks/${enc(r.agent)}/${enc(r.taskId)}` : '#/tasks';
    case 'inbox':
      return r.taskId ? `#/inbox/${enc(r.taskId)}` : '#/inbox';
    case 'knowledge':
      return r.agent ? `#/knowledge?agent=${enc(r.agent)}` : '#/knowledge';
    case 'scenarios':
      return r.scenarioId ? `#/scenarios/${enc(r.scenarioId)}` : '#/scenarios';
    case 'settings':
      return r.section ? `#/settings/${r.section}` : '#/settings';
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
