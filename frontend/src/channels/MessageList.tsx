// The channel's events as a virtualized list: only the rows near the viewport are in the DOM, so
// 10,000 events scroll as smoothly as 10. Older pages load when the top comes near, and the row the
// person was reading stays where it was (the virtualizer anchors to the end: a prepend shifts the
// scroll position by what was added above); at the end, new events are followed.

import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { ChannelEvent } from './model';

export interface MessageListProps {
  events: ChannelEvent[];
  /** index of the first unread event (the divider goes above it); -1: none */
  dividerAt: number;
  atStart: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** the person is at the end of the list: everything held is read */
  onAtEnd: (newestSeq: number) => void;
  /** index: the event's place in events (its neighbours decide, e.g., whether it continues a group) */
  renderEvent: (ev: ChannelEvent, index: number) => ReactNode;
  /** shown above the first event once the start of the channel is held */
  beginning: ReactNode;
  label: string;
}

const ESTIMATE = 84;
const NEAR_TOP = 6; // rows: load the older page when the first rendered row is this close to the top

export function MessageList({ events, dividerAt, atStart, loadingOlder, onLoadOlder, onAtEnd, renderEvent, beginning, label }: MessageListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({
    count: events.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATE,
    getItemKey: (i) => events[i].sequence,
    overscan: 6,
    anchorTo: 'end',
    followOnAppend: true,
    scrollEndThreshold: 48,
  });
  const items = v.getVirtualItems();

  // First show: the unread divider at the top of the view if there is one, else the end.
  const placed = useRef(false);
  useLayoutEffect(() => {
    if (placed.current || events.length === 0) return;
    placed.current = true;
    if (dividerAt > 0) v.scrollToIndex(dividerAt, { align: 'start' });
    else v.scrollToEnd();
  }, [events.length, dividerAt, v]);

  // Near the top: the page before.
  const first = items[0]?.index;
  useEffect(() => {
    if (!placed.current || first === undefined || atStart || loadingOlder) return;
    if (first < NEAR_TOP) onLoadOlder();
  }, [first, atStart, loadingOlder, onLoadOlder]);

  // "Jump to latest" while away from the end; at the end, what is held is read.
  const [away, setAway] = useState(false);
  const atEnd = v.isAtEnd(48);
  const newest = events.length ? events[events.length - 1].sequence : 0;
  useEffect(() => {
    setAway(!atEnd && events.length > 0);
    if (atEnd && newest) onAtEnd(newest);
  }, [atEnd, newest, events.length, onAtEnd]);

  return (
    <div className="chan-list-wrap">
      <div
        ref={scrollRef}
        className="chan-scroll"
        role="log"
        aria-label={label}
        aria-busy={loadingOlder || undefined}
        tabIndex={0}
        data-testid="channel-scroll"
        data-oldest={events[0]?.sequence}
      >
        <div role="list" aria-label="Messages" style={{ height: v.getTotalSize(), position: 'relative', width: '100%' }}>
          {items.map((it) => {
            const ev = events[it.index];
            return (
              <div
                key={it.key}
                data-index={it.index}
                ref={v.measureElement}
                role="listitem"
                aria-setsize={atStart ? events.length : -1}
                aria-posinset={atStart ? it.index + 1 : undefined}
                className="chan-row"
                style={{ position: 'absolute', top: 0, left: 0, width: '100%', transform: `translateY(${it.start}px)` }}
              >
                {it.index === 0 && atStart && beginning}
                {it.index === dividerAt && (
                  <div className="unread-divider" data-testid="unread-divider" role="separator" aria-label="New messages">
                    <span>New</span>
                  </div>
                )}
                {renderEvent(ev, it.index)}
              </div>
            );
          })}
        </div>
      </div>
      {loadingOlder && (
        // Over the list, not in it: the rows must not move while it shows.
        <p className="chan-loading muted small" role="status">
          Loading older messages…
        </p>
      )}
      {away && (
        <button type="button" className="btn btn-small jump-latest chan-jump" onClick={() => v.scrollToEnd()} data-testid="jump-latest">
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
