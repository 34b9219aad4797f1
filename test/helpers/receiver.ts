import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (to test timeouts). */
  delayMs?: number;
}

/** A real HTTP receiver on 127.0.0.1: records every request and answers from a script (default 200). */
export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; after them, `fallback`. */
  script(...replies: Reply[]): void;
  fallback: Reply;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  const queue: Reply[] = [];
  const waiters: (() => void)[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    script: (...replies) => void queue.push(...replies),
    fallback: { status: 200 },
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const reply = queue.shift() ?? receiver.fallback;
      const answer = () => {
        received.push({ headers: req.headers, body, json });
        waiters.splice(0).forEach((w) => w());
        res.writeHead(reply.status, reply.headers).end('ok');
      };
      if (reply.delayMs) setTimeout(answer, reply.delayMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  receiver.url = `http://127.0.0.1:${port}${path}`;
  return receiver;
}
