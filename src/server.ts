import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from './config/config.js';
import { type DatabaseHandle, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';

export interface ServeOptions {
  /** Registers extra routes on the app before it listens (the benchmarks' minimal twins, `bench/server.ts`). */
  beforeListen?: (app: FastifyInstance, database: DatabaseHandle) => Promise<void>;
}

/** config -> database -> migrate -> buildApp -> listen, with the periodic jobs and a graceful shutdown. */
export async function serve(options: ServeOptions = {}): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }

  // The database opens and migrates (PGlite: compiling its WebAssembly, reading the cluster) while the app's modules
  // load: the two take about a second each, and start-up to /readyz has 3 s (contract 21). The app is therefore
  // imported here rather than at the top of the file.
  const opening = openDatabase(config).then(async (handle) => {
    await migrateToLatest(handle.db);
    return handle;
  });
  opening.catch(() => undefined); // awaited below; this only keeps a failure from counting as unhandled meanwhile
  const [{ buildApp }, { startJobs }] = await Promise.all([import('./app.js'), import('./job-runner.js')]);
  const database = await opening;
  const app = await buildApp({ config, database });
  await options.beforeListen?.(app, database);

  const jobs = startJobs(app.jobs, config.jobIntervalMs, app.metrics, app.log, database.availability);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await jobs.stop();
    // Requests under way finish; keep-alive connections that turn idle after close() began are closed as they do,
    // instead of waiting for their keep-alive timeout (72 s) behind a load balancer that reuses connections.
    const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
    await app.close();
    clearInterval(sweep);
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info({ database: database.kind, provider: config.paymentProvider, docs: `${config.publicBaseUrl}/docs` }, 'work-item service ready');
}
