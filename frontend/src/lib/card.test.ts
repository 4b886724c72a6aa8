import { describe, expect, it } from 'vitest';
import { agentURL, readCard, rpcEndpoint } from './card';

const v1 = {
  name: 'AgentHub',
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain', 'application/json'],
  skills: [
    { id: 'inbox', name: 'Inbox', examples: ['Approve?'], tags: ['human'] },
    { id: 'img', name: 'Images', inputModes: ['image/png'], outputModes: ['image/png'] },
  ],
  capabilities: { streaming: true, pushNotifications: false, extensions: [{ uri: 'https://ext.example/kg', required: true, params: { q: ['gizmo'] } }] },
  securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key' } } },
  securityRequirements: [{ schemes: { key: { list: [] } } }],
  supportedInterfaces: [
    { url: 'http://h/a2a', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: 'http://h/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ],
};

describe('readCard', () => {
  it('reads a v1.0 card: skills with default modes, capabilities, extensions, wrapped schemes', () => {
    const c = readCard(v1);
    expect(c.skills[0]).toMatchObject({ id: 'inbox', examples: ['Approve?'], inputModes: ['text/plain'], inputDefault: true, outputDefault: true });
    expect(c.skills[1]).toMatchObject({ inputModes: ['image/png'], inputDefault: false });
    expect(c.streaming).toBe(true);
    expect(c.pushNotifications).toBe(false);
    expect(c.extensions).toEqual([{ uri: 'https://ext.example/kg', description: '', required: true, params: { q: ['gizmo'] } }]);
    expect(c.securitySchemes).toEqual([{ name: 'key', type: 'apiKey', description: '', details: { location: 'header', name: 'X-Api-Key' } }]);
    expect(c.security).toEqual([['key']]);
    expect(c.interfaces).toHaveLength(2);
  });

  it('reads a v0.3 card: url, protocolVersion, typed schemes, additional interfaces', () => {
    const c = readCard({
      url: 'https://w/a2a',
      protocolVersion: '0.3',
      preferredTransport: 'JSONRPC',
      additionalInterfaces: [{ url: 'https://w/grpc', transport: 'GRPC' }],
      securitySchemes: { oauth: { type: 'oauth2', description: 'cc', flows: {} } },
      security: [{ oauth: ['read'] }],
    });
    expect(c.interfaces).toEqual([
      { url: 'https://w/a2a', binding: 'JSONRPC', version: '0.3' },
      { url: 'https://w/grpc', binding: 'GRPC', version: '0.3' },
    ]);
    expect(c.securitySchemes[0]).toEqual({ name: 'oauth', type: 'oauth2', description: 'cc', details: { flows: {} } });
    expect(c.security).toEqual([['oauth']]);
    expect(c.streaming).toBeUndefined();
  });

  it('never throws on garbage', () => {
    for (const junk of [null, 42, 'card', [], { skills: 'x', capabilities: [], securitySchemes: 7, supportedInterfaces: {} }, { skills: [null, 3, { tags: [1, null] }] }]) {
      const c = readCard(junk);
      expect(Array.isArray(c.skills)).toBe(true);
    }
    expect(readCard({ skills: [null, { tags: [1, null, 'ok'] }] }).skills[1].tags).toEqual(['1', 'ok']);
  });
});

describe('rpcEndpoint', () => {
  it('prefers the newest JSON-RPC interface, else the agent URL', () => {
    expect(rpcEndpoint({ url: 'http://h', card: v1 })).toBe('http://h/a2a/v1');
    expect(rpcEndpoint({ url: 'http://h', card: {} })).toBe('http://h');
  });
});

describe('agentURL', () => {
  it('adds http:// for this computer and the local network, https:// elsewhere, and keeps a whole URL', () => {
    expect(agentURL('localhost:9999')).toBe('http://localhost:9999');
    expect(agentURL(' 127.0.0.1:8080/a2a ')).toBe('http://127.0.0.1:8080/a2a');
    expect(agentURL('[::1]:7')).toBe('http://[::1]:7');
    expect(agentURL('192.168.1.20:41241')).toBe('http://192.168.1.20:41241');
    expect(agentURL('demo.localhost')).toBe('http://demo.localhost');
    expect(agentURL('agent.example.com')).toBe('https://agent.example.com');
    expect(agentURL('localhost.example.com')).toBe('https://localhost.example.com');
    expect(agentURL('http://agent.example.com')).toBe('http://agent.example.com');
    expect(agentURL('HTTPS://x.test')).toBe('HTTPS://x.test');
    expect(agentURL('')).toBe('');
  });
});
