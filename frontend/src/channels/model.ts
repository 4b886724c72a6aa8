// The channels extension's objects (the channels extension's objects; see docs/channels.md), as the hub's channels/*
// methods answer them. Everything may come from another hub or agent: check before trusting.

import { GROUP_WINDOW_MS } from '../lib/chat';

export interface ChannelMember {
  principalId: string;
  role: 'owner' | 'member' | string;
  joinedAt: number;
}

export interface Channel {
  id: string;
  name?: string;
  visibility: 'public' | 'private' | string;
  createdAt: number;
  createdBy: string;
  members: ChannelMember[];
  metadata?: Record<string, unknown>;
  version: number;
  kind: string;
  /** this hub's addition: the newest event's sequence (0: none yet) */
  lastSequence?: number;
}

export interface ChannelEvent {
  id: string;
  channelId: string;
  sequence: number;
  timestamp: number;
  author: string;
  parts: unknown[];
  artifactRefs?: string[];
  metadata?: Record<string, unknown>;
  idempotencyKey?: string;
  kind: string;
}

/** The bridge's note on an event it published for a plain A2A agent (contract §2). */
export interface BridgeNote {
  taskId?: string;
  state?: string;
  hop?: number;
}

export function bridgeNote(ev: ChannelEvent): BridgeNote | undefined {
  const ah = ev.metadata?.agenthub;
  const b = ah && typeof ah === 'object' ? (ah as { bridge?: unknown }).bridge : undefined;
  return b && typeof b === 'object' ? (b as BridgeNote) : undefined;
}

/**
 * metadata.agenthub.replyTo of a message that answers an agent member's question (the channel's
 * Answer): the hub's bridge sends it to that agent's task whatever the text says.
 */
export interface ReplyTo {
  member: string;
  taskId: string;
}

export function replyTo(ev: ChannelEvent): ReplyTo | undefined {
  const ah = ev.metadata?.agenthub;
  const r = ah && typeof ah === 'object' ? (ah as { replyTo?: unknown }).replyTo : undefined;
  const x = r as ReplyTo | undefined;
  return x && typeof x === 'object' && typeof x.member === 'string' && typeof x.taskId === 'string' ? x : undefined;
}

/**
 * Whether an agent's question (an event in state input-required) still waits for an answer: its task
 * is the one the agent's bridge state says it asks in. Without states (another hub's channel) a
 * question is taken as open.
 */
export function questionOpen(ev: ChannelEvent, states: Record<string, BridgeState>): boolean {
  const note = bridgeNote(ev);
  if (note?.state !== 'input-required' && note?.state !== 'auth-required') return false;
  const s = states[ev.author];
  if (!s) return true;
  return s.state === 'input-required' && (!s.taskId || !note.taskId || s.taskId === note.taskId);
}

/** One join or leave of a channel (gateway channels.memberLog, read from the channel's audit). */
export interface MemberEntry {
  at: number;
  actor: string;
  principal: string;
  joined: boolean;
}

/** The owner of this hub, as the hub names the person at the desktop. */
export const OWNER = 'user://owner';

/** An agent's working state in a channel (gateway bridge.states / topic bridge). */
export interface BridgeState {
  channelId?: string;
  member: string;
  agentId: string;
  state: 'idle' | 'working' | 'input-required' | 'failed' | string;
  taskId?: string;
  /** the A2A state of the task it last had in hand ("completed", "rejected", …), the Tasks list's word */
  taskState?: string;
  updatedAt?: string | number;
}

export function isEvent(v: unknown): v is ChannelEvent {
  const e = v as ChannelEvent;
  return !!e && typeof e === 'object' && typeof e.sequence === 'number' && Number.isInteger(e.sequence) && e.sequence > 0 && typeof e.author === 'string';
}

export function isChannel(v: unknown): v is Channel {
  const c = v as Channel;
  return !!c && typeof c === 'object' && typeof c.id === 'string' && c.id !== '';
}

export function membersOf(c: Channel | null | undefined): ChannelMember[] {
  return Array.isArray(c?.members) ? c!.members.filter((m) => m && typeof m.principalId === 'string') : [];
}

export const isDirect = (id: string) => id.startsWith('chan:direct:');

/**
 * Whether events[i] continues the group of the one before it (Slack's rule): the same author, within
 * GROUP_WINDOW_MS, and no unread divider between (dividerAt). Its row then shows no author line.
 */
export function continuesRun(events: readonly ChannelEvent[], i: number, dividerAt = -1): boolean {
  const ev = events[i];
  const prev = events[i - 1];
  if (!ev || !prev || i === dividerAt || ev.author !== prev.author) return false;
  const gap = ev.timestamp - prev.timestamp;
  return Number.isFinite(gap) && gap >= 0 && gap <= GROUP_WINDOW_MS;
}
