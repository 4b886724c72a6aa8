// Placeholder until h-kgconsole's query console lands (contract §3): h-kgconsole replaces this file.

export function QueryConsole(_props: { agent?: string; onShowInGraph?: (nodeIds: string[]) => void }) {
  return <p className="muted kg-placeholder">The query console comes here.</p>;
}
