import { describe, expect, it } from 'vitest';
import { base64Size, formatChatTime, formatBytes, formatDelta, formatDuration, formatRelative, maskedUiUrl, parseTime, plainTitle, stripFormatChars, tokenOf } from './format';

describe('parseTime', () => {
  it('reads RFC 3339 with nanoseconds', () => {
    expect(parseTime('2025-03-04T05:06:07.123456789Z')).toBe(Date.UTC(2025, 2, 4, 5, 6, 7, 123));
    expect(parseTime('2025-03-04T05:06:07Z')).toBe(Date.UTC(2025, 2, 4, 5, 6, 7));
    expect(parseTime('garbage')).toBeNaN();
    expect(parseTime(undefined)).toBeNaN();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0ms'],
    [350, '350ms'],
    [999, '999ms'],
    [1000, '1.0s'],
    [1234, '1.2s'],
    [9999, '9.9s'],
    [12_400, '12s'],
    [125_000, '2m 05s'],
    [3_725_000, '1h 02m'],
    [90_000_000, '1d 1h'],
    [-1500, '-1.5s'],
  ])('%d ms → %s', (ms, want) => {
    expect(formatDuration(ms)).toBe(want);
  });
});

describe('formatDelta', () => {
  it('is the signed time between two events', () => {
    expect(formatDelta('2025-01-01T00:00:00.000000000Z', '2025-01-01T00:00:01.234000000Z')).toBe('+1.2s');
    expect(formatDelta('2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.055Z')).toBe('+55ms');
    expect(formatDelta('2025-01-01T00:00:00.000123Z', '2025-01-01T00:00:00.000999Z')).toBe('+0ms');
    expect(formatDelta('2025-01-01T00:00:02Z', '2025-01-01T00:00:01Z')).toBe('-1.0s');
    expect(formatDelta(undefined, '2025-01-01T00:00:01Z')).toBe('');
  });
});

describe('sizes and relative times', () => {
  it('formats bytes', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MB');
    expect(formatBytes(undefined)).toBe('');
  });
  it('computes the decoded size of base64', () => {
    expect(base64Size(btoa('hello'))).toBe(5);
    expect(base64Size(btoa('hell'))).toBe(4);
    expect(base64Size(btoa('hel'))).toBe(3);
    expect(base64Size('')).toBe(0);
  });
  it('says how long ago', () => {
    const now = Date.UTC(2025, 0, 1, 12, 0, 0);
    expect(formatRelative('2025-01-01T11:59:50Z', now)).toBe('just now');
    expect(formatRelative('2025-01-01T11:55:00Z', now)).toBe('5 min ago');
    expect(formatRelative('2025-01-01T09:00:00Z', now)).toBe('3 h ago');
  });
  it('shows chat times as the time today, with the date on other days', () => {
    const now = new Date(2025, 0, 2, 12, 0, 0).getTime();
    expect(formatChatTime(new Date(2025, 0, 2, 9, 5).toISOString(), now)).toBe('09:05');
    expect(formatChatTime(new Date(2025, 0, 1, 23, 59).toISOString(), now)).toBe('2025-01-01 23:59');
    expect(formatChatTime('nonsense', now)).toBe('');
  });
});

describe('stripFormatChars', () => {
  it('drops bidi controls, marks and zero-width characters, and nothing else', () => {
    expect(stripFormatChars('invoice\u202Efdp.exe')).toBe('invoicefdp.exe');
    expect(stripFormatChars('\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069x')).toBe('x');
    expect(stripFormatChars('a\u200Eb\u200Fc\u061Cd\u200Be\u200Cf\u200Dg\uFEFF')).toBe('abcdefg');
    expect(stripFormatChars('héllo wörld ✓ عربي (1).txt')).toBe('héllo wörld ✓ عربي (1).txt');
  });
});

describe('the UI link in Settings', () => {
  it('masks the token but for its last 4 characters', () => {
    const url = 'http://127.0.0.1:51234/#token=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    expect(tokenOf(url)).toBe('abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG');
    expect(maskedUiUrl(url)).toBe('http://127.0.0.1:51234/#token=••••••••DEFG');
    expect(maskedUiUrl('http://127.0.0.1:51234/')).toBe('http://127.0.0.1:51234/');
  });
});

describe('plainTitle', () => {
  it('reads Markdown source as text', () => {
    expect(plainTitle('**Deploy** v2.3 today? The plan: [checklist](https://example.com/plan)')).toBe('Deploy v2.3 today? The plan: checklist');
    expect(plainTitle('# Heading with `code` and _emphasis_ and ~~gone~~')).toBe('Heading with code and emphasis and gone');
    expect(plainTitle('2 * 3 * 4 stays')).toBe('2 * 3 * 4 stays');
    expect(plainTitle('snake_case_name stays')).toBe('snake_case_name stays');
  });
});
