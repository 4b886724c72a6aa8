// Placeholder until h-kgconsole's import/export lands (contract §3): h-kgconsole replaces this file.

export function ImportExport(_props: { agent?: string }) {
  return <p className="muted kg-placeholder">Import and export come here.</p>;
}
