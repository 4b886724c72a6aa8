// Keyboard shortcuts: g a / g c / g t / g i / g s or Alt+1..5 switch areas, / focuses the filter, ? shows
// the help, Escape closes. Keys typed into a text field are left alone, Escape too: the focus stays in the field.

import type { Area } from './router';

export interface ShortcutActions {
  go: (area: Area) => void;
  focusFilter: () => void;
  showHelp: () => void;
  escape: () => void;
}

export const SHORTCUTS: { keys: string[]; label: string }[] = [
  { keys: ['g', 'a'], label: 'Go to Agents (or Alt+1)' },
  { keys: ['g', 'c'], label: 'Go to Chats (or Alt+2)' },
  { keys: ['g', 't'], label: 'Go to Tasks (or Alt+3)' },
  { keys: ['g', 'i'], label: 'Go to Inbox (or Alt+4)' },
  { keys: ['g', 'k'], label: 'Go to Knowledge' },
  { keys: ['g', 'r'], label: 'Go to Scenarios (runs)' },
  { keys: ['g', 's'], label: 'Go to Settings (or Alt+5)' },
  { keys: ['/'], label: 'Focus the filter' },
  { keys: ['j', 'k'], label: 'Next / previous item in a list' },
  { keys: ['Enter'], label: 'Send the message (in a chat; Shift+Enter for a new line)' },
  { keys: ['Ctrl', 'Enter'], label: 'Send the answer (in the inbox reply box)' },
  { keys: ['?'], label: 'Show this help' },
  { keys: ['Esc'], label: 'Close a dialog or the open item' },
];

const G_AREAS: Record<string, Area> = { a: 'agents', c: 'chats', t: 'tasks', i: 'inbox', k: 'knowledge', r: 'scenarios', s: 'settings' };
const ALT_AREAS: Record<string, Area> = { '1': 'agents', '2': 'chats', '3': 'tasks', '4': 'inbox', '5': 'settings' };

export function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toLowerCase();
  if (tag === 'textarea' || tag === 'select') return true;
  if (tag === 'input') {
    const type = ((el as HTMLInputElement).type || 'text').toLowerCase();
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file'].includes(type);
  }
  return el.isContentEditable === true;
}

/** Returns a keydown handler; `now` is injectable for tests. */
export function createShortcutHandler(actions: ShortcutActions, now: () => number = Date.now): (e: KeyboardEvent) => void {
  let gAt = -Infinity;
  return (e) => {
    if (e.defaultPrevented) return;
    if (e.key === 'Escape') {
      // Esc in a text field stays there (a field's own Escape, e.g. closing its completions, runs
      // first): leaving it would send what is typed next to the shortcuts below.
      if (!isTyping(e.target)) actions.escape();
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey) {
      const digit = /^Digit([1-5])$/.exec(e.code)?.[1] ?? (ALT_AREAS[e.key] ? e.key : undefined);
      if (digit && ALT_AREAS[digit]) {
        e.preventDefault();
        actions.go(ALT_AREAS[digit]);
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    if (now() - gAt < 1500 && G_AREAS[e.key]) {
      gAt = -Infinity;
      e.preventDefault();
      actions.go(G_AREAS[e.key]);
      return;
    }
    gAt = -Infinity;
    if (e.key === 'g') {
      gAt = now();
    } else if (e.key === '/') {
      e.preventDefault();
      actions.focusFilter();
    } else if (e.key === '?') {
      e.preventDefault();
      actions.showHelp();
    }
  };
}
