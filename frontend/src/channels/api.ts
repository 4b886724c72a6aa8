// The channels extension's own JSON-RPC methods (spec §7), called through the gateway's generic
// ext.call / ext.stream (contract §1). `agent` set: the channels of that added agent's hub.

import { extCall, extStream, type HubClient } from '../api/client';
import { sha256Hex } from './sha256';
import { isChannel, isEvent, OWNER, type BridgeState, type Channel, type ChannelEvent, type MemberEntry } from './model';

type Any = Record<string, unknown>;

/** What the channels UI needs of the hub connection (tests pass a fake). */
export interface Ext {
  call(method: string, params: Any, agent?: string): Promise<unknown>;
  /** opens a stream; onResult gets each SSE result; returns a function that closes it */
  stream(method: string, params: Any, onResult: (r: unknown) => void, opts?: { agent?: string; onError?: (e: Error) => void; onEnd?: () => void }): () => void;
  /** gateway bridge.states (contract §2); undefined when the gateway has no bridge */
  bridgeStates?(channelId: string): Promise<BridgeState[]>;
  /** gateway bridge.deliver: the message at sequence, which mentioned member before it joined, sent to it */
  bridgeDeliver?(channelId: string, sequence: number, member: string): Promise<void>;
  /** gateway bridge.act: the owner's A2UI action on a surface member drew in task, to that agent only */
  bridgeAct?(channelId: string, member: string, taskId: string, a2ui: unknown[], a2uiDataModel?: Record<string, unknown>): Promise<ChannelEvent | undefined>;
  /** gateway channels.memberLog: the channel's joins and leaves, oldest first */
  memberLog?(channelId: string): Promise<MemberEntry[]>;
}

/** The Ext of a hub connection: the gateway's ext.call / ext.stream (api/client's helpers). */
export function extOf(client: HubClient): Ext {
  return {
    call: (method, params, agent) => extCall(client, method, params, agent),
    stream(method, params, onResult, opts = {}) {
      let closed = false;
      const opening = extStream(client, method, params, onResult, {
        agent: opts.agent,
        onError: (e) => !closed && opts.onError?.(new Error(e.message || 'The stream failed.')),
        onEnd: () => !closed && opts.onEnd?.(),
      });
      opening.catch((e: Error) => !closed && opts.onError?.(e));
      return () => {
        if (closed) return;
        closed = true;
        void opening.then((close) => close(), () => undefined);
      };
    },
    async bridgeStates(channelId) {
      const call = client.call as unknown as (m: string, p: unknown) => Promise<unknown>;
      const r = (await call.call(client, 'bridge.states', { channelId })) as { agents?: unknown } | null;
      return Array.isArray(r?.agents) ? (r!.agents as BridgeState[]).filter((s) => s && typeof s.member === 'string') : [];
    },
    async bridgeDeliver(channelId, sequence, member) {
      const call = client.call as unknown as (m: string, p: unknown) => Promise<unknown>;
      await call.call(client, 'bridge.deliver', { channelId, sequence, member });
    },
    async bridgeAct(channelId, member, taskId, a2ui, a2uiDataModel) {
      const call = client.call as unknown as (m: string, p: unknown) => Promise<unknown>;
      const r = (await call.call(client, 'bridge.act', { channelId, member, taskId, a2ui, ...(a2uiDataModel ? { a2uiDataModel } : {}) })) as { event?: unknown } | null;
      return isEvent(r?.event) ? r!.event : undefined;
    },
    async memberLog(channelId) {
      const call = client.call as unknown as (m: string, p: unknown) => Promise<unknown>;
      const r = (await call.call(client, 'channels.memberLog', { channelId })) as { entries?: unknown } | null;
      return Array.isArray(r?.entries)
        ? (r!.entries as MemberEntry[]).filter((e) => e && typeof e.principal === 'string' && typeof e.at === 'number')
        : [];
    },
  };
}

export async function listChannels(ext: Ext, agent?: string): Promise<Channel[]> {
  const r = (await ext.call('channels/list', {}, agent)) as { channels?: unknown } | null;
  return Array.isArray(r?.channels) ? r!.channels.filter(isChannel) : [];
}

export async function getChannel(ext: Ext, channelId: string, agent?: string): Promise<Channel> {
  const r = (await ext.call('channels/get', { channelId }, agent)) as { channel?: unknown } | null;
  if (!isChannel(r?.channel)) throw new Error('The hub answered channels/get without a channel.');
  return r!.channel;
}

export async function createChannel(ext: Ext, p: { name: string; visibility: 'public' | 'private'; members?: string[] }, agent?: string): Promise<Channel> {
  const r = (await ext.call('channels/create', p, agent)) as { channel?: unknown } | null;
  if (!isChannel(r?.channel)) throw new Error('The hub answered channels/create without a channel.');
  return r!.channel;
}

export async function history(ext: Ext, channelId: string, page: { sinceSequence: number; pageSize: number }, agent?: string): Promise<ChannelEvent[]> {
  const r = (await ext.call('channels/history', { channelId, ...page }, agent)) as { events?: unknown } | null;
  return Array.isArray(r?.events) ? r!.events.filter(isEvent) : [];
}

export async function publish(
  ext: Ext,
  p: { channelId?: string; recipientId?: string; parts: unknown[]; idempotencyKey?: string; metadata?: Record<string, unknown> },
  agent?: string,
): Promise<ChannelEvent | null> {
  const r = (await ext.call('channels/publish', p, agent)) as { event?: unknown } | null;
  return isEvent(r?.event) ? r!.event : null;
}

/** channels/addMember or removeMember; the channel as it is afterwards (null: the owner left it). */
export async function setMember(ext: Ext, add: boolean, channelId: string, principalId: string, agent?: string): Promise<Channel | null> {
  const r = (await ext.call(add ? 'channels/addMember' : 'channels/removeMember', { channelId, principalId, role: 'member' }, agent)) as { channel?: unknown } | null;
  return isChannel(r?.channel) ? r!.channel : null;
}

/**
 * The id of the direct channel of a and b (spec §5, as the hub derives it): SHA-256 of the two ids
 * sorted and joined by a comma, its first 24 hex digits. Lets the UI find the direct chats others
 * opened with the owner, which channels/list never lists.
 */
export function directId(a: string, b: string = OWNER): string {
  const [x, y] = [a, b].sort();
  return `chan:direct:${sha256Hex(`${x},${y}`).slice(0, 24)}`;
}
