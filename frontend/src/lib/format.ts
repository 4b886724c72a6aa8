// Formatting of times, durations and sizes, and file names for display.

/**
 * A file name without Unicode format characters (category Cf): bidi embeddings, overrides and
 * isolates (U+202A–U+202E, U+2066–U+2069), marks (U+200E/F, U+061C) and zero-width characters. They
 * are invisible, and an override makes "invoice\u202Efdp.exe" read as "invoiceexe.pdf". The same rule
 * as the backend's filename.Clean.
 */
export function stripFormatChars(name: string): string {
  return name.replace(/\p{Cf}/gu, '');
}

/** Milliseconds since the epoch for an RFC 3339 time (nanosecond fractions allowed), NaN if unreadable. */
export function parseTime(s: string | undefined | null): number {
  if (!s || typeof s !== 'string') return NaN;
  // Date.parse is only specified for up to millisecond fractions.
  const trimmed = s.replace(/(\.\d{3})\d+/, '$1');
  return Date.parse(trimmed);
}

/** A duration for people: 350ms, 1.2s, 12s, 2m 05s, 1h 02m, 3d 4h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  const neg = ms < 0;
  const a = Math.abs(ms);
  let out: string;
  if (a < 1000) out = `${Math.round(a)}ms`;
  else if (a < 10_000) out = `${(Math.floor(a / 100) / 10).toFixed(1)}s`;
  else if (a < 60_000) out = `${Math.floor(a / 1000)}s`;
  else if (a < 3_600_000) {
    const m = Math.floor(a / 60_000);
    const s = Math.floor((a % 60_000) / 1000);
    out = `${m}m ${String(s).padStart(2, '0')}s`;
  } else if (a < 86_400_000) {
    const h = Math.floor(a / 3_600_000);
    const m = Math.floor((a % 3_600_000) / 60_000);
    out = `${h}h ${String(m).padStart(2, '0')}m`;
  } else {
    const d = Math.floor(a / 86_400_000);
    const h = Math.floor((a % 86_400_000) / 3_600_000);
    out = `${d}d ${h}h`;
  }
  return neg ? `-${out}` : out;
}

/** The time between two events, e.g. "+1.2s"; empty when either time is unknown. */
export function formatDelta(fromIso: string | undefined, toIso: string | undefined): string {
  const a = parseTime(fromIso);
  const b = parseTime(toIso);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return '';
  const d = b - a;
  return d < 0 ? formatDuration(d) : `+${formatDuration(d)}`;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** Local wall-clock time with milliseconds, e.g. 14:03:22.451. */
export function formatClock(iso: string | undefined): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time, e.g. 2025-11-21 14:03:22. */
export function formatDateTime(iso: string | undefined): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "just now", "5 min ago", "3 h ago", then the date. */
export function formatRelative(iso: string | undefined, now: number = Date.now()): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return '';
  const d = now - t;
  if (d < 45_000) return 'just now';
  if (d < 3_600_000) return `${Math.max(1, Math.round(d / 60_000))} min ago`;
  if (d < 86_400_000) return `${Math.round(d / 3_600_000)} h ago`;
  return formatDateTime(iso).slice(0, 10);
}

export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n) || n < 0) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** Decoded size of base64 data, without decoding it. */
export function base64Size(b64: string | undefined): number {
  if (!b64) return 0;
  const s = b64.replace(/\s/g, '');
  const padding = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((s.length * 3) / 4) - padding);
}

/** Short id for display: first 8 characters. */
export function shortId(id: string): string {
  return id.length > 10 ? id.slice(0, 8) + '…' : id;
}

/** A message's time in a chat: "14:03" today, "2025-11-21 14:03" on other days. */
export function formatChatTime(iso: string | undefined, now: number = Date.now()): string {
  const t = parseTime(iso);
  if (!Number.isFinite(t)) return '';
  const d = new Date(t);
  const n = new Date(now);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  const sameDay = d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate();
  return sameDay ? hm : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hm}`;
}

/** The token in a UI link (…/#token=TOKEN), or "". */
export function tokenOf(uiUrl: string): string {
  const i = uiUrl.indexOf('#token=');
  return i < 0 ? '' : uiUrl.slice(i + '#token='.length);
}

/** A UI link with its token masked but for its last 4 characters, to tell two tokens apart. */
export function maskedUiUrl(uiUrl: string): string {
  const token = tokenOf(uiUrl);
  if (!token) return uiUrl;
  return uiUrl.slice(0, uiUrl.length - token.length) + '•'.repeat(8) + token.slice(-4);
}

/**
 * A one-line title from Markdown source, as it reads: links become their text, emphasis, code and
 * heading marks go ("**Deploy** [plan](https://…)" → "Deploy plan").
 */
export function plainTitle(s: string): string {
  return (s || '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_](\S(?:.*?\S)?)[*_](?=[\s).,!?:;]|$)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}
