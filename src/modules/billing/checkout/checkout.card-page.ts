import { createHmac } from 'node:crypto';
import type { PaytrConfig } from '../../../config/config.js';
import { paymentPageScriptTags } from '../../../http/payment-page.js';
import { CARD_PAGE_PREFIX } from '../../../http/security-headers.js';
import type { BillingDeps } from '../billing.deps.js';
import { planOrThrow } from '../catalog/catalog.plans.js';
import { buildCardStorageForm, formatMajor, safeEqual } from '../provider/paytr/index.js';

/**
 * The card page of contract 19.1 (PAYMENT_PROVIDER=paytr): a checkout with save_card answers
 * `{PUBLIC_BASE_URL}/billing/card/<token>`, a page of the service's own whose form the customer's browser posts
 * straight to PayTR's Direct API (`{PAYTR_API_BASE}/odeme`, `store_card=1`). The card fields have PayTR's names and
 * no values: they never reach the service, its logs or its database. The notification of the payment (the existing
 * callback) then brings the `utoken`, and the card is listed as after any checkout with save_card.
 *
 * The token names the pending payment without a table: `<merchant_oid>.<base64url HMAC-SHA256(merchant_key,
 * "card-page:" + merchant_id + ":" + merchant_oid)>`. It cannot be guessed or altered without the merchant key, and it
 * stops working once the payment is no longer pending (paid, declined, or expired by reconciliation).
 */

export interface CardPageDeps extends Pick<BillingDeps, 'db' | 'repo' | 'publicBaseUrl'> {
  /** PayTR's credentials, API base (where the form posts) and test mode. */
  paytr: PaytrConfig;
}

export interface CardPageAnswer {
  status: 200 | 404;
  html: string;
}

const mac = (paytr: PaytrConfig, merchantOid: string): string =>
  createHmac('sha256', paytr.merchantKey).update(`card-page:${paytr.merchantId}:${merchantOid}`, 'utf8').digest('base64url');

/** The URL token of a payment's card page. */
export const cardPageToken = (paytr: PaytrConfig, merchantOid: string): string => `${merchantOid}.${mac(paytr, merchantOid)}`;

/** The merchant_oid a card page token names, or null when it is malformed or was not made with this merchant key. */
export function merchantOidOfCardPageToken(paytr: PaytrConfig, token: string): string | null {
  const match = /^([A-Za-z0-9]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, merchantOid, given] = match as unknown as [string, string, string];
  return safeEqual(mac(paytr, merchantOid), given) ? merchantOid : null;
}

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#222}
table{width:100%;border-collapse:collapse}td{padding:.2rem 0}td.r{text-align:right}
fieldset{border:1px solid #ccc;border-radius:.4rem;margin:1rem 0}label{display:block;margin:.4rem 0}
input{width:100%;padding:.4rem;box-sizing:border-box;border:1px solid #bbb;border-radius:.2rem}
.row{display:flex;gap:.5rem}.row label{flex:1}.note{font-size:.85rem;color:#555}
button{padding:.6rem 1.4rem;font-size:1rem;cursor:pointer;background:#16a34a;color:#fff;border:0;border-radius:.3rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** Unknown, tampered, used or expired: one answer for all (nothing tells them apart). */
export const cardPageNotFound = (): string =>
  page('Payment not found', '<h1>Payment not found</h1><p>This payment link is unknown, already used or expired. Start the checkout again.</p>');

interface CardPageView {
  action: string;
  fields: [string, string][];
  lines: { name: string; amount: number; quantity: number }[];
  amount: number;
  currency: string;
  merchantOid: string;
  testMode: boolean;
}

function cardPageHtml(v: CardPageView): string {
  const total = `${formatMajor(v.amount)} ${esc(v.currency)}`;
  const lines = v.lines
    .map((l) => `<tr><td>${esc(l.name)} &times; ${l.quantity}</td><td class="r">${formatMajor(l.amount)} ${esc(v.currency)}</td></tr>`)
    .join('');
  const hidden = v.fields.map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`).join('\n');
  // The card inputs carry PayTR's field names and never a value; autocomplete lets the browser fill a saved card.
  return page(
    'Payment',
    `<h1>Payment${v.testMode ? ' <small>(test mode)</small>' : ''}</h1>
<table><tr><td>Order</td><td class="r">${esc(v.merchantOid)}</td></tr>
${lines}
<tr><td><strong>Total</strong></td><td class="r"><strong id="amount">${total}</strong></td></tr></table>
<form method="post" action="${esc(v.action)}" id="card-form" autocomplete="on">
${hidden}
<fieldset><legend>Card</legend>
<label>Name on the card <input name="cc_owner" autocomplete="cc-name" maxlength="50" required></label>
<label>Card number <input name="card_number" autocomplete="cc-number" inputmode="numeric" maxlength="23" pattern="[0-9 ]{12,23}" required></label>
<div class="row"><label>Month (MM) <input name="expiry_month" autocomplete="cc-exp-month" inputmode="numeric" maxlength="2" pattern="[0-9]{1,2}" required></label>
<label>Year (YY) <input name="expiry_year" autocomplete="cc-exp-year" inputmode="numeric" maxlength="4" pattern="[0-9]{2,4}" required></label>
<label>CVV <input name="cvv" autocomplete="cc-csc" inputmode="numeric" maxlength="4" pattern="[0-9]{3,4}" required></label></div>
</fieldset>
<p class="note">The card is sent directly to PayTR, which processes the payment (3-D Secure) and stores the card for the
subscription's renewals. This service never sees the card number.</p>
<button type="submit">Pay ${total}</button>
</form>${paymentPageScriptTags()}`,
  );
}

export type CardPage = ReturnType<typeof createCardPage>;

export function createCardPage(deps: CardPageDeps) {
  const { db, repo, paytr } = deps;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return {
    /** Where a checkout with save_card sends the browser (its `iframe_url`), and the token in it. */
    session(merchantOid: string): { token: string; url: string } {
      const token = cardPageToken(paytr, merchantOid);
      return { token, url: `${base}${CARD_PAGE_PREFIX}${token}` };
    },

    /** `GET /billing/card/<token>` from the browser at `ip`: the page, or a 404 page. */
    async render(token: string, ip: string): Promise<CardPageAnswer> {
      const notFound: CardPageAnswer = { status: 404, html: cardPageNotFound() };
      const merchantOid = merchantOidOfCardPageToken(paytr, token);
      if (merchantOid === null) return notFound;
      const payment = await repo.findPaymentByOid(db, merchantOid);
      if (!payment || payment.status !== 'pending' || payment.kind !== 'checkout' || !payment.save_card || payment.amount <= 0) return notFound;
      const payer = payment.created_by ? await repo.payerOf(db, payment.created_by) : undefined;
      const plan = await planOrThrow(repo, payment.plan_slug, db);
      const lines = [{ name: `${plan.name} plan, 1 ${payment.billing_interval}`, amount: payment.amount, quantity: 1 }];
      const fields = buildCardStorageForm(paytr, {
        merchantOid: payment.merchant_oid,
        amount: payment.amount,
        currency: payment.currency,
        email: payer?.email ?? 'billing@example.invalid',
        // The browser that posts the form: PayTR compares user_ip with the address the payment comes from.
        userIp: ip,
        userName: payer?.display_name ?? 'Customer',
        userAddress: 'Not provided',
        userPhone: '0000000000',
        basket: lines,
        okUrl: `${base}/billing/return/ok`,
        failUrl: `${base}/billing/return/fail`,
        utoken: (await repo.findUtoken(db, payment.workspace_id)) ?? null,
      });
      return {
        status: 200,
        html: cardPageHtml({
          action: `${paytr.apiBase.replace(/\/+$/, '')}/odeme`,
          fields,
          lines,
          amount: payment.amount,
          currency: payment.currency,
          merchantOid: payment.merchant_oid,
          testMode: paytr.testMode,
        }),
      };
    },
  };
}
