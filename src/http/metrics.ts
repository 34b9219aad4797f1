import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Labels, Metrics } from '../kernel/metrics.js';

export interface PoolStats {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

export interface PromMetrics extends Metrics {
  registry: Registry;
}

/** A prom-client registry of its own per app (tests build many apps in one process). */
export function createMetrics(): PromMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const known = new Map<string, Counter | Gauge | Histogram>();
  const once = <T extends Counter | Gauge | Histogram>(name: string, make: () => T): T => {
    const existing = known.get(name);
    if (existing) return existing as T;
    const metric = make();
    known.set(name, metric);
    return metric;
  };
  return {
    registry,
    counter: (name, help, labelNames = []) => {
      const c = once(name, () => new Counter({ name, help, labelNames, registers: [registry] }));
      return { inc: (labels, value) => (labels ? c.inc(labels, value) : c.inc(value)) };
    },
    gauge: (name, help, labelNames = []) => {
      const g = once(name, () => new Gauge({ name, help, labelNames, registers: [registry] }));
      return {
        set: (labels: Labels | number, value?: number) => (typeof labels === 'number' ? g.set(labels) : g.set(labels, value ?? 0)),
      };
    },
    histogram: (name, help, labelNames = [], buckets) => {
      const h = once(name, () => new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }));
      return { observe: (labels, value) => h.observe(labels, value) };
    },
    collect: (name, help, read) => {
      once(
        name,
        () =>
          new Gauge({
            name,
            help,
            registers: [registry],
            async collect() {
              try {
                this.set(await read());
              } catch {
                // A scrape must not fail because one reading did; the gauge keeps its last value.
              }
            },
          }),
      );
    },
  };
}

/**
 * `GET /metrics` (Prometheus text) and the HTTP metrics: requests by route pattern (never the raw URL, which holds
 * slugs and ids), method and status, with a latency histogram; the database pool in use. Public, no tenant data.
 */
export function registerMetrics(app: FastifyInstance, metrics: PromMetrics, pool: PoolStats | undefined): void {
  const requests = metrics.counter('http_requests_total', 'HTTP requests by route pattern, method and status', ['route', 'method', 'status']);
  const duration = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request latency by route pattern, method and status',
    ['route', 'method', 'status'],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  if (pool) {
    metrics.collect('db_pool_connections_total', 'Database connections open in the pool', () => pool.totalCount);
    metrics.collect('db_pool_connections_idle', 'Database connections idle in the pool', () => pool.idleCount);
    metrics.collect('db_pool_requests_waiting', 'Queries waiting for a database connection', () => pool.waitingCount);
  }
  app.addHook('onResponse', async (request, reply) => {
    // Unmatched requests (404s, bad URLs) share one label, so a scanner cannot grow the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics') return;
    const labels = { route, method: request.method, status: reply.statusCode };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });
}
