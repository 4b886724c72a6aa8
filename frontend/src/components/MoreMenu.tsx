import { useEffect, useRef, type ReactNode } from 'react';

/**
 * "More ▾" (or another summary): a disclosure holding a header's rarer actions (native <details>, so Enter and Space
 * open it from the keyboard). It closes when one of its actions is clicked, on Escape (focus back
 * on its button) and on a click elsewhere.
 */
export function MoreMenu({ label, summary = 'More', children }: { label: string; summary?: string; children: ReactNode }) {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const away = (e: MouseEvent) => {
      const el = ref.current;
      if (el?.open && !el.contains(e.target as Node)) el.open = false;
    };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, []);
  const close = () => {
    if (ref.current) ref.current.open = false;
  };
  return (
    <details
      className="more-menu"
      ref={ref}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && ref.current?.open) {
          e.preventDefault();
          e.stopPropagation();
          close();
          ref.current?.querySelector('summary')?.focus();
        }
      }}
    >
      <summary className="btn btn-small" aria-label={label}>
        {summary} <span aria-hidden="true">▾</span>
      </summary>
      <div className="more-menu-items" onClick={(e) => (e.target as HTMLElement).closest('button') && close()}>
        {children}
      </div>
    </details>
  );
}
