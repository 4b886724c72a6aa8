// Who is who in a channel: principal ids as people read them, and the @mention completion of the
// composer. A member is mentioned as `@handle`, handle = the part of its id after "://"; an added
// agent (remote://ID, ID a UUID nobody types) also by the slug of its name, which completion inserts.

import type { AgentInfo } from '../api/types';
import type { ChannelMember } from './model';
import { OWNER } from './model';

/** The part of a principal id after "://" (what an @mention names); the id itself if it has none. */
export function handleOf(principalId: string): string {
  const i = principalId.indexOf('://');
  return i >= 0 ? principalId.slice(i + 3) : principalId;
}

/**
 * The handle an added agent's name makes (the hub's bridge.Slug): lower case, every run of characters a
 * handle cannot hold turned into one "-", no "-" or "." at either end. "Demo agent" → "demo-agent".
 */
export function slugOf(name: string): string {
  let out = '';
  let dash = false;
  for (const ch of name.toLowerCase()) {
    if (HANDLE_CHAR.test(ch)) {
      out += ch;
      dash = false;
    } else if (!dash) {
      out += '-';
      dash = true;
    }
  }
  return out.replace(/^[-.]+|[-.]+$/g, '');
}

/**
 * What completion inserts after "@" for a member: its handle, except for an added agent whose id is a
 * UUID (every agent added by URL): the slug of its name, when the name makes one.
 */
export function mentionHandle(principalId: string, agents: Pick<AgentInfo, 'id' | 'name'>[]): string {
  const handle = handleOf(principalId);
  if (schemeOf(principalId) !== 'remote' || !/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(handle)) return handle;
  const a = agents.find((x) => x.id === handle);
  return slugOf(a?.name ?? '') || handle;
}

export function schemeOf(principalId: string): string {
  const i = principalId.indexOf('://');
  return i >= 0 ? principalId.slice(0, i) : '';
}

/**
 * A principal's name: the owner is "You", agent://NAME is NAME, remote://ID is the added agent's
 * name (its id when it was removed), any other id its handle.
 */
export function displayName(principalId: string, agents: Pick<AgentInfo, 'id' | 'name'>[], me = OWNER): string {
  if (principalId === me) return 'You';
  const handle = handleOf(principalId);
  if (schemeOf(principalId) === 'remote') {
    const a = agents.find((x) => x.id === handle);
    return (a?.name || '').trim() || handle;
  }
  return handle || principalId;
}

/** What a member is, in a word: the person at this hub, a principal with a key, or an added agent. */
export function memberKind(principalId: string, me = OWNER): 'you' | 'principal' | 'agent' {
  if (principalId === me) return 'you';
  return schemeOf(principalId) === 'remote' ? 'agent' : 'principal';
}

const HANDLE_CHAR = /[\p{L}\p{N}_.\-]/u;

/**
 * The @mention being typed at caret: its start (the index of "@") and what follows it so far. null
 * when the caret is not in one (an "@" in the middle of a word, e.g. an e-mail address, is not).
 */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  let i = caret;
  while (i > 0 && HANDLE_CHAR.test(text[i - 1])) i--;
  if (i === 0 || text[i - 1] !== '@') return null;
  const at = i - 1;
  if (at > 0 && HANDLE_CHAR.test(text[at - 1])) return null;
  return { start: at, query: text.slice(i, caret) };
}

export interface MentionOption {
  handle: string;
  /** the name shown beside the handle */
  label: string;
  principalId: string;
  /** false: an agent that could join but is not in the channel (a mention of it reaches no one yet) */
  member: boolean;
}

/** The added agents that could join a channel, as principal ids (remote://ID; not the hub itself). */
export function joinableAgents(agents: Pick<AgentInfo, 'id' | 'kind'>[]): string[] {
  return agents.filter((a) => a.kind !== 'hub').map((a) => `remote://${a.id}`);
}

/**
 * What an @query may complete to (not the owner), best first: the members, then the agents in
 * `joinable` that are not members (as Slack lists people outside the channel, marked so), each group
 * those whose handle or name starts with the query, then those containing it; "all" when the channel
 * has added agents (it mentions every one of them).
 */
export function mentionOptions(
  members: ChannelMember[],
  agents: Pick<AgentInfo, 'id' | 'name'>[],
  query: string,
  me = OWNER,
  joinable: string[] = [],
): MentionOption[] {
  const q = query.toLowerCase();
  const have = new Set(members.map((m) => m.principalId));
  const opt = (principalId: string, member: boolean): MentionOption => ({
    handle: mentionHandle(principalId, agents),
    label: displayName(principalId, agents, me),
    principalId,
    member,
  });
  const opts: MentionOption[] = members.filter((m) => m.principalId !== me).map((m) => opt(m.principalId, true));
  if (members.some((m) => schemeOf(m.principalId) === 'remote')) opts.push({ handle: 'all', label: 'every agent in the channel', principalId: '', member: true });
  for (const id of joinable) if (!have.has(id) && id !== me) opts.push(opt(id, false));
  const rank = (o: MentionOption) => {
    const h = o.handle.toLowerCase();
    const l = o.principalId ? o.label.toLowerCase() : h; // @all goes by its handle only
    if (h.startsWith(q) || l.startsWith(q)) return 0;
    if (h.includes(q) || l.includes(q)) return 1;
    return 2;
  };
  return opts
    .map((o) => ({ o, r: rank(o) }))
    .filter((x) => x.r < 2)
    .sort((a, b) => Number(!a.o.member) - Number(!b.o.member) || a.r - b.r || a.o.handle.localeCompare(b.o.handle))
    .map((x) => x.o);
}

/** text with the mention that starts at `start` (and runs to caret) replaced by "@handle ", and the caret after it. */
export function applyMention(text: string, caret: number, start: number, handle: string): { text: string; caret: number } {
  const ins = `@${handle} `;
  const rest = text.slice(caret).replace(/^ /, '');
  return { text: text.slice(0, start) + ins + rest, caret: start + ins.length };
}

/** A channel's title: its name, or for a direct channel the other member's name. */
export function channelTitle(c: { id: string; name?: string; members?: ChannelMember[] }, agents: Pick<AgentInfo, 'id' | 'name'>[], me = OWNER): string {
  if (c.name && c.name.trim()) return c.name.trim();
  const other = (c.members ?? []).find((m) => m.principalId !== me);
  return other ? displayName(other.principalId, agents, me) : 'Untitled channel';
}

export type Segment = { text: string } | { mention: string; label: string };

/**
 * text cut into plain runs and @mentions of the channel's members (and @all), each mention with the
 * member's name, so "@216af8fb-…" reads as "@a2a-js interop agent". Other @words stay text.
 */
export function mentionSegments(text: string, members: ChannelMember[], agents: Pick<AgentInfo, 'id' | 'name'>[], me = OWNER): Segment[] {
  const byHandle = new Map<string, string>();
  for (const m of members) {
    const name = displayName(m.principalId, agents, me);
    byHandle.set(handleOf(m.principalId).toLowerCase(), name);
    byHandle.set(mentionHandle(m.principalId, agents).toLowerCase(), name);
  }
  if (members.some((m) => schemeOf(m.principalId) === 'remote')) byHandle.set('all', 'all');
  const out: Segment[] = [];
  const re = /@([\p{L}\p{N}_.\-]+)/gu;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = m.index > 0 ? text[m.index - 1] : '';
    let handle = m[1];
    // a handle does not end with punctuation: "@demo." mentions demo
    while (/[.\-]$/.test(handle) && !byHandle.has(handle.toLowerCase())) handle = handle.slice(0, -1);
    const label = byHandle.get(handle.toLowerCase());
    if (label === undefined || (before && /[\p{L}\p{N}_.\-]/u.test(before))) continue;
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ mention: handle, label });
    last = m.index + 1 + handle.length;
    re.lastIndex = last;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/**
 * The agents in `joinable` that text @mentions (by handle or name slug) and that are not members: a
 * mention the hub's bridge sends to no one, which the channel offers to add them for.
 */
export function mentionedOutside(text: string, members: ChannelMember[], agents: Pick<AgentInfo, 'id' | 'name'>[], joinable: string[]): string[] {
  const have = new Set(members.map((m) => m.principalId));
  const byHandle = new Map<string, string>();
  for (const id of joinable) {
    if (have.has(id)) continue;
    byHandle.set(handleOf(id).toLowerCase(), id);
    byHandle.set(mentionHandle(id, agents).toLowerCase(), id);
  }
  const out: string[] = [];
  const re = /@([\p{L}\p{N}_.\-]+)/gu;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const before = m.index > 0 ? text[m.index - 1] : '';
    if (before && /[\p{L}\p{N}_.\-@]/u.test(before)) continue;
    let handle = m[1].toLowerCase();
    while (/[.\-]$/.test(handle) && !byHandle.has(handle)) handle = handle.slice(0, -1);
    const id = byHandle.get(handle);
    if (id && !out.includes(id)) out.push(id);
  }
  return out;
}
