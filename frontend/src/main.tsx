import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { bootstrap } from './api/bootstrap';
import { applyTheme, storedTheme } from './lib/theme';
import './styles.css';

applyTheme(storedTheme());

const root = createRoot(document.getElementById('root')!);
bootstrap().then(
  (boot) =>
    root.render(
      <StrictMode>
        <App boot={boot} />
      </StrictMode>,
    ),
  (e) => {
    console.error('AgentHub could not start', e);
  },
);
