// One channel (or direct chat): who is in it and what its agents are doing, the message list, and a
// composer with @mention completion of the members.

import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import type { SurfaceAction } from '../components/A2uiSurfaceView';
import { actionMessage, errorMessage, isA2uiPart, surfaceVersion } from '../lib/a2ui';
import { actionable, actionNote, channelSurfaces, type ChannelSurface } from './surfaces';
import type { AgentInfo, ChannelPush } from '../api/types';
import { Composer, type ComposerSend } from '../components/Composer';
import { Parts } from '../components/Parts';
import { ErrorBox } from '../components/ErrorBox';
import { formatChatTime, formatDateTime } from '../lib/format';
import { useHub } from '../state/hub';
import { getChannel, publish, setMember, type Ext } from './api';
import { dividerIndex, placeLines } from './events';
import { MembersDialog } from './MembersDialog';
import { MessageList } from './MessageList';
import {
  bridgeNote,
  continuesRun,
  isDirect,
  membersOf,
  OWNER,
  questionOpen,
  replyTo,
  type BridgeState,
  type Channel,
  type ChannelEvent,
  type ChannelMember,
  type MemberEntry,
} from './model';
import { channelTitle, displayName, handleOf, joinableAgents, mentionedOutside, mentionHandle, mentionOptions, mentionSegments, schemeOf } from './names';
import { newKey } from './sha256';
import { outgoingParts, toPart } from './parts';
import { useChannel } from './useChannel';
import { usePushed } from './usePushed';
import type { Part } from '../api/types';

// The A2UI renderer (@a2ui/react and its core) loads with the first surface a channel shows.
const A2uiSurfaceView = lazy(() => import('../components/A2uiSurfaceView').then((m) => ({ default: m.A2uiSurfaceView })));

const ENDED = new Set(['completed', 'failed', 'canceled', 'rejected']);

/** An agent member's A2UI surface in the bubble of the event that drew it. */
function ChannelSurfaceView({
  s,
  ended,
  remoteHub,
  onAct,
}: {
  s: ChannelSurface;
  /** its task has ended: shown, not usable */
  ended: boolean;
  remoteHub: boolean;
  onAct?: (s: ChannelSurface, messages: unknown[], dataModel?: Record<string, unknown>) => Promise<unknown>;
}) {
  if (s.deleted) {
    return (
      <p className="muted small" data-testid="channel-surface-removed" role="note">
        The agent removed this form.
      </p>
    );
  }
  const canAct = actionable(s, remoteHub) && !!onAct;
  return (
    <div className="chan-surface" data-testid="channel-surface" data-surface-id={s.surfaceId} data-task-id={s.taskId} data-author={s.author}>
      <fieldset disabled={!canAct} className="a2ui-fieldset">
        <legend className="sr-only">Form from the agent</legend>
        <Suspense fallback={<p className="muted small">Loading the form…</p>}>
          <A2uiSurfaceView
            surfaceId={s.surfaceId}
            messages={s.messages}
            readOnly={canAct && ended}
            onAction={canAct ? (a: SurfaceAction, dm) => onAct!(s, [actionMessage(a)], dm) : undefined}
            onError={canAct ? (e) => void onAct!(s, [errorMessage(s.surfaceId, e.message, e.code, e.path, surfaceVersion(s.messages))]).catch(() => undefined) : undefined}
          />
        </Suspense>
      </fieldset>
      {!canAct && (
        <p className="muted small" role="note" data-testid="channel-surface-readonly">
          {remoteHub || !s.author.startsWith('remote://') || !s.taskId
            ? 'Shown read-only: this form is from a member this hub does not bridge, and a channel has no way to send your answer to that member alone.'
            : 'Shown read-only.'}
        </p>
      )}
    </div>
  );
}

export interface ChannelViewProps {
  ext: Ext;
  channelId: string;
  /** an added agent whose hub holds the channel */
  agent?: string;
  /** the last-read sequence when the channel was opened (undefined: never opened) */
  lastRead: number | undefined;
  onRead: (seq: number) => void;
  onChannel: (c: Channel) => void;
  /** the owner left or lost the channel */
  onGone: () => void;
}

function msTime(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : '';
}

/** What an agent member is doing, in words; '' when idle. A task that ended badly is named by its
 * A2A state (taskState: "rejected", "canceled"), the word the Tasks list uses. */
export function stateText(state: string | undefined, taskState?: string): string {
  switch (state) {
    case 'working':
      return 'working…';
    case 'input-required':
      return 'has a question';
    case 'failed':
      return taskState === 'rejected' || taskState === 'canceled' ? taskState : 'failed';
    default:
      return '';
  }
}

/** The owner's text as typed, with the members it @mentions shown by name. */
function OwnText({ text, members, agents }: { text: string; members: ChannelMember[]; agents: AgentInfo[] }) {
  return (
    <p className="part part-text">
      {mentionSegments(text, members, agents).map((s, i) =>
        'mention' in s ? (
          <span key={i} className="mention" title={`@${s.mention}`}>
            @{s.label}
          </span>
        ) : (
          s.text
        ),
      )}
    </p>
  );
}

/** A join or leave, as a line of the channel: "You added X", "X left". */
function MemberLine({ e, agents }: { e: MemberEntry; agents: AgentInfo[] }) {
  const who = displayName(e.principal, agents);
  const by = displayName(e.actor, agents);
  const text = e.actor === e.principal ? `${who} ${e.joined ? 'joined' : 'left'}` : `${by} ${e.joined ? 'added' : 'removed'} ${who}`;
  const at = msTime(e.at);
  return (
    <p className="chan-system muted small" data-testid="member-line" data-principal={e.principal} data-joined={e.joined}>
      {text}
      {at && (
        <>
          {' · '}
          <time dateTime={at} title={formatDateTime(at)}>
            {formatChatTime(at)}
          </time>
        </>
      )}
    </p>
  );
}

export function EventRow({
  ev,
  agents,
  members,
  asks,
  continued = false,
  surfaces = [],
  updated = false,
  ended,
  remoteHub = false,
  onAct,
}: {
  ev: ChannelEvent;
  agents: AgentInfo[];
  members: ChannelMember[];
  asks: boolean;
  /** the A2UI surfaces this event drew */
  surfaces?: ChannelSurface[];
  /** its A2UI messages changed a form shown above */
  updated?: boolean;
  /** whether a surface's task has ended */
  ended?: (s: ChannelSurface) => boolean;
  /** the channel is another hub's */
  remoteHub?: boolean;
  onAct?: (s: ChannelSurface, messages: unknown[], dataModel?: Record<string, unknown>) => Promise<unknown>;
  /** the same author's message is right above: no author line (still said to screen readers) */
  continued?: boolean;
}) {
  const mine = ev.author === OWNER;
  const kind = schemeOf(ev.author) === 'remote' ? 'agent' : mine ? 'owner' : 'principal';
  const note = bridgeNote(ev);
  const reply = replyTo(ev);
  // A question (input-required, or auth-required: the agent asks for credentials) keeps its outline
  // and "asks" only while it waits for an answer.
  const question = note?.state === 'input-required' || note?.state === 'auth-required';
  const shown = question ? (asks ? 'input-required' : 'asked') : note?.state;
  const parts = ((Array.isArray(ev.parts) ? ev.parts : []).map(toPart) as Part[]).filter((p) => !isA2uiPart(p));
  const at = msTime(ev.timestamp);
  const acted = actionNote(ev);
  if (acted) {
    // a person's action on an agent's form: who acted, what they chose, and which agent it went to
    const text = parts.map((p) => (p?.kind === 'text' ? p.text : '')).join(' ');
    return (
      <p className="chan-system action-line muted small" data-testid="channel-action" data-seq={ev.sequence} data-author={ev.author} data-member={acted.member}>
        <span aria-hidden="true">↳ </span>
        {displayName(ev.author, agents)} {text} <span className="small">(sent to {displayName(acted.member, agents)} only)</span>
        {at && (
          <>
            {' · '}
            <time dateTime={at} title={formatDateTime(at)}>
              {formatChatTime(at)}
            </time>
          </>
        )}
      </p>
    );
  }
  return (
    <article
      className={`bubble chan-event from-${mine ? 'owner' : 'agent'} author-${kind} ${shown ? `bridge-${shown}` : ''} ${continued ? 'continued' : ''}`}
      data-testid="channel-event"
      data-seq={ev.sequence}
      data-author={ev.author}
      aria-label={`${displayName(ev.author, agents)}, message ${ev.sequence}`}
    >
      <div className="bubble-head">
        <span className={continued ? 'bubble-who sr-only' : 'bubble-who'}>{displayName(ev.author, agents)}</span>
        {kind === 'principal' && !continued && <span className="muted small">@{handleOf(ev.author)}</span>}
        {shown === 'input-required' && <span className="tag tag-accent">asks</span>}
        {reply && (
          <span className="small" data-testid="event-reply">
            ↩ answers {displayName(reply.member, agents)}
          </span>
        )}
        {(note?.state === 'failed' || note?.state === 'rejected') && <span className="tag tag-danger">{note.state}</span>}
        {note?.state === 'hop-limit' && <span className="tag">not forwarded</span>}
        {at && (
          <time className="muted small" dateTime={at} title={formatDateTime(at)}>
            {formatChatTime(at)}
          </time>
        )}
      </div>
      {mine ? (
        <>
          {parts.some((p) => p?.kind === 'text' && p.text) && (
            <div className="parts">
              {parts.map((p, i) => (p?.kind === 'text' && p.text ? <OwnText key={i} text={p.text} members={members} agents={agents} /> : null))}
            </div>
          )}
          <Parts parts={parts.filter((p) => p?.kind !== 'text')} from="owner" />
        </>
      ) : (
        <Parts parts={parts} from="agent" />
      )}
      {surfaces.map((s) => (
        <ChannelSurfaceView key={s.key} s={s} ended={ended?.(s) ?? false} remoteHub={remoteHub} onAct={onAct} />
      ))}
      {updated && surfaces.length === 0 && (
        <p className="muted small" data-testid="channel-surface-updated">
          Updated its form above.
        </p>
      )}
    </article>
  );
}

export function ChannelView({ ext, channelId, agent, lastRead, onRead, onChannel, onGone }: ChannelViewProps) {
  const { agents, refreshKey } = useHub();
  const ch = useChannel(ext, channelId, agent, refreshKey);
  usePushed('bridge', ch.onBridge as (d: unknown) => void);
  // This hub tells of its channels' changes: members added or removed elsewhere (another window, an
  // added agent the owner removed, which leaves every channel), a rename: the channel is read again.
  // Only the newest read is applied: two changes in a row must not end on the older answer.
  const reread = useRef(0);
  usePushed('channel', (d) => {
    const p = d as ChannelPush | null;
    if (agent || !p || p.channelId !== channelId || (p.change !== 'members' && p.change !== 'updated')) return;
    if (p.change === 'members') ch.reloadJoins();
    const my = ++reread.current;
    getChannel(ext, channelId).then(
      (c) => {
        if (my !== reread.current) return;
        ch.setChannel(c);
        onChannel(c);
      },
      () => {}, // no longer readable: the sidebar's list drops it
    );
  });
  const [membersOpen, setMembersOpen] = useState(false);
  // "Answer" on an agent's question starts a reply bound to its task (the composer's answer chip):
  // what is sent goes to that task whatever the text says (metadata.agenthub.replyTo). A state
  // without a task (an older hub) falls back to starting a message that mentions the agent.
  const [insert, setInsert] = useState<{ text: string; key: number } | undefined>(undefined);
  const [replying, setReplying] = useState<{ member: string; taskId: string; key: number } | undefined>(undefined);
  // The divider stays where the owner's reading stopped when they opened the channel.
  const [readAtOpen] = useState(lastRead);
  const newestAtOpen = ch.newestAtOpen;
  const dividerAt = useMemo(() => dividerIndex(ch.events, readAtOpen, OWNER, newestAtOpen), [ch.events, readAtOpen, newestAtOpen]);

  const lines = useMemo(() => placeLines(ch.events, ch.joins, ch.atStart), [ch.events, ch.joins, ch.atStart]);
  const surfaces = useMemo(() => channelSurfaces(ch.events), [ch.events]);
  // A surface's task has ended when the last event its agent published in that task says so.
  const lastStates = useMemo(() => {
    const m = new Map<string, string>();
    for (const e of ch.events) {
      const n = bridgeNote(e);
      if (n?.taskId && n.state) m.set(`${e.author}\u0000${n.taskId}`, n.state);
    }
    return m;
  }, [ch.events]);
  const ended = useCallback((s: ChannelSurface) => ENDED.has(lastStates.get(`${s.author}\u0000${s.taskId}`) ?? ''), [lastStates]);
  const act = useCallback(
    async (s: ChannelSurface, messages: unknown[], dataModel?: Record<string, unknown>) => {
      if (!ext.bridgeAct) throw new Error('This hub bridges no agents into channels.');
      const ev = await ext.bridgeAct(channelId, s.author, s.taskId, messages, dataModel);
      if (ev) ch.add([ev]);
    },
    [ext, channelId, ch.add], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const newestSeq = ch.events.length ? ch.events[ch.events.length - 1].sequence : 0;

  const channel = ch.channel;
  const members = membersOf(channel);
  const title = channel ? channelTitle(channel, agents) : '';
  const direct = isDirect(channelId);
  const isOwner = members.some((m) => m.principalId === OWNER && m.role === 'owner');
  // Agents that could join: this hub's channels only (another hub's cannot take ours), never a direct chat.
  const joinable = useMemo(() => (agent || direct ? [] : joinableAgents(agents)), [agent, direct, agents]);
  // The owner's last message mentioned agents outside the channel (it reached none of them): Slack's
  // "Add them to #channel?", in one click, after which they get that message.
  const [outside, setOutside] = useState<{ seq: number; principals: string[] } | undefined>(undefined);
  const [adding, setAdding] = useState(false);
  const [addError, setAddError] = useState('');

  // The reply holds while its question is open: answered (here or elsewhere), it goes.
  const replyState = replying ? (ch.bridge[replying.member] as BridgeState | undefined) : undefined;
  const answering =
    replying && replyState?.state === 'input-required' && replyState.taskId === replying.taskId
      ? {
          taskId: replying.taskId,
          from: displayName(replying.member, agents),
          question: (() => {
            const q = [...ch.events].reverse().find((e) => e.author === replying.member && bridgeNote(e)?.taskId === replying.taskId);
            return q ? { parts: (Array.isArray(q.parts) ? q.parts : []).map(toPart) as Part[] } : undefined;
          })(),
        }
      : undefined;

  const lastSent = useRef(0);
  const send = useCallback(
    async ({ text, files, taskId }: ComposerSend) => {
      const to = taskId && replying?.taskId === taskId ? replying : undefined;
      const ev = await publish(
        ext,
        {
          channelId,
          parts: outgoingParts(text, files),
          idempotencyKey: newKey(),
          ...(to ? { metadata: { agenthub: { replyTo: { member: to.member, taskId: to.taskId } } } } : {}),
        },
        agent,
      );
      if (to) setReplying(undefined);
      const missed = ev ? mentionedOutside(text, members, agents, joinable) : [];
      setOutside(missed.length ? { seq: ev!.sequence, principals: missed } : undefined);
      setAddError('');
      if (ev) {
        ch.add([ev]);
        lastSent.current = ev.sequence;
        onRead(ev.sequence);
      }
    },
    [ext, channelId, agent, ch.add, onRead, replying, members, agents, joinable], // eslint-disable-line react-hooks/exhaustive-deps
  );

  const onAtEnd = useCallback((seq: number) => onRead(seq), [onRead]);
  const addOutside = async () => {
    if (!outside || adding) return;
    setAdding(true);
    setAddError('');
    try {
      for (const p of outside.principals) {
        const c = await setMember(ext, true, channelId, p, agent);
        if (c) {
          ch.setChannel(c);
          onChannel(c);
        }
        await ext.bridgeDeliver?.(channelId, outside.seq, p);
      }
      setOutside(undefined);
    } catch (e) {
      setAddError((e as Error)?.message || 'The agent was not added.');
    } finally {
      setAdding(false);
    }
  };
  const setChannel = (c: Channel | null) => {
    if (!c) {
      onGone();
      return;
    }
    ch.setChannel(c);
    onChannel(c);
  };

  // Agent members and what the bridge says they are doing.
  const agentStates = members
    .filter((m) => schemeOf(m.principalId) === 'remote')
    .map((m) => ({ m, s: ch.bridge[m.principalId] as BridgeState | undefined }))
    .filter((x) => stateText(x.s?.state));

  if (ch.error && !channel) {
    return (
      <div className="chan-view pad">
        <ErrorBox message={ch.error.message} context="agent" />
        <p>
          <a href="#/chats">Back to all chats</a>
        </p>
      </div>
    );
  }
  if (!channel) return <p className="muted pad">Loading…</p>;

  return (
    <article className="detail chat-view chan-view" data-testid="channel-view" aria-labelledby="chan-title">
      <header className="detail-head column chat-head">
        <div className="title-row">
          <h2 id="chan-title">
            {direct ? '' : <span aria-hidden="true" className="muted">#&nbsp;</span>}
            {title}
          </h2>
          {!direct && <span className="tag">{channel.visibility === 'public' ? 'public' : 'private'}</span>}
        </div>
        <div className="chat-meta">
          <span className="muted small">
            {direct ? 'Direct chat' : `${members.length} member${members.length === 1 ? '' : 's'}`}
            {agent ? ` · on ${agents.find((a) => a.id === agent)?.name || agent}` : ''}
          </span>
          {agentStates.length > 0 && (
            <span className="chan-states" role="status" data-testid="agent-states">
              {agentStates.map(({ m, s }) => (
                <span key={m.principalId} className={`chan-state state-${s!.state}`} data-testid="agent-state" data-member={m.principalId} data-state={s!.state}>
                  {s!.state === 'working' && <span className="working-dots" aria-hidden="true" />}
                  {displayName(m.principalId, agents)} {stateText(s!.state, s!.taskState)}
                  {s!.state === 'input-required' && (
                    <button
                      type="button"
                      className="btn btn-ghost btn-small chan-answer"
                      aria-label={`Answer ${displayName(m.principalId, agents)}`}
                      onClick={() =>
                        s!.taskId
                          ? setReplying((cur) => ({ member: m.principalId, taskId: s!.taskId!, key: (cur?.key ?? 0) + 1 }))
                          : setInsert((cur) => ({ text: `@${mentionHandle(m.principalId, agents)} `, key: (cur?.key ?? 0) + 1 }))
                      }
                    >
                      Answer
                    </button>
                  )}
                </span>
              ))}
            </span>
          )}
          <span className="spacer" />
          {!direct && (
            <button type="button" className="btn btn-small" onClick={() => setMembersOpen(true)} aria-haspopup="dialog">
              Members ({members.length})
            </button>
          )}
        </div>
        {ch.error && <ErrorBox message={ch.error.message} context="agent" />}
      </header>

      <MessageList
        events={ch.events}
        dividerAt={dividerAt}
        atStart={ch.atStart}
        loadingOlder={ch.loadingOlder}
        onLoadOlder={ch.loadOlder}
        onAtEnd={onAtEnd}
        label={`Messages in ${title}`}
        beginning={
          <p className="chan-beginning muted small" data-testid="channel-beginning">
            This is the beginning of {direct ? `your direct chat with ${title}` : `#${title}`}.
          </p>
        }
        renderEvent={(ev, index) => (
          <>
            {(lines.before.get(ev.sequence) ?? []).map((e, i) => (
              <MemberLine key={`b${i}`} e={e} agents={agents} />
            ))}
            <EventRow
              ev={ev}
              agents={agents}
              members={members}
              asks={questionOpen(ev, ch.bridge)}
              continued={!lines.before.has(ev.sequence) && continuesRun(ch.events, index, dividerAt)}
              surfaces={surfaces.shown.get(ev.sequence)}
              updated={surfaces.updates.has(ev.sequence)}
              ended={ended}
              remoteHub={!!agent}
              onAct={act}
            />
            {ev.sequence === newestSeq && lines.after.map((e, i) => <MemberLine key={`a${i}`} e={e} agents={agents} />)}
          </>
        )}
      />
      {ch.loaded && ch.events.length === 0 && lines.after.length > 0 && (
        <div className="chan-system-list" aria-label="Joins and leaves" role="group">
          {lines.after.map((e, i) => (
            <MemberLine key={i} e={e} agents={agents} />
          ))}
        </div>
      )}
      {ch.loaded && ch.events.length === 0 && (
        <p className="chat-empty muted">
          {direct
            ? `Nothing here yet. Say hello to ${title}.`
            : 'Nothing here yet. Write to the channel; mention an agent with @ to have it answer.'}
        </p>
      )}

      {outside && (
        <div className="chan-outside" role="region" aria-label="Mentioned outside the channel" data-testid="mention-outside">
          {(() => {
            const names = outside.principals.map((p) => displayName(p, agents)).join(', ');
            const one = outside.principals.length === 1;
            return (
              <>
                <p>
                  {names} {one ? 'is' : 'are'} not in #{title}, so your message did not reach {one ? 'it' : 'them'}.{' '}
                  {isOwner ? `Add ${one ? 'it' : 'them'} to #${title}? ${one ? 'It gets' : 'They get'} your message once added.` : 'Only an owner of the channel adds members.'}
                </p>
                <div className="reply-actions">
                  {isOwner && (
                    <button type="button" className="btn btn-primary btn-small" disabled={adding} onClick={() => void addOutside()}>
                      {adding ? 'Adding…' : `Add ${names} to #${title}`}
                    </button>
                  )}
                  <button type="button" className="btn btn-small" onClick={() => setOutside(undefined)}>
                    {isOwner ? 'Don’t add' : 'Dismiss'}
                  </button>
                </div>
                {addError && <ErrorBox message={addError} context="agent" />}
              </>
            );
          })()}
        </div>
      )}

      <Composer
        agentName={direct ? title : `#${title}`}
        onSend={send}
        mentions={(q) =>
          // Every known agent completes, members first; one outside the channel says so (another hub's
          // channel: only its members, ours cannot join it).
          mentionOptions(members, agents, q, OWNER, joinable).map((o) => ({
            ...o,
            note: o.member ? undefined : `not in #${title}`,
          }))
        }
        insert={insert}
        answering={answering}
        answerKey={replying?.key}
        onSetAside={() => setReplying(undefined)}
        autoFocus={ch.loaded}
      />

      {membersOpen && (
        <MembersDialog ext={ext} agent={agent} channel={channel} isOwner={isOwner} onChannel={setChannel} onClose={() => setMembersOpen(false)} />
      )}
    </article>
  );
}
