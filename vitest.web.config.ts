import { defineConfig } from 'vitest/config';

// The browser suite (test/web/): Chromium driven by playwright-core against the built console. Run it once, not per
// database: `npm run test:web`. It skips when /usr/bin/chromium is missing.
export default defineConfig({
  test: {
    include: ['test/web/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // Two files at once (each drives its own Chromium against its own service), modules kept between files: measured on
    // the 2-core machine, 2026-11-28, 711 s with one worker, 403 s with two (CI runs it on PostgreSQL).
    maxWorkers: 2,
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
