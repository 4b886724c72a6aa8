import { describe, expect, it } from 'vitest';
import { hrefOf, parseHash, type Route } from './router';

describe('router', () => {
  it.each<[string, Route]>([
    ['', { area: 'agents' }],
    ['#/agents', { area: 'agents' }],
    ['#/agents/demo', { area: 'agents', agentId: 'demo' }],
    ['#/tasks', { area: 'tasks' }],
    ['#/tasks/hub/01a1-ff', { area: 'tasks', agent: 'hub', taskId: '01a1-ff' }],
    ['#/inbox/abc', { area: 'inbox', taskId: 'abc' }],
    ['#/agents/demo/log', { area: 'agents', agentId: 'demo', view: 'log' }],
    ['#/agents/demo/credentials', { area: 'agents', agentId: 'demo', view: 'credentials' }],
    ['#/agents/a/b', { area: 'agents', agentId: 'a/b' }],
    ['#/chats', { area: 'chats' }],
    ['#/chats/c-1', { area: 'chats', conversationId: 'c-1' }],
    ['#/chats/channel/abc', { area: 'chats', channelId: 'abc' }],
    ['#/chats/channel/chan%3Adirect%3A12?agent=peer', { area: 'chats', channelId: 'chan:direct:12', agent: 'peer' }],
    ['#/settings', { area: 'settings' }],
    ['#/settings/access', { area: 'settings', section: 'access' }],
    ['#/settings/nonsense', { area: 'settings' }],
    ['#/knowledge', { area: 'knowledge' }],
    ['#/knowledge?agent=a1', { area: 'knowledge', agent: 'a1' }],
    ['#/knowledge?other=1', { area: 'knowledge' }],
    ['#/scenarios', { area: 'scenarios' }],
    ['#/scenarios/s%2F1', { area: 'scenarios', scenarioId: 's/1' }],
    ['#/nonsense', { area: 'agents' }],
    ['#token=abc', { area: 'agents' }],
  ])('%s', (hash, route) => {
    expect(parseHash(hash)).toEqual(route);
  });

  it('round-trips the knowledge graph of an agent whose id has reserved characters', () => {
    const r: Route = { area: 'knowledge', agent: 'a&b=c?d' };
    expect(hrefOf(r)).toBe('#/knowledge?agent=a%26b%3Dc%3Fd');
    expect(parseHash(hrefOf(r))).toEqual(r);
    expect(hrefOf({ area: 'knowledge' })).toBe('#/knowledge');
  });

  it('round-trips ids with reserved characters', () => {
    const r: Route = { area: 'tasks', agent: 'a/b', taskId: 'x?y#z/1' };
    expect(hrefOf(r)).toBe('#/tasks/a%2Fb/x%3Fy%23z%2F1');
    expect(parseHash(hrefOf(r))).toEqual(r);
  });

  it('round-trips agent views and conversations, even for ids that look like views', () => {
    for (const r of [
      { area: 'agents', agentId: 'x/log', view: 'log' },
      { area: 'agents', agentId: 'log' },
      { area: 'agents', agentId: 'a b', view: 'credentials' },
      { area: 'chats', conversationId: 'c/1?#' },
      { area: 'chats', channelId: 'chan:direct:1?#' },
      { area: 'chats', channelId: 'c 1', agent: 'a/b?c' },
      { area: 'settings', section: 'access' },
    ] as Route[]) {
      expect(parseHash(hrefOf(r))).toEqual(r);
    }
    expect(hrefOf({ area: 'agents', agentId: 'x/log' })).toBe('#/agents/x%2Flog');
  });
});
