import { describe, expect, it, vi } from 'vitest';
import { createShortcutHandler } from './shortcuts';

function key(k: string, init: KeyboardEventInit & { target?: EventTarget } = {}) {
  const e = new KeyboardEvent('keydown', { key: k, cancelable: true, ...init });
  if (init.target) Object.defineProperty(e, 'target', { value: init.target });
  return e;
}

describe('shortcuts', () => {
  const setup = () => {
    let t = 0;
    const actions = { go: vi.fn(), focusFilter: vi.fn(), showHelp: vi.fn(), escape: vi.fn() };
    const h = createShortcutHandler(actions, () => t);
    return { actions, h, advance: (ms: number) => (t += ms) };
  };

  it('g then a letter switches areas, within a short time', () => {
    const { actions, h, advance } = setup();
    h(key('g'));
    h(key('t'));
    expect(actions.go).toHaveBeenCalledWith('tasks');
    h(key('g'));
    h(key('c'));
    expect(actions.go).toHaveBeenLastCalledWith('chats');
    h(key('g'));
    advance(5000);
    h(key('i'));
    expect(actions.go).toHaveBeenCalledTimes(2);
  });

  it('Alt+1..5 switch areas, in the order of the navigation', () => {
    const { actions, h } = setup();
    h(key('1', { altKey: true, code: 'Digit1' }));
    h(key('2', { altKey: true, code: 'Digit2' }));
    h(key('¡', { altKey: true, code: 'Digit4' })); // a layout where Alt changes the character
    h(key('5', { altKey: true, code: 'Digit5' }));
    expect(actions.go.mock.calls).toEqual([['agents'], ['chats'], ['inbox'], ['settings']]);
  });

  it('/ focuses the filter, ? opens the help, Escape escapes', () => {
    const { actions, h } = setup();
    const slash = key('/');
    h(slash);
    expect(actions.focusFilter).toHaveBeenCalled();
    expect(slash.defaultPrevented).toBe(true);
    h(key('?'));
    expect(actions.showHelp).toHaveBeenCalled();
    h(key('Escape'));
    expect(actions.escape).toHaveBeenCalled();
  });

  it('leaves keys typed into a text field alone', () => {
    const { actions, h } = setup();
    const input = document.createElement('textarea');
    h(key('g', { target: input }));
    h(key('a', { target: input }));
    h(key('/', { target: input }));
    h(key('?', { target: input }));
    expect(actions.go).not.toHaveBeenCalled();
    expect(actions.focusFilter).not.toHaveBeenCalled();
    expect(actions.showHelp).not.toHaveBeenCalled();
    // Escape too: the focus stays in the field (issue 29 item 4).
    h(key('Escape', { target: input }));
    expect(actions.escape).not.toHaveBeenCalled();
    h(key('Escape', { target: document.createElement('button') }));
    expect(actions.escape).toHaveBeenCalled();
  });
});
