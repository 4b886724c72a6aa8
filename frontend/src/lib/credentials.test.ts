import { describe, expect, it } from 'vitest';
import type { AgentAuth, AuthScheme } from '../api/types';
import { alternativesText, credentialParams, fieldsFor, schemesToShow, storeText, whereSent } from './credentials';

const scheme = (name: string, kind: string, extra: Partial<AuthScheme> = {}): AuthScheme => ({ name, kind, saved: false, ...extra });
const auth = (schemes: AuthScheme[], alternatives: string[][]): AgentAuth => ({ schemes, alternatives, required: true, satisfied: false, store: 'keyring' });

describe('credentials', () => {
  it('shows only the schemes the card asks for, all when it names none', () => {
    const all = [scheme('key', 'apiKey'), scheme('jwt', 'bearer'), scheme('oauth', 'oauth2'), scheme('mtls', 'unsupported')];
    expect(schemesToShow(auth(all, [['oauth'], ['key', 'jwt']])).map((s) => s.name)).toEqual(['key', 'jwt', 'oauth']);
    expect(schemesToShow(auth(all, [])).map((s) => s.name)).toEqual(['key', 'jwt', 'oauth', 'mtls']);
    expect(schemesToShow({ ...auth(all, []), alternatives: null }).map((s) => s.name)).toHaveLength(4);
    expect(schemesToShow(undefined)).toEqual([]);
    expect(schemesToShow({ ...auth([], []), schemes: null })).toEqual([]);
  });

  it('describes the alternatives, the store and where a key is sent', () => {
    expect(alternativesText(auth([], [['oauth'], ['key', 'jwt']]))).toBe('oauth or key + jwt');
    expect(alternativesText(auth([], []))).toBe('');
    expect(storeText('keyring')).toBe('the system keyring');
    expect(storeText('file /home/me/.config/agenthub/credentials.json')).toBe('the file /home/me/.config/agenthub/credentials.json (readable only by you)');
    expect(storeText('')).toBe('the hub’s credential store');
    expect(whereSent({ in: 'header', paramName: 'X-Api-Key' })).toBe('the X-Api-Key header');
    expect(whereSent({ in: 'query', paramName: 'key' })).toBe('the query parameter key');
    expect(whereSent({ in: 'cookie', paramName: 'sid' })).toBe('the cookie sid');
  });

  it('asks for the fields each kind needs', () => {
    expect(fieldsFor('apiKey').map((f) => f.label)).toEqual(['API key']);
    expect(fieldsFor('bearer').map((f) => f.label)).toEqual(['Bearer token']);
    expect(fieldsFor('oauth2').map((f) => f.label)).toEqual(['Client ID', 'Client secret']);
    expect(fieldsFor('unsupported')).toEqual([]);
  });

  it('builds setCredential params only when complete', () => {
    expect(credentialParams('a', scheme('key', 'apiKey'), { apiKey: ' s3cret ' })).toEqual({ id: 'a', scheme: 'key', apiKey: 's3cret' });
    expect(credentialParams('a', scheme('key', 'apiKey'), { apiKey: '  ' })).toBeNull();
    expect(credentialParams('a', scheme('jwt', 'bearer'), { token: 't' })).toEqual({ id: 'a', scheme: 'jwt', token: 't' });
    expect(credentialParams('a', scheme('o', 'oauth2'), { clientId: 'id' })).toBeNull();
    expect(credentialParams('a', scheme('o', 'oauth2'), { clientId: 'id', clientSecret: 'sec' })).toEqual({ id: 'a', scheme: 'o', clientId: 'id', clientSecret: 'sec' });
    expect(credentialParams('a', scheme('m', 'unsupported'), { apiKey: 'x' })).toBeNull();
  });
});
