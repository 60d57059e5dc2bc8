import { defineConfig } from 'vite';

// Built from renderer/ into renderer/dist; the server serves it at / with an SPA fallback.
export default defineConfig({
  root: import.meta.dirname,
  // Relative asset URLs: the server adds <base href="<base path>/"> to index.html (TONEARM_BASE_PATH).
  base: './',
  // JSX for preact through Vite's own transform; no framework plugin needed.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  server: {
    // `vite renderer` during development talks to a server started with `npm start`.
    proxy: {
      '/api': 'http://127.0.0.1:3001',
      '/ws': { target: 'ws://127.0.0.1:3001', ws: true },
    },
  },
});
