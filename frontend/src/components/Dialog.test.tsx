import { fireEvent, render, screen } from '@testing-library/react';
import { useEffect } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Dialog } from './Dialog';

// Page is a page with a keyboard shortcut on Escape (as the app's, which leaves an open channel)
// and a dialog open over it.
function Page({ onClose, onPageEscape }: { onClose: () => void; onPageEscape: () => void }) {
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (!e.defaultPrevented && e.key === 'Escape') onPageEscape();
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [onPageEscape]);
  return (
    <Dialog title="Members" onClose={onClose}>
      <select aria-label="Add a member" />
    </Dialog>
  );
}

describe('Dialog', () => {
  it('Escape with the focus in the dialog closes it, and only it', () => {
    const onClose = vi.fn();
    const onPageEscape = vi.fn();
    render(<Page onClose={onClose} onPageEscape={onPageEscape} />);
    fireEvent.keyDown(screen.getByLabelText('Add a member'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onPageEscape).not.toHaveBeenCalled();
  });

  it('Escape after the focus fell out of the dialog still closes it, and not the page behind', () => {
    const onClose = vi.fn();
    const onPageEscape = vi.fn();
    render(<Page onClose={onClose} onPageEscape={onPageEscape} />);
    (document.activeElement as HTMLElement).blur(); // as when the focused control is disabled
    expect(document.activeElement).toBe(document.body);
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onPageEscape).not.toHaveBeenCalled();
  });

  it('with two dialogs open, Escape from outside both closes the one on top', () => {
    const under = vi.fn();
    const top = vi.fn();
    render(
      <>
        <Dialog title="Under" onClose={under}>
          <button type="button">a</button>
        </Dialog>
        <Dialog title="Top" onClose={top}>
          <button type="button">b</button>
        </Dialog>
      </>,
    );
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(top).toHaveBeenCalledTimes(1);
    expect(under).not.toHaveBeenCalled();
  });
});
