import { useEffect, useId, useRef, type ReactNode } from 'react';

/** A modal dialog; Escape and a click outside close it, focus returns where it was. */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ReactNode }) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const first = ref.current?.querySelector<HTMLElement>('button, [href], input, select, textarea, [tabindex]:not([tabindex="-1"])');
    (first ?? ref.current)?.focus();
    return () => before?.focus?.();
  }, []);
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    // Focus can fall out of the dialog: a control that held it is disabled or removed while the
    // dialog works (Members disables its picker while a member is added). Escape pressed then must
    // still close the dialog, and only it: reaching the page's shortcuts, it also left the channel
    // behind. Keys inside the dialog stay with it (and with its fields' own Escape handling).
    const onKey = (e: KeyboardEvent) => {
      const dialog = ref.current;
      if (e.key !== 'Escape' || e.defaultPrevented || !dialog || dialog.contains(e.target as Node)) return;
      const open = document.querySelectorAll('[role="dialog"]');
      if (open[open.length - 1] !== dialog) return; // another dialog is on top: it is that one's Escape
      e.preventDefault();
      e.stopPropagation();
      close.current();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  return (
    <div className="dialog-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={id}
        ref={ref}
        tabIndex={-1}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
          if (e.key === 'Tab') {
            const items = ref.current?.querySelectorAll<HTMLElement>('button, [href], input, select, textarea');
            if (!items || items.length === 0) return;
            const first = items[0];
            const last = items[items.length - 1];
            if (e.shiftKey && document.activeElement === first) {
              e.preventDefault();
              last.focus();
            } else if (!e.shiftKey && document.activeElement === last) {
              e.preventDefault();
              first.focus();
            }
          }
        }}
      >
        <div className="dialog-head">
          <h2 id={id}>{title}</h2>
          <button type="button" className="btn btn-ghost" aria-label="Close" onClick={onClose}>
            ✕
          </button>
        </div>
        <div className="dialog-body">{children}</div>
      </div>
    </div>
  );
}
