import { describe, expect, it } from 'vitest';
import { dividerIndex, firstGap, mergeEvents, newestPage, olderPage, unreadCount, placeLines } from './events';
import type { ChannelEvent } from './model';

const ev = (sequence: number, author = 'agent://alice'): ChannelEvent => ({
  id: `e${sequence}`,
  channelId: 'c',
  sequence,
  timestamp: sequence * 1000,
  author,
  parts: [{ type: 'text', text: `#${sequence}` }],
  kind: 'messageEvent',
});
const run = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ev(from + i));
const seqs = (es: ChannelEvent[]) => es.map((e) => e.sequence);

describe('paging a channel backwards with forward-only history', () => {
  it('walks from the newest page back to sequence 1 in contiguous pages, without duplicates or gaps', () => {
    const last = 1234;
    let held = mergeEvents([], run(newestPage(last).sinceSequence + 1, last));
    expect(seqs(held)).toEqual(seqs(run(1185, 1234)));
    let pages = 0;
    for (let p = olderPage(held[0].sequence); p; p = olderPage(held[0].sequence)) {
      // what channels/history answers: the pageSize events after sinceSequence
      const page = run(p.sinceSequence + 1, p.sinceSequence + p.pageSize);
      expect(page[page.length - 1].sequence).toBe(held[0].sequence - 1); // it ends right before the oldest held
      held = mergeEvents(held, page);
      pages++;
    }
    expect(pages).toBe(Math.ceil((1234 - 50) / 200));
    expect(seqs(held)).toEqual(seqs(run(1, 1234)));
    expect(firstGap(held)).toBeNull();
  });

  it('asks for nothing before sequence 1 and clamps the page size', () => {
    expect(olderPage(1)).toBeNull();
    expect(olderPage(5)).toEqual({ sinceSequence: 0, pageSize: 4 });
    expect(olderPage(1000, 5000)).toEqual({ sinceSequence: 799, pageSize: 200 });
    expect(newestPage(0)).toEqual({ sinceSequence: 0, pageSize: 50 });
    expect(newestPage(30)).toEqual({ sinceSequence: 0, pageSize: 50 });
  });
});

describe('mergeEvents', () => {
  it('keeps one event per sequence when a live event repeats one a page already brought', () => {
    const held = run(1, 3);
    const again = { ...ev(3), id: 'other' };
    const out = mergeEvents(held, [again, ev(4)]);
    expect(seqs(out)).toEqual([1, 2, 3, 4]);
    expect(out[2].id).toBe('e3');
  });

  it('returns the same array when nothing is new', () => {
    const held = run(1, 3);
    expect(mergeEvents(held, [ev(2), ev(1)])).toBe(held);
    expect(mergeEvents(held, [])).toBe(held);
  });

  it('sorts events arriving out of order, also in the middle', () => {
    expect(seqs(mergeEvents([ev(1), ev(5)], [ev(4), ev(2), ev(3), ev(3)]))).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('firstGap', () => {
  it('names the missing run as history params', () => {
    expect(firstGap([ev(1), ev(2), ev(6), ev(9)])).toEqual({ sinceSequence: 2, pageSize: 3 });
    expect(firstGap([ev(10), ev(1000)])).toEqual({ sinceSequence: 10, pageSize: 200 });
    expect(firstGap(run(3, 9))).toBeNull();
  });
});

describe('the unread divider and count', () => {
  it('goes before the first event after the last read one that someone else wrote', () => {
    const es = [ev(1), ev(2), ev(3, 'user://owner'), ev(4), ev(5)];
    expect(dividerIndex(es, 2, 'user://owner')).toBe(3); // #3 is the owner's own
    expect(dividerIndex(es, 0, 'user://owner')).toBe(0);
    expect(dividerIndex(es, 5, 'user://owner')).toBe(-1);
    expect(dividerIndex(es, undefined, 'user://owner')).toBe(-1);
  });

  it('marks only what was there when the channel was opened, not what arrives while the owner watches', () => {
    const es = [ev(1, 'user://owner'), ev(2), ev(3)];
    expect(dividerIndex(es, 0, 'user://owner', 0)).toBe(-1); // opened empty: the answers came live
    expect(dividerIndex(es, 0, 'user://owner', 2)).toBe(1);
  });

  it('waits for the page holding the first unread event: not on the oldest held one', () => {
    const newest = run(9951, 10000);
    expect(dividerIndex(newest, 0, 'user://owner')).toBe(-1);
    expect(dividerIndex(newest, 9950, 'user://owner')).toBe(0);
    expect(dividerIndex(mergeEvents(newest, run(1, 9950)), 0, 'user://owner')).toBe(0);
  });

  it('counts the events after the last read one', () => {
    expect(unreadCount(10, 7)).toBe(3);
    expect(unreadCount(10, 10)).toBe(0);
    expect(unreadCount(10, undefined)).toBe(0);
    expect(unreadCount(3, 7)).toBe(0);
  });
});

describe('placeLines', () => {
  const ev = (sequence: number, timestamp: number) => ({ id: `e${sequence}`, channelId: 'c', sequence, timestamp, author: 'user://owner', parts: [], kind: 'message' });
  const line = (at: number) => ({ at, actor: 'user://owner', principal: 'remote://demo', joined: true });
  it('puts each join or leave before the first event newer than it, or after the newest', () => {
    const events = [ev(1, 100), ev(2, 200), ev(3, 300)];
    const { before, after } = placeLines(events, [line(50), line(150), line(160), line(400)], true);
    expect(before.get(1)).toEqual([line(50)]);
    expect(before.get(2)).toEqual([line(150), line(160)]);
    expect(before.has(3)).toBe(false);
    expect(after).toEqual([line(400)]);
  });
  it('leaves out what is older than the events held until the start is held', () => {
    const { before, after } = placeLines([ev(40, 100), ev(41, 200)], [line(50), line(150)], false);
    expect(before.has(40)).toBe(false);
    expect(before.get(41)).toEqual([line(150)]);
    expect(after).toEqual([]);
    expect(placeLines([], [line(1)], true).after).toEqual([line(1)]);
  });
});
