import type { ReactNode } from 'react';
import { openURL, safeHttpUrl } from '../native';

/**
 * A link from an agent card or a task. Only http(s) URLs become links, and they open in the system
 * browser (desktop) or a new tab; anything else is shown as inert text.
 */
export function ExternalLink({ href, children }: { href: unknown; children?: ReactNode }) {
  const safe = safeHttpUrl(href);
  const text = children ?? (typeof href === 'string' ? href : '');
  if (!safe) return <span className="inert-url">{text}</span>;
  return (
    <a
      href={safe}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="external"
      onClick={(e) => {
        e.preventDefault();
        void openURL(safe);
      }}
    >
      {text}
      <span aria-hidden="true" className="external-mark">
        ↗
      </span>
    </a>
  );
}
