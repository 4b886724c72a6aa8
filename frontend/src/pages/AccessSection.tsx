// Settings → Access: the API keys other programs call the hub with, and what callers without a key
// may do. A new key is shown once, right after it is made: the hub keeps only its hash.

import { useEffect, useState, type FormEvent } from 'react';
import type { AccessKey, AnonymousPolicy, IssuedKey } from '../api/types';
import { CodeBlock, CopyButton } from '../components/CopyButton';
import { Dialog } from '../components/Dialog';
import { isPolicy, keysOf, maskedKey, nameProblem, NAME_MAX, POLICIES, snippets, validName } from '../lib/access';
import { formatDateTime, formatRelative } from '../lib/format';
import { isDisconnect, useHub, useTopic } from '../state/hub';

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The keys and the policy, refetched on every connection, "lagged" push and access change. */
function useAccess() {
  const { client, refreshKey } = useHub();
  const [keys, setKeys] = useState<AccessKey[]>([]);
  const [policy, setPolicy] = useState<AnonymousPolicy | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState('');
  const [nonce, setNonce] = useState(0);
  useTopic('access', () => setNonce((n) => n + 1));
  useEffect(() => {
    let live = true;
    client.call('access.list', {}).then(
      (r) => {
        if (!live) return;
        setKeys(keysOf(r));
        setLoaded(true);
        setError('');
      },
      (e) => live && !isDisconnect(e) && setError(errorText(e)),
    );
    client.call('access.policy', {}).then(
      (r) => live && isPolicy(r?.anonymous) && setPolicy(r.anonymous as AnonymousPolicy),
      (e) => live && !isDisconnect(e) && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [client, refreshKey, nonce]);
  return { keys, policy, setPolicy, loaded, error, reload: () => setNonce((n) => n + 1) };
}

/** A re-render every half minute, so "last used 5 min ago" stays true. */
function useNow(ms = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

/** The new key, shown this once, with the commands that use it. */
function NewKey({ issued, rotated, hubUrl, rpcUrl, onDone }: { issued: IssuedKey; rotated: boolean; hubUrl: string; rpcUrl: string; onDone: () => void }) {
  const { principal, key } = issued;
  return (
    <div className="new-key" role="region" aria-labelledby="new-key-h" data-testid="new-key-box">
      <h3 id="new-key-h">{rotated ? `New key for ${principal.name}` : `Key for ${principal.name}`}</h3>
      <p className="new-key-warn">
        <strong>Copy it now: it won't be shown again.</strong> The hub keeps only a fingerprint of it. If it is lost, rotate it to get a new one.
      </p>
      <div className="new-key-value">
        <input type="text" readOnly value={key} aria-label="New API key" data-testid="new-key" onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
        <CopyButton text={key} label="Copy the new API key" caption="Copy key" />
      </div>
      {rotated && <p className="muted small">The old key, and every token made with it, no longer work.</p>}
      {snippets(hubUrl, rpcUrl, principal.name, key).map((s) => (
        <CodeBlock key={s.label} label={s.label} code={s.code} />
      ))}
      <div className="reply-actions">
        <span className="spacer" />
        <button type="button" className="btn btn-primary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

function AddKeyForm({ existing, onIssued }: { existing: string[]; onIssued: (k: IssuedKey) => void }) {
  const { client } = useHub();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const problem = nameProblem(name, existing);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!validName(name) || problem || busy) return;
    setBusy(true);
    setError('');
    try {
      onIssued(await client.call('access.add', { name }));
      setName('');
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="add-key" onSubmit={submit} aria-label="Add an API key" noValidate>
      <label className="field-label" htmlFor="access-name">
        New key's name
      </label>
      <div className="add-key-row">
        <input
          id="access-name"
          type="text"
          className="filter"
          placeholder="e.g. build-bot"
          autoComplete="off"
          spellCheck={false}
          maxLength={NAME_MAX + 8}
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby="access-name-hint"
          disabled={busy}
        />
        <button type="submit" className="btn btn-primary" disabled={busy || !validName(name) || !!problem}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
      <p id="access-name-hint" className={problem ? 'add-agent-error' : 'muted small'} role={problem ? 'alert' : undefined}>
        {problem ?? 'Lower-case letters, digits, “.”, “_” and “-”. Callers using the key act as agent://NAME.'}
      </p>
      {error && (
        <p className="add-agent-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

type Confirm = { kind: 'rotate' | 'remove'; name: string };

function ConfirmDialog({ confirm, onClose, onDone }: { confirm: Confirm; onClose: () => void; onDone: (k?: IssuedKey) => void }) {
  const { client } = useHub();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const rotate = confirm.kind === 'rotate';
  const go = async () => {
    setBusy(true);
    setError('');
    try {
      if (rotate) onDone(await client.call('access.rotate', { name: confirm.name }));
      else {
        await client.call('access.remove', { name: confirm.name });
        onDone();
      }
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };
  return (
    <Dialog title={rotate ? `Give ${confirm.name} a new key?` : `Revoke ${confirm.name}'s key?`} onClose={onClose}>
      <p>
        {rotate
          ? 'The current key, and every token made with it, stop working at once. Whatever uses it will need the new key, which is shown once.'
          : 'Anything using this key or its tokens is refused at once. You can add the name again later; it gets a new key.'}
      </p>
      {error && (
        <p className="reply-error" role="alert">
          {error}
        </p>
      )}
      <div className="reply-actions">
        <span className="spacer" />
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className={`btn ${rotate ? 'btn-primary' : 'btn-danger'}`} disabled={busy} onClick={() => void go()}>
          {rotate ? 'Rotate key' : 'Revoke key'}
        </button>
      </div>
    </Dialog>
  );
}

function KeyRow({ k, now, onConfirm }: { k: AccessKey; now: number; onConfirm: (c: Confirm) => void }) {
  return (
    <li className="access-key" data-testid="access-key" data-name={k.name}>
      <div className="access-key-main">
        <span className="access-key-name">{k.name}</span>
        <code className="muted small">{maskedKey(k)}</code>
      </div>
      <div className="access-key-times muted small">
        <span title={formatDateTime(k.createdAt)}>created {formatRelative(k.createdAt, now)}</span>
        <span title={k.lastUsedAt ? formatDateTime(k.lastUsedAt) : undefined} data-testid="access-last-used">
          {k.lastUsedAt ? `last used ${formatRelative(k.lastUsedAt, now)}` : 'never used'}
        </span>
      </div>
      <div className="access-key-actions">
        <button type="button" className="btn btn-small" aria-label={`Rotate ${k.name}`} onClick={() => onConfirm({ kind: 'rotate', name: k.name })}>
          Rotate
        </button>
        <button type="button" className="btn btn-small btn-danger" aria-label={`Revoke ${k.name}`} onClick={() => onConfirm({ kind: 'remove', name: k.name })}>
          Revoke
        </button>
      </div>
    </li>
  );
}

function PolicyChoice({ policy, onChange }: { policy: AnonymousPolicy | null; onChange: (p: AnonymousPolicy) => void }) {
  const { client } = useHub();
  const [error, setError] = useState('');
  const choose = async (p: AnonymousPolicy) => {
    const before = policy;
    onChange(p);
    setError('');
    try {
      const r = await client.call('access.setPolicy', { anonymous: p });
      if (isPolicy(r?.anonymous)) onChange(r.anonymous as AnonymousPolicy);
    } catch (e) {
      if (before) onChange(before);
      setError(errorText(e));
    }
  };
  return (
    <fieldset className="radio-group radio-stack" aria-describedby="anon-h-hint">
      <legend id="anon-h">Callers without a key</legend>
      <p id="anon-h-hint" className="muted small">
        Only programs on this computer can call without a key; from anywhere else a key is always needed.
      </p>
      {POLICIES.map((p) => (
        <label key={p.value} className={`radio-card ${policy === p.value ? 'checked' : ''}`}>
          <input type="radio" name="anonymous" value={p.value} checked={policy === p.value} disabled={policy === null} onChange={() => void choose(p.value)} />
          <span>
            {p.label}
            <span className="muted small block">{p.explanation}</span>
          </span>
        </label>
      ))}
      {error && (
        <p className="reply-error" role="alert">
          {error}
        </p>
      )}
    </fieldset>
  );
}

export function AccessSection({ hubUrl, rpcUrl }: { hubUrl: string; rpcUrl: string }) {
  const { keys, policy, setPolicy, loaded, error } = useAccess();
  const [issued, setIssued] = useState<{ key: IssuedKey; rotated: boolean } | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);
  const now = useNow();
  return (
    <section className="section card access" id="access" aria-labelledby="access-h">
      <h2 id="access-h">Access</h2>
      <p className="access-intro">
        An API key lets another program or agent call this hub as <code>agent://NAME</code>: send it in the <code>X-Api-Key</code> header, or trade it for a
        token at <code>/oauth/token</code>.
      </p>
      {error && (
        <p className="reply-error" role="alert">
          {error}
        </p>
      )}
      {issued && <NewKey issued={issued.key} rotated={issued.rotated} hubUrl={hubUrl} rpcUrl={rpcUrl} onDone={() => setIssued(null)} />}
      <h3>API keys</h3>
      {loaded && keys.length === 0 && !issued && (
        <div className="access-empty" data-testid="access-empty">
          <p>
            <strong>No keys yet.</strong> Make one for each program that should reach this hub, so you can see which one called, and cut one off without
            touching the others. For example, with a key named <code>NAME</code>:
          </p>
          {snippets(hubUrl, rpcUrl, 'NAME', 'KEY').map((s) => (
            <CodeBlock key={s.label} label={s.label} code={s.code} />
          ))}
        </div>
      )}
      {keys.length > 0 && (
        <ul className="access-keys" aria-label="API keys">
          {keys.map((k) => (
            <KeyRow key={k.name} k={k} now={now} onConfirm={setConfirm} />
          ))}
        </ul>
      )}
      <AddKeyForm existing={keys.map((k) => k.name)} onIssued={(key) => setIssued({ key, rotated: false })} />
      <PolicyChoice policy={policy} onChange={setPolicy} />
      {confirm && (
        <ConfirmDialog
          confirm={confirm}
          onClose={() => setConfirm(null)}
          onDone={(key) => {
            setConfirm(null);
            if (key) setIssued({ key, rotated: true });
            else if (issued?.key.principal.name === confirm.name) setIssued(null); // revoked: the key shown is dead
          }}
        />
      )}
    </section>
  );
}
