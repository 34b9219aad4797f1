import { defineConfig } from 'vitest/config';

// The browser suite (test/web/): Chromium driven by playwright-core against the built console. Run it once, not per
// database: `npm run test:web`. It skips when /usr/bin/chromium is missing.
export default defineConfig({
  test: {
    include: ['test/web/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
