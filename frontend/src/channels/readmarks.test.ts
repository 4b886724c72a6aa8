import { describe, expect, it } from 'vitest';
import { adoptMarks, channelKey, loadMarks, markRead, saveMarks } from './readmarks';

describe('read marks', () => {
  it('only move forward, and survive a reload through storage', () => {
    let marks = markRead({}, 'c1', 5);
    expect(markRead(marks, 'c1', 3)).toBe(marks);
    marks = markRead(marks, 'c1', 9);
    saveMarks(localStorage, marks);
    expect(loadMarks(localStorage)).toEqual({ c1: 9 });
  });

  it('take a channel seen for the first time as read at its newest event', () => {
    const marks = adoptMarks({ c1: 2 }, [
      { key: 'c1', lastSequence: 10 },
      { key: channelKey('c2', 'peer'), lastSequence: 7 },
    ]);
    expect(marks).toEqual({ c1: 2, 'peer|c2': 7 });
  });

  it('ignore what is not a mark', () => {
    localStorage.setItem('agenthub.channelRead', '{"a":1,"b":"x","c":-1}');
    expect(loadMarks(localStorage)).toEqual({ a: 1 });
    localStorage.setItem('agenthub.channelRead', 'not json');
    expect(loadMarks(localStorage)).toEqual({});
  });
});
