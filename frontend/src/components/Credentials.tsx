import { useId, useState, type FormEvent } from 'react';
import type { AgentInfo, AuthScheme } from '../api/types';
import { alternativesText, credentialParams, fieldsFor, schemesToShow, storeText, whereSent, type CredentialField } from '../lib/credentials';
import { useHub } from '../state/hub';

const KIND_LABEL: Record<string, string> = { apiKey: 'API key', bearer: 'Bearer token', oauth2: 'OAuth 2.0 client credentials', unsupported: 'not supported' };

/** One scheme's form. Secrets go to the hub and are never shown again, not even as a placeholder. */
function SchemeForm({ agent, scheme }: { agent: AgentInfo; scheme: AuthScheme }) {
  const { client, updateAgent } = useHub();
  const [values, setValues] = useState<Partial<Record<CredentialField, string>>>({});
  const [busy, setBusy] = useState<'' | 'save' | 'forget'>('');
  const [note, setNote] = useState('');
  const [error, setError] = useState('');
  const baseId = useId();
  const fields = fieldsFor(scheme.kind);
  const params = credentialParams(agent.id, scheme, values);
  const unsupported = fields.length === 0;

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!params || busy) return;
    setBusy('save');
    setError('');
    setNote('');
    try {
      const updated = await client.call('agents.setCredential', params);
      setValues({});
      setNote('Saved.');
      updateAgent(updated);
    } catch (err) {
      setError((err as Error)?.message || 'Could not save.');
    } finally {
      setBusy('');
    }
  };
  const forget = async () => {
    setBusy('forget');
    setError('');
    setNote('');
    try {
      const updated = await client.call('agents.clearCredential', { id: agent.id, scheme: scheme.name });
      setNote('Forgotten.');
      updateAgent(updated);
    } catch (err) {
      setError((err as Error)?.message || 'Could not forget it.');
    } finally {
      setBusy('');
    }
  };

  return (
    <li className="cred-scheme" data-testid="credential-scheme" data-scheme={scheme.name}>
      <div className="cred-head">
        <strong>{scheme.name}</strong>
        <span className="badge">{KIND_LABEL[scheme.kind] ?? scheme.kind}</span>
        {scheme.saved ? (
          <span className="badge badge-ok" data-testid="credential-saved">
            saved
          </span>
        ) : (
          !unsupported && <span className="badge muted">not set</span>
        )}
      </div>
      {scheme.description && <p className="small">{scheme.description}</p>}
      {scheme.kind === 'apiKey' && <p className="small muted">Sent in {whereSent(scheme)}.</p>}
      {scheme.kind === 'bearer' && <p className="small muted">Sent as an Authorization: Bearer header.</p>}
      {scheme.kind === 'oauth2' && (
        <p className="small muted">
          The hub asks for tokens at {scheme.tokenUrl ? <code className="break">{scheme.tokenUrl}</code> : 'the token URL of the card'}
          {Array.isArray(scheme.scopes) && scheme.scopes.length > 0 && (
            <>
              {' '}
              with scopes{' '}
              {scheme.scopes.map((s, i) => (
                <code key={i} className="mode">
                  {s}
                </code>
              ))}
            </>
          )}
          .
        </p>
      )}
      {unsupported ? (
        <p className="small cred-unsupported">{scheme.unsupported || 'The hub cannot authenticate with this scheme.'}</p>
      ) : (
        <form className="cred-form" aria-label={`Credentials for ${scheme.name}`} onSubmit={save} autoComplete="off">
          {fields.map((f) => (
            <label key={f.field} className="cred-field" htmlFor={`${baseId}-${f.field}`}>
              <span>{f.label}</span>
              <input
                id={`${baseId}-${f.field}`}
                type={f.secret ? 'password' : 'text'}
                autoComplete={f.secret ? 'new-password' : 'off'}
                spellCheck={false}
                value={values[f.field] ?? ''}
                placeholder={scheme.saved && f.secret ? 'saved — type to replace' : ''}
                disabled={!!busy}
                onChange={(e) => setValues((v) => ({ ...v, [f.field]: e.target.value }))}
              />
            </label>
          ))}
          <div className="cred-actions">
            <button type="submit" className="btn btn-primary" disabled={!params || !!busy}>
              {busy === 'save' ? 'Saving…' : 'Save'}
            </button>
            {scheme.saved && (
              <button type="button" className="btn btn-danger" disabled={!!busy} onClick={() => void forget()}>
                {busy === 'forget' ? 'Forgetting…' : 'Forget'}
              </button>
            )}
            {note && (
              <span className="small muted" role="status">
                {note}
              </span>
            )}
          </div>
          {error && (
            <p className="reply-error" role="alert">
              {error}
            </p>
          )}
        </form>
      )}
    </li>
  );
}

/** What a remote agent's card asks for, and the forms to give the hub those credentials. */
export function Credentials({ agent }: { agent: AgentInfo }) {
  const auth = agent.auth;
  const schemes = schemesToShow(auth);
  const alts = alternativesText(auth);
  return (
    <section className="section credentials" aria-labelledby="creds-h" id="credentials">
      <h3 id="creds-h" tabIndex={-1}>
        Credentials
      </h3>
      {!auth || schemes.length === 0 ? (
        <p className="muted">This agent’s card asks for no credentials.</p>
      ) : (
        <>
          <p className="small" data-testid="credentials-summary">
            {auth.satisfied ? (
              <span className="yes">✓ The saved credentials meet what the card asks for.</span>
            ) : auth.required ? (
              <span className="no">This agent requires credentials; calls will be refused until they are saved.</span>
            ) : (
              <span>Credentials are optional for this agent.</span>
            )}
            {alts && <> It accepts: {alts}.</>}
          </p>
          <ul className="cred-list">
            {schemes.map((s) => (
              <SchemeForm key={s.name} agent={agent} scheme={s} />
            ))}
          </ul>
          <p className="small muted">Secrets are kept in {storeText(auth.store)}. They are never shown again, here or anywhere in the app.</p>
        </>
      )}
    </section>
  );
}
