import { useEffect, useRef } from 'react';
import { isTyping } from './shortcuts';
import { navigate } from './router';

/** j / k (and ArrowDown / ArrowUp with Alt) open the next / previous item of the list on screen. */
export function useListKeys(hrefs: string[], current: number, onMove?: (index: number) => void): void {
  const ref = useRef({ hrefs, current, onMove });
  ref.current = { hrefs, current, onMove };
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const down = (e.key === 'j' && !e.altKey) || (e.key === 'ArrowDown' && e.altKey);
      const up = (e.key === 'k' && !e.altKey) || (e.key === 'ArrowUp' && e.altKey);
      if (!down && !up) return;
      const { hrefs, current, onMove } = ref.current;
      if (hrefs.length === 0) return;
      const next = current < 0 ? 0 : Math.max(0, Math.min(hrefs.length - 1, current + (down ? 1 : -1)));
      if (next === current) return;
      e.preventDefault();
      onMove?.(next);
      navigate(hrefs[next]);
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, []);
}
