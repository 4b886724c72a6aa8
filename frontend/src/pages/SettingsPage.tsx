import { useEffect, useState } from 'react';
import { keepToken } from '../api/bootstrap';
import { CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { maskedUiUrl, tokenOf } from '../lib/format';
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

/**
 * The link that opens this UI: its token masked, with copy, and Regenerate, which ends every other
 * window's connection (their token stops working) while this one goes on with the new token.
 */
function UILink() {
  const { hub, client } = useHub();
  const [regenerated, setRegenerated] = useState('');
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState(false);
  const url = regenerated || hub?.uiUrl || '';
  const token = tokenOf(url);
  const go = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await client.call('ui.regenerateToken', {});
      keepToken(r.token);
      setRegenerated(r.uiUrl);
      setConfirm(false);
      setDone(true);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <dt>UI link</dt>
      <dd className="ui-link">
        {url ? (
          <>
            <code className="break" data-testid="ui-link">
              {maskedUiUrl(url)}
            </code>
            <CopyButton text={url} label="Copy the UI link" />
            {token && <CopyButton text={token} label="Copy the UI token" />}
            <button type="button" className="btn btn-small" onClick={() => setConfirm(true)}>
              Regenerate
            </button>
          </>
        ) : (
          <span className="muted">—</span>
        )}
        <span className="muted small block">
          The token in this link opens your hub’s UI. It is kept in the data directory (<code>ui-token</code>, readable by you only), so
          open windows and the link survive a restart.
        </span>
        {done && (
          <span className="small block" role="status">
            New token made: other windows and old links no longer work. This window goes on.
          </span>
        )}
      </dd>
      {confirm && (
        <Dialog title="Regenerate the UI token?" onClose={() => setConfirm(false)}>
          <p>Every other window and every copy of the old link stop working at once. This window goes on with the new token.</p>
          {error && (
            <p className="reply-error" role="alert">
              {error}
            </p>
          )}
          <div className="reply-actions">
            <span className="spacer" />
            <button type="button" className="btn" onClick={() => setConfirm(false)}>
              Cancel
            </button>
            <button type="button" className="btn btn-danger" disabled={busy} onClick={() => void go()}>
              Regenerate token
            </button>
          </div>
        </Dialog>
      )}
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
            <UILink />
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
