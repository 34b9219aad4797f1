import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is served by the service at /app/ (src/http/console.ts); `npm run build:web` writes web/dist.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: true },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
