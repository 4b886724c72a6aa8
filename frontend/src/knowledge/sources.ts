// Which knowledge graphs the Knowledge page can show: this hub's, and each added agent's whose card
// says it has one (capabilities.knowledgeGraph === true; contract §1).

import type { AgentInfo } from '../api/types';

export interface KgSource {
  /** undefined: this hub's graph. */
  agent?: string;
  name: string;
}

export function hasKnowledgeGraph(a: AgentInfo): boolean {
  const caps = (a.card as { capabilities?: { knowledgeGraph?: unknown } } | null)?.capabilities;
  return !!caps && caps.knowledgeGraph === true;
}

/** This hub first, then the added agents with a knowledge graph, by name. */
export function kgSources(agents: AgentInfo[]): KgSource[] {
  const others = agents
    .filter((a) => a.kind !== 'hub' && hasKnowledgeGraph(a))
    .map((a) => ({ agent: a.id, name: a.name || a.id }))
    .sort((x, y) => x.name.localeCompare(y.name));
  return [{ name: 'This hub' }, ...others];
}
