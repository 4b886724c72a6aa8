import { describe, expect, it } from 'vitest';
import { eventText, outgoingParts, toPart } from './parts';

describe('channel parts', () => {
  it('reads the spec shapes, v0.3 ones and the flat one as the UI Part', () => {
    expect(toPart({ type: 'text', text: 'hi' })).toEqual({ kind: 'text', text: 'hi' });
    expect(toPart({ kind: 'file', file: { name: 'a.txt', mimeType: 'text/plain', bytes: 'aGk=' } })).toMatchObject({
      kind: 'file',
      name: 'a.txt',
      mediaType: 'text/plain',
      bytes: 'aGk=',
    });
    expect(toPart({ type: 'file', file: { name: 'b', uri: 'https://x/b' } })).toMatchObject({ kind: 'file', url: 'https://x/b' });
    expect(toPart({ kind: 'file', name: 'c', mediaType: 'image/png', bytes: 'AA==' })).toMatchObject({ name: 'c', mediaType: 'image/png' });
  });

  it('writes the spec shapes and reads their text back', () => {
    const parts = outgoingParts('hello @demo', [{ name: 'n.txt', mediaType: 'text/plain', bytes: 'aGk=' }]);
    expect(parts).toEqual([
      { type: 'text', text: 'hello @demo' },
      { type: 'file', file: { name: 'n.txt', mimeType: 'text/plain', bytes: 'aGk=' } },
    ]);
    expect(eventText(parts)).toBe('hello @demo');
  });
});
