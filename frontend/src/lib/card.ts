// Reading an agent card defensively: the document comes from a remote agent and may be any JSON at all,
// shaped for A2A v1.0, v0.3 or the v0.1 draft. Every accessor returns a safe default.

export type Obj = Record<string, unknown>;

export function asObj(v: unknown): Obj | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null;
}
export function asArr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}
export function asStr(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
export function asStrs(v: unknown): string[] {
  return asArr(v)
    .map(asStr)
    .filter((s) => s !== '');
}

export interface SkillView {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
  /** true when the modes are the card's defaults (the skill names none) */
  inputDefault: boolean;
  outputDefault: boolean;
}

export interface ExtensionView {
  uri: string;
  description: string;
  required: boolean;
  params: unknown;
}

export interface SecuritySchemeView {
  name: string;
  type: string;
  description: string;
  details: Obj;
}

export interface InterfaceView {
  url: string;
  binding: string;
  version: string;
}

export interface CardView {
  name: string;
  description: string;
  version: string;
  documentationUrl: string;
  providerOrganization: string;
  providerUrl: string;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: SkillView[];
  streaming: boolean | undefined;
  pushNotifications: boolean | undefined;
  stateTransitionHistory: boolean | undefined;
  extendedCard: boolean | undefined;
  extensions: ExtensionView[];
  securitySchemes: SecuritySchemeView[];
  security: string[][];
  interfaces: InterfaceView[];
  protocolVersion: string;
}

function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

const SCHEME_TYPES: Record<string, string> = {
  apiKeySecurityScheme: 'apiKey',
  httpAuthSecurityScheme: 'http',
  oauth2SecurityScheme: 'oauth2',
  openIdConnectSecurityScheme: 'openIdConnect',
  mtlsSecurityScheme: 'mutualTLS',
};

/** v0.3: {type: "apiKey", in, name}; v1.0: {apiKeySecurityScheme: {location, name}}. */
export function readScheme(name: string, v: unknown): SecuritySchemeView {
  const o = asObj(v) ?? {};
  if (typeof o.type === 'string') {
    const { type, description, ...rest } = o;
    return { name, type: asStr(type), description: asStr(description), details: rest };
  }
  const keys = Object.keys(o);
  const wrapped = keys.find((k) => k in SCHEME_TYPES) ?? (keys.length === 1 ? keys[0] : undefined);
  if (wrapped) {
    const inner = asObj(o[wrapped]) ?? {};
    const { description, ...rest } = inner;
    return { name, type: SCHEME_TYPES[wrapped] ?? wrapped, description: asStr(description), details: rest };
  }
  return { name, type: 'unknown', description: '', details: o };
}

export function readCard(card: unknown): CardView {
  const c = asObj(card) ?? {};
  const caps = asObj(c.capabilities) ?? {};
  const provider = asObj(c.provider) ?? {};
  const defaultInputModes = asStrs(c.defaultInputModes);
  const defaultOutputModes = asStrs(c.defaultOutputModes);
  const skills: SkillView[] = asArr(c.skills).map((s, i) => {
    const o = asObj(s) ?? {};
    const inModes = asStrs(o.inputModes);
    const outModes = asStrs(o.outputModes);
    return {
      id: asStr(o.id) || `#${i}`,
      name: asStr(o.name) || asStr(o.id) || `Skill ${i + 1}`,
      description: asStr(o.description),
      tags: asStrs(o.tags),
      examples: asStrs(o.examples),
      inputModes: inModes.length ? inModes : defaultInputModes,
      outputModes: outModes.length ? outModes : defaultOutputModes,
      inputDefault: inModes.length === 0,
      outputDefault: outModes.length === 0,
    };
  });
  const extensions: ExtensionView[] = asArr(caps.extensions).map((e) => {
    const o = asObj(e) ?? {};
    return { uri: asStr(o.uri), description: asStr(o.description), required: o.required === true, params: o.params };
  });
  const schemesObj = asObj(c.securitySchemes) ?? {};
  const securitySchemes = Object.entries(schemesObj).map(([k, v]) => readScheme(k, v));
  // v0.3: security: [{name: [scopes]}]; v1.0: securityRequirements: [{schemes: {name: {list: [...]}}}]
  const security: string[][] = [];
  for (const req of asArr(c.security)) {
    const o = asObj(req);
    if (o) security.push(Object.keys(o));
  }
  for (const req of asArr(c.securityRequirements)) {
    const o = asObj(asObj(req)?.schemes) ?? asObj(req);
    if (o) security.push(Object.keys(o));
  }
  const interfaces: InterfaceView[] = [];
  for (const i of asArr(c.supportedInterfaces)) {
    const o = asObj(i) ?? {};
    interfaces.push({ url: asStr(o.url), binding: asStr(o.protocolBinding) || asStr(o.transport), version: asStr(o.protocolVersion) });
  }
  if (asStr(c.url) && !interfaces.some((i) => i.url === asStr(c.url) && i.version === asStr(c.protocolVersion))) {
    interfaces.push({ url: asStr(c.url), binding: asStr(c.preferredTransport) || 'JSONRPC', version: asStr(c.protocolVersion) });
  }
  for (const i of asArr(c.additionalInterfaces)) {
    const o = asObj(i) ?? {};
    if (!interfaces.some((x) => x.url === asStr(o.url) && x.binding === asStr(o.transport)))
      interfaces.push({ url: asStr(o.url), binding: asStr(o.transport), version: asStr(c.protocolVersion) });
  }
  return {
    name: asStr(c.name),
    description: asStr(c.description),
    version: asStr(c.version),
    documentationUrl: asStr(c.documentationUrl),
    providerOrganization: asStr(provider.organization),
    providerUrl: asStr(provider.url),
    defaultInputModes,
    defaultOutputModes,
    skills,
    streaming: bool(caps.streaming),
    pushNotifications: bool(caps.pushNotifications),
    stateTransitionHistory: bool(caps.stateTransitionHistory),
    extendedCard: bool(caps.extendedAgentCard) ?? bool(c.supportsAuthenticatedExtendedCard) ?? bool(c.supportsExtendedAgentCard),
    extensions,
    securitySchemes,
    security,
    interfaces,
    protocolVersion: asStr(c.protocolVersion),
  };
}

/** The agent's JSON-RPC endpoint: from its card's interfaces (newest protocol first), else its URL. */
export function rpcEndpoint(agent: { url: string; card: unknown }): string {
  const card = readCard(agent.card);
  const rpc = card.interfaces.filter((i) => /^jsonrpc$/i.test(i.binding) && i.url);
  rpc.sort((a, b) => (b.version || '').localeCompare(a.version || ''));
  return rpc[0]?.url || agent.url;
}

// A loopback or private address: an agent on this computer or the local network, usually without TLS.
const LOCAL_HOST = /^(localhost|[^/]*\.localhost|127(\.\d+){3}|0\.0\.0\.0|\[::1\]|10(\.\d+){3}|192\.168(\.\d+){2}|172\.(1[6-9]|2\d|3[01])(\.\d+){2})(:\d+)?(\/|$)/i;

/**
 * An agent's URL as a person may type it, made whole: "localhost:9999" → "http://localhost:9999",
 * "agent.example.com" → "https://agent.example.com" (http for loopback and private addresses, https
 * elsewhere); a URL with a scheme is kept as typed.
 */
export function agentURL(typed: string): string {
  const t = typed.trim();
  if (!t || /^[a-z][a-z0-9+.-]*:\/\//i.test(t)) return t;
  return (LOCAL_HOST.test(t) ? 'http://' : 'https://') + t.replace(/^\/+/, '');
}
