import { memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { openURL, safeHttpUrl } from '../native';

// An agent's text as Markdown (GitHub flavour: tables, task lists, strikethrough, autolinks), safely:
// raw HTML is never rendered (react-markdown shows it as text), only http(s) links are links, and they
// open through openURL (the system browser in the desktop window, a new tab otherwise), never inside
// the app. Images are not loaded (that would tell a remote server we read the message): they become
// links to open.

function SafeLink({ href, children }: { href?: string; children?: ReactNode }) {
  const safe = safeHttpUrl(href);
  if (!safe) return <span className="md-inert-link">{children}</span>;
  return (
    <a
      href={safe}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="external"
      title={safe}
      onClick={(e) => {
        e.preventDefault();
        void openURL(safe);
      }}
    >
      {children}
    </a>
  );
}

const components: Components = {
  a: ({ href, children }) => <SafeLink href={href}>{children}</SafeLink>,
  img: ({ src, alt }) => {
    const label = `image: ${alt || 'untitled'}`;
    return typeof src === 'string' && safeHttpUrl(src) ? <SafeLink href={src}>[{label}]</SafeLink> : <span className="md-inert-link">[{label}]</span>;
  },
};

const plugins = [remarkGfm];

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={plugins} components={components} skipHtml={false}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
