import { describe, expect, it } from 'vitest';
import { applyMention, channelTitle, displayName, handleOf, joinableAgents, mentionedOutside, mentionAt, mentionHandle, mentionOptions, mentionSegments, slugOf } from './names';
import type { ChannelMember } from './model';

const agents = [
  { id: 'demo', name: 'AgentHub demo agent' },
  { id: 'weather-1', name: 'Weather' },
];
const m = (principalId: string, role = 'member'): ChannelMember => ({ principalId, role, joinedAt: 1 });

describe('names', () => {
  it('reads principal ids as people do', () => {
    expect(displayName('user://owner', agents)).toBe('You');
    expect(displayName('agent://alice', agents)).toBe('alice');
    expect(displayName('remote://demo', agents)).toBe('AgentHub demo agent');
    expect(displayName('remote://gone', agents)).toBe('gone');
    expect(handleOf('remote://weather-1')).toBe('weather-1');
  });

  it('titles a direct channel by the other member', () => {
    expect(channelTitle({ id: 'chan:direct:x', members: [m('user://owner'), m('agent://bob')] }, agents)).toBe('bob');
    expect(channelTitle({ id: 'c', name: ' research ', members: [] }, agents)).toBe('research');
  });
});

describe('mention completion', () => {
  it('finds the mention being typed at the caret, not an e-mail address', () => {
    expect(mentionAt('hi @de', 6)).toEqual({ start: 3, query: 'de' });
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('mail bob@demo', 13)).toBeNull();
    expect(mentionAt('hi @demo there', 14)).toBeNull();
    expect(mentionAt('hi @demo there', 8)).toEqual({ start: 3, query: 'demo' });
  });

  it('offers the members by handle or name, best first, never the owner, and @all when agents are in', () => {
    const members = [m('user://owner', 'owner'), m('remote://demo'), m('remote://weather-1'), m('agent://dana')];
    expect(mentionOptions(members, agents, 'd').map((o) => o.handle)).toEqual(['dana', 'demo']);
    expect(mentionOptions(members, agents, 'wea').map((o) => o.handle)).toEqual(['weather-1']);
    expect(mentionOptions(members, agents, 'AGENT').map((o) => o.handle)).toEqual(['demo']); // by name
    expect(mentionOptions(members, agents, '').map((o) => o.handle)).toEqual(['all', 'dana', 'demo', 'weather-1']);
    expect(mentionOptions([m('user://owner'), m('agent://dana')], agents, '').map((o) => o.handle)).toEqual(['dana']);
  });

  it('offers every agent that could join, after the members, marked as not in the channel', () => {
    const joinable = joinableAgents([
      { id: 'hub', kind: 'hub' },
      { id: 'demo', kind: 'local' },
      { id: 'weather-1', kind: 'remote' },
    ]);
    expect(joinable).toEqual(['remote://demo', 'remote://weather-1']);
    // A new channel: no member yet but the owner, and still every agent to mention.
    const fresh = mentionOptions([m('user://owner', 'owner')], agents, '', 'user://owner', joinable);
    expect(fresh.map((o) => [o.handle, o.member])).toEqual([
      ['demo', false],
      ['weather-1', false],
    ]);
    // Members first (even when a non-member matches better), a member is never listed twice.
    const some = mentionOptions([m('user://owner', 'owner'), m('remote://weather-1'), m('agent://dana')], agents, 'd', 'user://owner', joinable);
    expect(some.map((o) => [o.handle, o.member])).toEqual([
      ['dana', true],
      ['demo', false],
    ]);
    expect(mentionOptions([m('remote://demo')], agents, 'dem', 'user://owner', joinable).map((o) => o.handle)).toEqual(['demo']);
  });

  it('inserts "@handle " in place of what was typed', () => {
    expect(applyMention('hi @de', 6, 3, 'demo')).toEqual({ text: 'hi @demo ', caret: 9 });
    expect(applyMention('hi @de how', 6, 3, 'demo')).toEqual({ text: 'hi @demo how', caret: 9 });
  });
});

describe('mentionSegments', () => {
  it('names the members a text mentions, leaving other @words and e-mail addresses alone', () => {
    const members = [m('user://owner', 'owner'), m('remote://weather-1'), m('agent://dana')];
    expect(mentionSegments('@weather-1 and @DANA, see bob@dana or @nobody; @all.', members, agents)).toEqual([
      { mention: 'weather-1', label: 'Weather' },
      { text: ' and ' },
      { mention: 'DANA', label: 'dana' },
      { text: ', see bob@dana or @nobody; ' },
      { mention: 'all', label: 'all' },
      { text: '.' },
    ]);
    expect(mentionSegments('no mentions', members, agents)).toEqual([{ text: 'no mentions' }]);
  });
});

describe('added agents are mentioned by the slug of their name', () => {
  const named = [
    { id: '216af8fb-0d3c-4e55-9c1a-7a0e2b1c4d5e', name: 'a2a-js interop agent' },
    { id: 'demo', name: 'Demo agent' },
  ];
  const members = [
    m('user://owner', 'owner'),
    m('remote://216af8fb-0d3c-4e55-9c1a-7a0e2b1c4d5e'),
    m('remote://demo'),
    m('agent://alice'),
  ];

  it('makes the same slugs as the hub (bridge.Slug)', () => {
    expect(slugOf('Demo agent')).toBe('demo-agent');
    expect(slugOf('a2a-js interop agent')).toBe('a2a-js-interop-agent');
    expect(slugOf('  Météo / Bot!  ')).toBe('météo-bot');
    expect(slugOf('v1.0 agent.')).toBe('v1.0-agent');
    expect(slugOf('***')).toBe('');
  });

  it('completes to the slug, not the UUID, and keeps principals by their handle', () => {
    expect(mentionOptions(members, named, 'a2a').map((o) => o.handle)).toEqual(['a2a-js-interop-agent']);
    expect(mentionOptions(members, named, 'dem').map((o) => o.handle)).toEqual(['demo']); // a short word of an id stays
    expect(mentionOptions(members, named, 'ali').map((o) => o.handle)).toEqual(['alice']);
    expect(mentionHandle('remote://gone', named)).toBe('gone');
  });

  it('reads both the slug and the id as the agent', () => {
    const segs = mentionSegments('@a2a-js-interop-agent and @demo, hi', members, named);
    expect(segs.filter((s) => 'mention' in s)).toEqual([
      { mention: 'a2a-js-interop-agent', label: 'a2a-js interop agent' },
      { mention: 'demo', label: 'Demo agent' },
    ]);
  });
});

describe('mentionedOutside', () => {
  it('finds the agents a message mentions that are not in the channel, by handle or name slug, once each', () => {
    const named = [
      { id: 'demo', name: 'AgentHub demo agent' },
      { id: '216af8fb-1111-2222-3333-444455556666', name: 'a2a-js interop agent' },
    ];
    const joinable = ['remote://demo', 'remote://216af8fb-1111-2222-3333-444455556666'];
    const owner = m('user://owner', 'owner');
    expect(mentionedOutside('@demo hello', [owner], named, joinable)).toEqual(['remote://demo']);
    expect(mentionedOutside('@Demo, @a2a-js-interop-agent. and @demo again', [owner], named, joinable)).toEqual([
      'remote://demo',
      'remote://216af8fb-1111-2222-3333-444455556666',
    ]);
    expect(mentionedOutside('@demo hello', [owner, m('remote://demo')], named, joinable)).toEqual([]); // a member
    expect(mentionedOutside('mail bob@demo, @demos, @all', [owner], named, joinable)).toEqual([]);
  });
});
