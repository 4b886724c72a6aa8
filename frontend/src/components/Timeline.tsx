import { useRef } from 'react';
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
  return (
    <ol className="timeline" aria-label="Timeline">
      {events.map((ev, i) => {
        const state = ev.state ?? ev.status?.state;
        const delta = i > 0 ? formatDelta(events[i - 1].at, ev.at) : '';
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
      })}
    </ol>
  );
}
