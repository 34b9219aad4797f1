import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The browser suite runs once, on its own: `npm run test:web` (vitest.web.config.ts).
    exclude: ['test/web/**', '**/node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // A worker keeps its modules from one test file to the next instead of importing the service anew for each (about
    // 2.6 s a file). Each file still builds its own app, database and clock; no test relies on a fresh module state.
    // Measured on the 2-core machine, 2026-11-28: PGlite 596 s -> 459 s (imports 353 s -> 28 s of CPU), PostgreSQL
    // 270 s -> 144 s.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
