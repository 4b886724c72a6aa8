import { defineConfig } from 'vitest/config';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';

// The production page carries a strict Content-Security-Policy: no inline scripts, no remote code,
// websockets only (to the hub's /ui/ws). Not applied in `npm run dev` (the dev server injects inline
// scripts for hot reload).
const csp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-src 'none'",
].join('; ');

function contentSecurityPolicy(): Plugin {
  return {
    name: 'agenthub-csp',
    apply: 'build',
    transformIndexHtml(html) {
      return html.replace('<meta charset="UTF-8" />', `<meta charset="UTF-8" />\n    <meta http-equiv="Content-Security-Policy" content="${csp}" />`);
    },
  };
}

// `VITE_HUB_PROXY=http://127.0.0.1:PORT npm run dev` forwards /ui/ws to a running hub, presenting the
// hub's own origin (its gateway refuses foreign Origins), so the dev page behaves like the served one.
const hubProxy = process.env.VITE_HUB_PROXY;

export default defineConfig({
  // Relative asset URLs: the same build is served by the hub at / and by the Wails asset server.
  base: './',
  plugins: [react(), contentSecurityPolicy()],
  server: hubProxy
    ? {
        proxy: {
          '/ui/ws': {
            target: hubProxy,
            ws: true,
            changeOrigin: true,
            configure: (proxy) => {
              proxy.on('proxyReqWs', (req) => req.setHeader('origin', new URL(hubProxy).origin));
              proxy.on('proxyReq', (req) => req.setHeader('origin', new URL(hubProxy).origin));
            },
          },
        },
      }
    : undefined,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx,mjs}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // graphql-language-service (loaded by Node as CommonJS in tests) and the console must share one
    // graphql module: graphql-js refuses types made by its other (ESM) copy.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
});
