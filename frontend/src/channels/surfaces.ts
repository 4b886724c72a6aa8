// A2UI surfaces in a channel. An agent member's event may carry A2UI messages (data parts of media
// type application/a2ui+json; in a channel, one message per draft data part, see parts.ts). A surface
// belongs to its author, the task the bridge published it in, and its surfaceId: two agents' surfaces
// of the same id never mix. It is shown once, in the event that created it; later messages about it
// (from the same author) change that bubble in place, deleteSurface removes it. Pure: no React.

import type { Part } from '../api/types';
import { a2uiMessagesOf, messageKind, surfaceIdOf, versionOf, type A2uiMessage } from '../lib/a2ui';
import { bridgeNote, type ChannelEvent } from './model';
import { toPart } from './parts';

export interface ChannelSurface {
  key: string;
  author: string;
  /** the bridge task that drew it ('' for a surface not published by this hub's bridge) */
  taskId: string;
  surfaceId: string;
  /** the event whose bubble shows it */
  seq: number;
  /** everything it received, in order */
  messages: A2uiMessage[];
  deleted: boolean;
  /** the last event that changed it */
  updatedSeq: number;
}

export interface ChannelSurfaces {
  /** the surfaces each event shows, by sequence */
  shown: Map<number, ChannelSurface[]>;
  /** events whose A2UI messages changed a surface shown above them: sequence → the surfaces' events */
  updates: Map<number, number[]>;
}

/** The parts of an event as the UI's Part (A2UI ones included). */
export function eventParts(ev: ChannelEvent): Part[] {
  return (Array.isArray(ev.parts) ? ev.parts : []).map(toPart) as Part[];
}

/** The surfaces of events (in sequence order). */
export function channelSurfaces(events: readonly ChannelEvent[]): ChannelSurfaces {
  const shown = new Map<number, ChannelSurface[]>();
  const updates = new Map<number, number[]>();
  const live = new Map<string, ChannelSurface>(); // author, task, surface id → its surface
  const newest = new Map<string, ChannelSurface>(); // author, surface id → the newest (an update from another task)
  for (const ev of events) {
    const msgs = a2uiMessagesOf(eventParts(ev));
    if (msgs.length === 0) continue;
    const taskId = bridgeNote(ev)?.taskId ?? '';
    for (const m of msgs) {
      const id = surfaceIdOf(m);
      const kind = messageKind(m);
      const key = `${ev.author}\u0000${taskId}\u0000${id}`;
      const byId = `${ev.author}\u0000${id}`;
      const cur = live.get(key) ?? (kind === 'createSurface' ? undefined : newest.get(byId));
      if (cur && !cur.deleted && kind !== 'createSurface') {
        cur.messages = [...cur.messages, m];
        cur.updatedSeq = ev.sequence;
        if (kind === 'deleteSurface') {
          cur.deleted = true;
          live.delete(key);
          if (newest.get(byId) === cur) newest.delete(byId);
        }
        if (cur.seq !== ev.sequence) {
          const list = updates.get(ev.sequence) ?? [];
          if (!list.includes(cur.seq)) updates.set(ev.sequence, [...list, cur.seq]);
        }
      } else if (id && (kind === 'createSurface' || (versionOf(m) === 'v0.8' && kind !== 'deleteSurface'))) {
        // a new surface (v0.8 has no create message: its first message about a surface starts it)
        const s: ChannelSurface = { key: `${ev.sequence}\u0000${key}`, author: ev.author, taskId, surfaceId: id, seq: ev.sequence, messages: [m], deleted: false, updatedSeq: ev.sequence };
        live.set(key, s);
        newest.set(byId, s);
        shown.set(ev.sequence, [...(shown.get(ev.sequence) ?? []), s]);
      }
      // an update of a surface never created (or created in a page not loaded yet) is dropped
    }
  }
  return { shown, updates };
}

/**
 * Whether the owner can act on a surface: only one an added agent of this hub drew through the
 * bridge (its action goes back to that agent alone, bridge.act). A surface in another hub's channel,
 * or from a member this hub does not bridge, is shown read-only: the channels extension has no way to
 * send a message to one member only (a channel message goes to every member), and an action, with
 * its form's data model, is for the agent that drew the form alone.
 */
export function actionable(s: ChannelSurface, remoteHub: boolean): boolean {
  return !remoteHub && !s.deleted && s.taskId !== '' && s.author.startsWith('remote://');
}

/** metadata.agenthub.a2uiAction of the event that shows a person's action on an agent's surface. */
export interface ActionNote {
  member: string;
  taskId: string;
  surfaceId: string;
}

export function actionNote(ev: ChannelEvent): ActionNote | undefined {
  const ah = ev.metadata?.agenthub;
  const a = ah && typeof ah === 'object' ? (ah as { a2uiAction?: unknown }).a2uiAction : undefined;
  return a && typeof a === 'object' && typeof (a as ActionNote).member === 'string' ? (a as ActionNote) : undefined;
}
