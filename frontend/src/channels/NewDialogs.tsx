// Creating a channel (name, public or private), and opening a direct chat with a principal (the
// spec's direct channels are made by their first message, so the dialog asks for it).

import { useEffect, useState, type FormEvent } from 'react';
import type { AccessKey } from '../api/types';
import { Dialog } from '../components/Dialog';
import { ErrorBox } from '../components/ErrorBox';
import { navigate } from '../lib/router';
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
            person or program with an access key to this hub can read it
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
          You are its owner. {joinable.length > 0 ? 'An agent in it answers when mentioned with @. ' : ''}Add more agents and people from its
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

/**
 * A direct message, to a person or an agent: an agent the hub can chat with gets a 1:1 chat (the
 * Agents section), someone with an access key a direct channel (the Direct section). Names only;
 * ids are in the options' tooltips.
 */
// An agent's option in the To list: a 1:1 chat with it, not a direct channel.
const AGENT_CHAT = 'chat:';

export function NewDirectDialog({ ext, onOpened, onClose }: { ext: Ext; onOpened: (channelId: string) => void; onClose: () => void }) {
  const { client, agents } = useHub();
  const [principals, setPrincipals] = useState<AccessKey[] | null>(null);
  const [to, setTo] = useState('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const chatAgents = agents.filter((a) => a.canChat !== false && a.kind !== 'hub');
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
      const agentId = to.startsWith(AGENT_CHAT) ? to.slice(AGENT_CHAT.length) : '';
      if (agentId) {
        const conv = await client.call('chats.start', { agentId });
        await client.call('chats.send', { id: conv.id, text: text.trim() });
        onClose();
        navigate({ area: 'chats', conversationId: conv.id });
        return;
      }
      const ev = await publish(ext, { recipientId: to, parts: outgoingParts(text.trim(), []), idempotencyKey: newKey() });
      if (ev) onOpened(ev.channelId);
    } catch (err) {
      setError((err as Error)?.message || 'The message was not sent.');
      setBusy(false);
    }
  };
  return (
    <Dialog title="New direct message" onClose={onClose}>
      <form className="chan-form" onSubmit={submit}>
        <label htmlFor="dm-to">To</label>
        <select id="dm-to" value={to} onChange={(e) => setTo(e.target.value)} required>
          <option value="">{principals ? 'Choose a person or an agent…' : 'Loading…'}</option>
          {chatAgents.length > 0 && (
            <optgroup label="Agents">
              {chatAgents.map((a) => (
                <option key={a.id} value={AGENT_CHAT + a.id} title={a.url}>
                  {a.name || a.id}
                </option>
              ))}
            </optgroup>
          )}
          {(principals ?? []).length > 0 && (
            <optgroup label="People and programs with an access key">
              {(principals ?? []).map((p) => (
                <option key={p.id} value={p.id} title={p.id}>
                  {p.name}
                </option>
              ))}
            </optgroup>
          )}
        </select>
        {principals && principals.length === 0 && (
          <p className="muted small">
            To message a person, give them an access key in{' '}
            <a href="#/settings/access" onClick={onClose}>
              Settings → Access
            </a>
            .
          </p>
        )}
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
    </Dialog>
  );
}
