import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PaytrConfig } from '../../src/config/config.js';

export const CREDS = { merchantId: '123456', merchantKey: 'test-key-Kx9', merchantSalt: 'test-salt-Zq4' } as const;

export function paytrConfig(overrides: Partial<PaytrConfig> = {}): PaytrConfig {
  return {
    ...CREDS,
    apiBase: 'http://127.0.0.1:1',
    iframeBase: 'https://pay.example.test',
    testMode: true,
    timeoutMs: 2_000,
    ...overrides,
  };
}

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeServer {
  url: string;
  requests: Recorded[];
  server: Server;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1:<random port> that records every request and answers with `respond`. */
export async function startServer(respond: (req: Recorded, res: ServerResponse, index: number) => void | Promise<void>): Promise<FakeServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(rec);
      void respond(rec, res, requests.length - 1);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    server,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => undefined);
    },
  };
}

/** Waits until `predicate` holds (polling), or fails after `ms`. */
export async function eventually(predicate: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
