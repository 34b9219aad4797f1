import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** Where the payment pages' scripts are served from (the service's own origin, never a CDN). */
export const PAYMENT_ASSETS_PATH = '/payment-page/assets';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'payment-page');

/**
 * The scripts of the payment pages (PCI DSS v4.0 6.4.3): each authorised here, served by the service with a
 * Subresource Integrity hash, and listed with that hash in docs/payment-page.md (which `check-payment-page`
 * compares the live page against).
 */
export const PAYMENT_PAGE_SCRIPTS = [
  { file: 'submit-once.js', purpose: 'Disables the Pay and Decline buttons once one is pressed (no double submission)' },
] as const;

export interface PaymentScript {
  /** The path the page loads it from. */
  src: string;
  purpose: string;
  /** `sha384-<base64>`: the SRI hash, also the CSP hash source. */
  integrity: string;
  body: Buffer;
}

export const sriHash = (body: Buffer | string): string => `sha384-${createHash('sha384').update(body).digest('base64')}`;

let loaded: PaymentScript[] | undefined;

/** The scripts as served (read once). */
export function paymentPageScripts(): PaymentScript[] {
  loaded ??= PAYMENT_PAGE_SCRIPTS.map(({ file, purpose }) => {
    const body = readFileSync(join(DIR, file));
    return { src: `${PAYMENT_ASSETS_PATH}/${file}`, purpose, integrity: sriHash(body), body };
  });
  return loaded;
}

/** The hashes the payment page's CSP allows: exactly its scripts'. */
export const paymentPageScriptHashes = (): string[] => paymentPageScripts().map((s) => s.integrity);

/** The `<script>` tags a payment page includes (each with its integrity hash). */
export function paymentPageScriptTags(): string {
  return paymentPageScripts()
    .map((s) => `<script src="${s.src}" integrity="${s.integrity}" crossorigin="anonymous" defer></script>`)
    .join('');
}

/** `GET /payment-page/assets/<file>`: the payment pages' scripts, from memory. */
export function registerPaymentPageAssets(app: FastifyInstance): void {
  app.get<{ Params: { file: string } }>('/payment-page/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const script = paymentPageScripts().find((s) => s.src === `${PAYMENT_ASSETS_PATH}/${request.params.file}`);
    if (!script) return reply.status(404).type('text/plain; charset=utf-8').send('not found');
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(script.body);
  });
}
