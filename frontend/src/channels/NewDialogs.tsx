// Creating a channel (name, public or private), and opening a direct chat with a principal (the
// spec's direct channels are made by their first message, so the dialog asks for it).

import { useEffect, useState, type FormEvent } from 'react';
import type { AccessKey } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { useHub } from '../state/hub';
import { createChannel, publish, type Ext } from './api';
import type { Channel } from './model';
import { newKey } from './sha256';
import { outgoingParts } from './parts';

export function NewChannelDialog({ ext, agent, onCreated, onClose }: { ext: Ext; agent?: string; onCreated: (c: Channel) => void; onClose: () => void }) {
  const { agents } = useHub();
  // The agents that may join from the start (this hub's channels only: another hub cannot take ours).
  const joinable = agent ? [] : agents.filter((a) => a.kind !== 'hub');
  const [picked, setPicked] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [visibility, setVisibility] = useState<'private' | 'public'>('private');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const n = name.trim().replace(/^#/, '');
    if (!n || busy) return;
    setBusy(true);
    setError('');
    try {
      onCreated(await createChannel(ext, { name: n, visibility, ...(picked.length ? { members: picked } : {}) }, agent));
    } catch (err) {
      setError((err as Error)?.message || 'The channel was not created.');
      setBusy(false);
    }
  };
  return (
    <Dialog title="New channel" onClose={onClose}>
      <form className="chan-form" onSubmit={submit}>
        <label htmlFor="chan-name">Name</label>
        <input id="chan-name" value={name} maxLength={128} placeholder="e.g. research" onChange={(e) => setName(e.target.value)} required />
        <fieldset className="chan-visibility">
          <legend>Who can find it</legend>
          <label>
            <input type="radio" name="visibility" value="private" checked={visibility === 'private'} onChange={() => setVisibility('private')} /> Private: only
            its members see it
          </label>
          <label>
            <input type="radio" name="visibility" value="public" checked={visibility === 'public'} onChange={() => setVisibility('public')} /> Public: every
            principal of the hub can read it
          </label>
        </fieldset>
        {joinable.length > 0 && (
          <fieldset className="chan-visibility" data-testid="new-channel-agents">
            <legend>Agents in it</legend>
            {joinable.map((a) => {
              const id = `remote://${a.id}`;
              return (
                <label key={a.id}>
                  <input
                    type="checkbox"
                    value={id}
                    checked={picked.includes(id)}
                    onChange={(e) => setPicked((cur) => (e.target.checked ? [...cur, id] : cur.filter((x) => x !== id)))}
                  />{' '}
                  {a.name || a.id} <span className="muted small">({id})</span>
                </label>
              );
            })}
          </fieldset>
        )}
        <p className="muted small">
          You are its owner. {joinable.length > 0 ? 'An agent in it answers when mentioned with @. ' : ''}Add more agents and principals from its
          Members.
        </p>
        {error && <ErrorBox message={error} context="agent" />}
        <div className="reply-actions">
          <span className="spacer" />
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy || !name.trim()}>
            {busy ? 'Creating…' : 'Create channel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function NewDirectDialog({ ext, onOpened, onClose }: { ext: Ext; onOpened: (channelId: string) => void; onClose: () => void }) {
  const { client } = useHub();
  const [principals, setPrincipals] = useState<AccessKey[] | null>(null);
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    client.call('access.list', {}).then(
      (r) => setPrincipals(Array.isArray(r?.principals) ? r.principals : []),
      (e: Error) => {
        setPrincipals([]);
        setError(e.message);
      },
    );
  }, [client]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!to || !text.trim() || busy) return;
    setBusy(true);
    setError('');
    try {
      const ev = await publish(ext, { recipientId: to, parts: outgoingParts(text.trim(), []), idempotencyKey: newKey() });
      if (ev) onOpened(ev.channelId);
    } catch (err) {
      setError((err as Error)?.message || 'The message was not sent.');
      setBusy(false);
    }
  };
  return (
    <Dialog title="New direct chat" onClose={onClose}>
      {principals && principals.length === 0 ? (
        <p>
          A direct chat is with a principal: a key made in{' '}
          <a href="#/settings/access" onClick={onClose}>
            Settings → Access
          </a>
          . There is none yet.
        </p>
      ) : (
        <form className="chan-form" onSubmit={submit}>
          <label htmlFor="dm-to">With</label>
          <select id="dm-to" value={to} onChange={(e) => setTo(e.target.value)} required>
            <option value="">{principals ? 'Choose a principal…' : 'Loading…'}</option>
            {(principals ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.id})
              </option>
            ))}
          </select>
          <label htmlFor="dm-text">First message</label>
          <textarea id="dm-text" rows={3} value={text} onChange={(e) => setText(e.target.value)} required />
          {error && <ErrorBox message={error} context="agent" />}
          <div className="reply-actions">
            <span className="spacer" />
            <button type="button" className="btn" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || !to || !text.trim()}>
              {busy ? 'Sending…' : 'Send'}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
