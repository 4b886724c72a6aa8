// Errors as a person reads them: one plain sentence, a suggested fix, and the raw message (a Go error
// chain, a JSON-RPC message) kept for the details. The hub's messages are matched on the words its
// Go code and the network stack use; anything unknown keeps a generic sentence.

export interface Explained {
  /** what happened, in one sentence */
  sentence: string;
  /** what to try, or "" */
  fix: string;
  /** the message as the hub gave it */
  details: string;
}

export type ErrorContext = 'add-agent' | 'agent' | 'send' | 'generic';

interface Rule {
  test: RegExp;
  sentence: (ctx: ErrorContext) => string;
  fix: (ctx: ErrorContext) => string;
}

const RULES: Rule[] = [
  {
    // First: the hub's own refusal quotes the signature problem, which may name a network error.
    test: /card is not trusted/i,
    sentence: () => 'The hub will not talk to this agent until you confirm its card: its signature is invalid or its signing key changed.',
    fix: () => 'Read the warning on the agent’s page; if you trust the card, confirm it there.',
  },
  {
    test: /not an http or https URL/i,
    sentence: () => 'That is not a web address.',
    fix: () => 'Write the agent’s address starting with http:// or https://, e.g. https://agent.example.com.',
  },
  {
    test: /redirects to (\S+), which was not followed/i,
    sentence: () => 'The agent card is on another host: the address redirects there.',
    fix: () => 'If you trust that host, add the address it redirects to instead (see the details).',
  },
  {
    test: /connection refused|actively refused/i,
    sentence: (ctx) => (ctx === 'add-agent' ? 'Nothing answers at that address.' : 'The agent is not answering: nothing listens at its address.'),
    fix: () => 'Check that the agent is running and that the host and port are right, then try again.',
  },
  {
    test: /no such host|server misbehaving|Temporary failure in name resolution|nodename nor servname/i,
    sentence: () => 'That host name could not be found.',
    fix: () => 'Check the spelling of the address, and that this computer is online.',
  },
  {
    test: /timeout|deadline exceeded|timed out/i,
    sentence: () => 'The agent did not answer in time.',
    fix: () => 'Try again in a moment; if it keeps happening, the agent may be down or overloaded.',
  },
  {
    test: /x509|certificate|tls:/i,
    sentence: () => 'The agent’s HTTPS certificate could not be verified.',
    fix: () => 'Check the address; a self-signed certificate is not trusted by this computer.',
  },
  {
    test: /network is unreachable|no route to host|connection reset|EOF/i,
    sentence: () => 'The connection to the agent broke off.',
    fix: () => 'Check the network and try again.',
  },
  {
    test: /HTTP 40[13]\b|unauthori[sz]ed|forbidden/i,
    sentence: () => 'The agent refused: it needs credentials, or refused the ones saved.',
    fix: () => 'Set the agent’s credentials on its page, then try again.',
  },
  {
    test: /no agent card found|HTTP 404/i,
    sentence: () => 'No agent card was found at that address.',
    fix: () =>
      'Give the agent’s base URL (where it serves /.well-known/agent-card.json) or the card’s own URL; the hub also looks for /agent-card.json there.',
  },
  {
    test: /not a JSON object|without a name is not an agent card|larger than \d+ bytes/i,
    sentence: () => 'What is at that address is not an agent card.',
    fix: () => 'Check that the URL points at the agent, or at its agent-card.json.',
  },
  {
    test: /HTTP 5\d\d/i,
    sentence: () => 'The agent had an internal error.',
    fix: () => 'Try again later; the agent’s operator may need to look at it.',
  },
];

/** explain turns a hub error message into a sentence, a fix and the details. */
export function explain(message: string, ctx: ErrorContext = 'generic'): Explained {
  const details = (message || '').trim();
  for (const r of RULES) {
    if (r.test.test(details)) return { sentence: r.sentence(ctx), fix: r.fix(ctx), details };
  }
  const sentence =
    ctx === 'add-agent'
      ? 'The agent could not be added.'
      : ctx === 'send'
        ? 'The message could not be delivered.'
        : ctx === 'agent'
          ? 'The agent could not be reached.'
          : 'Something went wrong.';
  return { sentence, fix: '', details };
}
