import { defineConfig } from 'vitest/config';

// The browser suite (test/web/): Chromium driven by playwright-core against the built console. Run it once, not per
// database: `npm run test:web`. It skips when /usr/bin/chromium is missing.
export default defineConfig({
  test: {
    include: ['test/web/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // One file at a time. Tried 2026-11-28: two at once on PostgreSQL took 320-400 s instead of 711 s, but the two
    // Chromiums and services on two cores made pages miss their waits (11 failures in one run of three).
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
