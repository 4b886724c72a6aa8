import { SHORTCUTS } from '../lib/shortcuts';
import { Dialog } from './Dialog';

export function ShortcutHelp({ onClose }: { onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={onClose}>
      <table className="shortcut-table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.label}>
              <td>
                {s.keys.map((k, i) => (
                  <span key={i}>
                    {i > 0 && (s.keys[0] === 'g' ? ' then ' : s.keys[0] === 'j' ? ' / ' : ' + ')}
                    <kbd>{k}</kbd>
                  </span>
                ))}
              </td>
              <td>{s.label}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Dialog>
  );
}
