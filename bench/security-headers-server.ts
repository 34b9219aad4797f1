/**
 * The bare app of bench/security-headers.ts, in a process of its own so that its CPU is measured alone: a tracker-sized
 * JSON route under /api/, with the security headers off (`off`), on with the default configuration (`on`), or on with
 * CORS_ORIGINS set (`cors`). `GET /__cpu` answers the process's CPU time (µs). Prints its port.
 */
import Fastify from 'fastify';
import { loadConfig } from '../src/config/config.js';
import { registerSecurityHeaders } from '../src/http/security-headers.js';
import { TRACKER } from './security-headers.js';

const mode = process.argv[2] ?? 'off';
const app = Fastify({ logger: false });
if (mode !== 'off') await registerSecurityHeaders(app, loadConfig(mode === 'cors' ? { CORS_ORIGINS: 'https://portal.example.com' } : {}));
app.get('/api/workspaces/:slug/issues/:id/sla/', async () => TRACKER);
app.get('/__cpu', async () => {
  const u = process.cpuUsage();
  return { us: u.user + u.system };
});
await app.listen({ port: 0, host: '127.0.0.1' });
console.log((app.server.address() as { port: number }).port);
