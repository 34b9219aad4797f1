/**
 * The service as `npm start` runs it (`src/server.ts`), plus the raw-SQL "minimal twins" of the hot endpoints under
 * /bench/min/ (`bench/minimal-routes.ts`), for the real/minimal throughput ratio of `npm run bench`. Only the
 * benchmarks start this file; the product never registers the twins.
 */
import { serve } from '../src/server.js';
import { registerMinimalRoutes } from './minimal-routes.js';

serve({ beforeListen: registerMinimalRoutes }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
