import { useEffect, useState } from 'react';

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    /* fall back below */
  }
  try {
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.style.position = 'fixed';
    ta.style.opacity = '0';
    document.body.appendChild(ta);
    ta.select();
    const ok = document.execCommand('copy');
    ta.remove();
    return ok;
  } catch {
    return false;
  }
}

/**
 * A small "Copy" button; `label` names what is copied for screen readers ("Copy curl example"), and
 * `caption` is its visible word where "Copy" alone would sit beside another Copy ("Copy key").
 */
export function CopyButton({ text, label = 'Copy', caption = 'Copy', className = '' }: { text: string; label?: string; caption?: string; className?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 1600);
    return () => clearTimeout(t);
  }, [state]);
  return (
    <button
      type="button"
      className={`btn btn-small ${className}`}
      aria-label={label}
      onClick={() => void copyText(text).then((ok) => setState(ok ? 'copied' : 'failed'))}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : caption}
    </button>
  );
}

/** A block of code with a copy button. */
export function CodeBlock({ code, label }: { code: string; label: string }) {
  return (
    <div className="code-block">
      <div className="code-block-bar">
        <span className="code-block-label">{label}</span>
        <CopyButton text={code} label={`Copy ${label}`} />
      </div>
      <pre>
        <code>{code}</code>
      </pre>
    </div>
  );
}
