import { useEffect, useMemo, useRef, useState } from 'react';
import { foldRepeats } from '../lib/timeline';
import type { Message, TimelineEvent } from '../api/types';
import { formatClock, formatDateTime, formatDelta } from '../lib/format';
import { prettyJson } from '../lib/parts';
import { Parts } from './Parts';
import { StateBadge } from './StateBadge';

function roleLabel(role: string | undefined): string {
  return role === 'user' ? 'User message' : role === 'agent' ? 'Agent message' : 'Message';
}

function EventBody({ ev, opening }: { ev: TimelineEvent; opening?: Message[] }) {
  switch (ev.kind) {
    case 'task':
      return (
        <>
          {(opening ?? []).map((m, i) => (
            <div className="event-message" key={m.id || i}>
              <span className="muted small">{roleLabel(m.role)}</span>
              <Parts parts={m.parts} />
            </div>
          ))}
          {ev.status?.message && (
            <div className="event-message">
              <span className="muted small">{roleLabel(ev.status.message.role)}</span>
              <Parts parts={ev.status.message.parts} />
            </div>
          )}
        </>
      );
    case 'status':
      return ev.status?.message ? (
        <div className="event-message">
          <span className="muted small">{roleLabel(ev.status.message.role)}</span>
          <Parts parts={ev.status.message.parts} />
        </div>
      ) : null;
    case 'message':
      return ev.message ? <Parts parts={ev.message.parts} /> : null;
    case 'artifact':
      return ev.artifact ? (
        <div>
          {ev.artifact.description && <p className="muted small">{ev.artifact.description}</p>}
          <Parts parts={ev.artifact.parts} />
        </div>
      ) : null;
    default:
      return null;
  }
}

function title(ev: TimelineEvent): string {
  switch (ev.kind) {
    case 'task':
      return 'Task created';
    case 'status':
      return 'Status';
    case 'message':
      return roleLabel(ev.message?.role);
    case 'artifact': {
      const name = ev.artifact?.name || 'Artifact';
      return `Artifact “${name}”${ev.artifact?.append ? ' (more)' : ''}`;
    }
    default:
      return String(ev.kind || 'Event');
  }
}

/**
 * The log of a task, oldest first, with the time since the previous entry. `opening` are the messages
 * the task was created with (shown under its first entry). Entries that arrive after the first render
 * are highlighted briefly.
 */
export function Timeline({ events, showRaw, opening }: { events: TimelineEvent[]; showRaw: boolean; opening?: Message[] }) {
  const firstLast = useRef<number | null>(null);
  if (firstLast.current === null && events.length) firstLast.current = events[events.length - 1].seq;
  const seenUpTo = firstLast.current ?? 0;
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const rows = useMemo(() => foldRepeats(events), [events]);

  // Follow new events while the reader is at the end of the scrolling pane; leave them be when they
  // scrolled up to read.
  const listRef = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  useEffect(() => {
    const pane = listRef.current?.closest('.pane-detail, .task-line-timeline');
    if (!pane) return;
    const on = () => {
      atEnd.current = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 120;
    };
    pane.addEventListener('scroll', on);
    return () => pane.removeEventListener('scroll', on);
  }, []);
  const count = events.length;
  const firstCount = useRef(count);
  useEffect(() => {
    if (count === firstCount.current || !atEnd.current) return;
    const last = listRef.current?.lastElementChild as HTMLElement | null;
    last?.scrollIntoView?.({ block: 'end' });
  }, [count]);

  return (
    <ol className="timeline" aria-label="Timeline" ref={listRef}>
      {rows.map((row) => {
        if (row.type === 'fold') {
          if (!open.has(row.key)) {
            return (
              <li key={row.key} className="timeline-event timeline-fold" data-testid="timeline-fold">
                <div className="event-dot" aria-hidden="true" />
                <button type="button" className="btn btn-ghost btn-small" onClick={() => setOpen((o) => new Set(o).add(row.key))}>
                  {row.events.length} more “{row.state}” updates
                </button>
              </li>
            );
          }
          return row.events.map((ev) => <EventRow key={ev.seq} ev={ev} prev={events[events.indexOf(ev) - 1]} seenUpTo={seenUpTo} showRaw={showRaw} />);
        }
        return <EventRow key={row.ev.seq} ev={row.ev} prev={events[row.index - 1]} seenUpTo={seenUpTo} showRaw={showRaw} opening={opening} />;
      })}
    </ol>
  );
}

function EventRow({ ev, prev, seenUpTo, showRaw, opening }: { ev: TimelineEvent; prev?: TimelineEvent; seenUpTo: number; showRaw: boolean; opening?: Message[] }) {
  const state = ev.state ?? ev.status?.state;
  const delta = prev ? formatDelta(prev.at, ev.at) : '';
  return (
    <li key={ev.seq} className={`timeline-event kind-${ev.kind}${ev.seq > seenUpTo ? ' fresh' : ''}`} data-testid="timeline-event" data-seq={ev.seq} data-kind={ev.kind}>
      <div className="event-dot" aria-hidden="true" />
      <div className="event-main">
        <div className="event-head">
          <span className="event-title">{title(ev)}</span>
          {(ev.kind === 'status' || ev.kind === 'task') && state && <StateBadge state={state} />}
          {ev.final && <span className="tag">final</span>}
          <span className="spacer" />
          {delta && (
            <span className="event-delta" title="Time since the previous event">
              {delta}
            </span>
          )}
          <time className="event-time" dateTime={ev.at} title={formatDateTime(ev.at)}>
            {formatClock(ev.at)}
          </time>
        </div>
        <EventBody ev={ev} opening={ev.kind === 'task' ? opening : undefined} />
        {showRaw && (
          <pre className="raw-json" aria-label={`Raw JSON of event ${ev.seq}`}>
            {prettyJson(ev.raw)}
          </pre>
        )}
      </div>
    </li>
  );
}
