import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '../api/types';
import { kgSources } from './sources';

const agent = (id: string, name: string, kind: string, card: unknown): AgentInfo =>
  ({ id, name, kind, card, description: '', url: '', cardUrl: '', online: true, protocolVersions: null, problems: null }) as AgentInfo;

describe('knowledge graph sources', () => {
  it('lists this hub, then the added agents whose card says knowledgeGraph, by name', () => {
    const got = kgSources([
      agent('hub', 'AgentHub', 'hub', { capabilities: { knowledgeGraph: true } }),
      agent('z', 'Zed', 'remote', { capabilities: { knowledgeGraph: true } }),
      agent('n', 'No KG', 'remote', { capabilities: { streaming: true } }),
      agent('s', 'Says "yes"', 'remote', { capabilities: { knowledgeGraph: 'yes' } }),
      agent('b', 'Bee', 'remote', { capabilities: { knowledgeGraph: true } }),
      agent('x', 'Broken', 'remote', null),
    ]);
    expect(got).toEqual([{ name: 'This hub' }, { agent: 'b', name: 'Bee' }, { agent: 'z', name: 'Zed' }]);
  });
});
