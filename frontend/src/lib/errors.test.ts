import { describe, expect, it } from 'vitest';
import { explain } from './errors';

describe('explain', () => {
  it('turns a Go error chain into a sentence and a fix, keeping the chain as details', () => {
    const raw =
      'no agent card found at http://127.0.0.1:9/: http://127.0.0.1:9/.well-known/agent-card.json: Get "http://127.0.0.1:9/.well-known/agent-card.json": dial tcp 127.0.0.1:9: connect: connection refused; …';
    const e = explain(raw, 'add-agent');
    expect(e.sentence).toBe('Nothing answers at that address.');
    expect(e.fix).toMatch(/running/);
    expect(e.details).toBe(raw);
  });

  it('says where to look when no card is found (HTTP 404 everywhere)', () => {
    const e = explain('no agent card found at http://h/: http://h/.well-known/agent-card.json: HTTP 404; http://h/.well-known/agent.json: HTTP 404', 'add-agent');
    expect(e.sentence).toBe('No agent card was found at that address.');
    expect(e.fix).toContain('/agent-card.json');
  });

  it.each([
    ['not an http or https URL: "ftp://x"', 'That is not a web address.'],
    ['dial tcp: lookup nope.invalid: no such host', 'That host name could not be found.'],
    ['context deadline exceeded', 'The agent did not answer in time.'],
    ['HTTP 401', 'The agent refused: it needs credentials, or refused the ones saved.'],
    ['x509: certificate signed by unknown authority', 'The agent’s HTTPS certificate could not be verified.'],
  ])('%s', (raw, sentence) => {
    expect(explain(raw).sentence).toBe(sentence);
  });

  it('says the hub holds back an agent whose card is not trusted, even when the reason names a network error', () => {
    const raw =
      "the agent's card is not trusted: W's card signature is invalid (signature 1: its keys could not be read: dial tcp: connection refused); the hub will not talk to it until you confirm the card in the agent's settings";
    const e = explain(raw, 'agent');
    expect(e.sentence).toMatch(/until you confirm its card/);
    expect(e.fix).toMatch(/warning on the agent’s page/);
    expect(e.details).toBe(raw);
  });

  it('keeps a generic sentence for what it does not know', () => {
    expect(explain('something odd', 'send')).toEqual({ sentence: 'The message could not be delivered.', fix: '', details: 'something odd' });
  });
});
