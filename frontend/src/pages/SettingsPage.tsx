import { useEffect } from 'react';
import { CopyButton } from '../components/CopyButton';
import { rpcEndpoint } from '../lib/card';
import type { SettingsSection } from '../lib/router';
import type { ThemeChoice } from '../lib/theme';
import { useHub } from '../state/hub';
import { AccessSection } from './AccessSection';

const THEMES: { value: ThemeChoice; label: string; hint: string }[] = [
  { value: 'system', label: 'System', hint: 'Follow the operating system' },
  { value: 'light', label: 'Light', hint: '' },
  { value: 'dark', label: 'Dark', hint: '' },
];

function Row({ label, value, copy }: { label: string; value: string | undefined; copy?: boolean }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>
        {value ? (
          <>
            <code className="break">{value}</code>
            {copy && <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />}
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </dd>
    </>
  );
}

export function SettingsPage({
  theme,
  setTheme,
  onShowShortcuts,
  section,
}: {
  theme: ThemeChoice;
  setTheme: (t: ThemeChoice) => void;
  onShowShortcuts: () => void;
  section?: SettingsSection;
}) {
  const { hub, agents, conn } = useHub();
  // #/settings/access opens the page at that section.
  useEffect(() => {
    if (section) document.getElementById(section)?.scrollIntoView?.({ block: 'start' });
  }, [section]);
  const hubAgent = agents.find((a) => a.kind === 'hub');
  return (
    <div className="page settings-page">
      <header className="page-head">
        <h1>Settings</h1>
      </header>
      <div className="settings-body">
        <section className="section card" aria-labelledby="appearance-h">
          <h2 id="appearance-h">Appearance</h2>
          <fieldset className="radio-group">
            <legend>Theme</legend>
            {THEMES.map((t) => (
              <label key={t.value} className={`radio-card ${theme === t.value ? 'checked' : ''}`}>
                <input type="radio" name="theme" value={t.value} checked={theme === t.value} onChange={() => setTheme(t.value)} />
                <span className={`theme-swatch swatch-${t.value}`} aria-hidden="true" />
                <span>
                  {t.label}
                  {t.hint && <span className="muted small block">{t.hint}</span>}
                </span>
              </label>
            ))}
          </fieldset>
        </section>
        <section className="section card" aria-labelledby="hub-h">
          <h2 id="hub-h">This hub</h2>
          <dl className="kv">
            <Row label="Version" value={hub?.version} />
            <Row label="Data directory" value={hub?.dataDir} copy />
            <Row label="UI URL" value={hub?.uiUrl} copy />
            <Row label="A2A endpoint" value={hubAgent ? rpcEndpoint(hubAgent) : undefined} copy />
            <Row label="Agent card" value={hubAgent?.cardUrl} copy />
            <dt>Connection</dt>
            <dd>{conn.state === 'open' ? 'connected' : conn.state}</dd>
          </dl>
        </section>
        <AccessSection hubUrl={hubAgent?.url || 'http://127.0.0.1:PORT'} rpcUrl={hubAgent ? rpcEndpoint(hubAgent) : 'http://127.0.0.1:PORT/a2a'} />
        <section className="section card" aria-labelledby="kbd-h">
          <h2 id="kbd-h">Keyboard</h2>
          <p>
            Press <kbd>?</kbd> anywhere to see the shortcuts.
          </p>
          <button type="button" className="btn" onClick={onShowShortcuts}>
            Show keyboard shortcuts
          </button>
        </section>
      </div>
    </div>
  );
}
