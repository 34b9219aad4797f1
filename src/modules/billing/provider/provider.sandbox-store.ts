import type { Db } from '../../../db/database.js';
import { type SandboxCardRow, sandboxCardsRepository, type SandboxChargeRow, sandboxOrdersRepository, type SandboxOrderRow } from './provider.repository.js';
import type { SandboxCard, SandboxCharge, SandboxOrder, SandboxStore } from './paytr/sandbox.js';

type Details = Omit<SandboxOrder, 'token' | 'merchantOid' | 'amount' | 'state' | 'refundedAmount' | 'expiresAt'>;

const toOrder = (r: SandboxOrderRow): SandboxOrder => ({
  ...(r.details as unknown as Details),
  token: r.token,
  merchantOid: r.merchant_oid,
  amount: r.amount,
  state: r.state,
  refundedAmount: r.refunded_amount,
  expiresAt: r.expires_at.getTime(),
});

const toCard = (r: SandboxCardRow): SandboxCard => ({
  utoken: r.utoken,
  ctoken: r.ctoken,
  last4: r.last4,
  brand: r.brand,
  expMonth: r.exp_month,
  expYear: r.exp_year,
  behaviour: r.behaviour,
  createdAt: r.created_at.getTime(),
});

const toCharge = (r: SandboxChargeRow): SandboxCharge => ({
  merchantOid: r.merchant_oid,
  utoken: r.utoken,
  ctoken: r.ctoken,
  amount: r.amount,
  currency: r.currency,
  status: r.status,
  answer: r.answer,
  failureReason: r.failure_reason,
  tryAgain: r.try_again,
  testMode: r.test_mode,
  refundedAmount: r.refunded_amount,
  createdAt: r.created_at.getTime(),
});

/** The sandbox's orders in the database: open payment pages survive a restart, refunds are checked atomically. */
export function databaseSandboxStore(db: Db): SandboxStore {
  const repo = sandboxOrdersRepository();
  const cards = sandboxCardsRepository();
  return {
    async insertCard(c) {
      await cards.insertCard(db, {
        ctoken: c.ctoken,
        utoken: c.utoken,
        last4: c.last4,
        brand: c.brand,
        exp_month: c.expMonth,
        exp_year: c.expYear,
        behaviour: c.behaviour,
        created_at: new Date(c.createdAt),
      });
    },
    cards: async (utoken) => (await cards.cards(db, utoken)).map(toCard),
    card: async (utoken, ctoken) => {
      const r = await cards.card(db, utoken, ctoken);
      return r ? toCard(r) : undefined;
    },
    cardForCharge: async (utoken, ctoken, merchantOid) => {
      const r = await cards.cardForCharge(db, utoken, ctoken, merchantOid);
      return { card: r.card ? toCard(r.card) : undefined, orderPaid: r.orderPaid };
    },
    deleteCard: (utoken, ctoken) => cards.deleteCard(db, utoken, ctoken),
    insertCharge: (c) =>
      cards.insertCharge(db, {
        merchant_oid: c.merchantOid,
        utoken: c.utoken,
        ctoken: c.ctoken,
        amount: c.amount,
        currency: c.currency,
        status: c.status,
        answer: c.answer,
        failure_reason: c.failureReason,
        try_again: c.tryAgain,
        test_mode: c.testMode,
        refunded_amount: c.refundedAmount,
        created_at: new Date(c.createdAt),
      }),
    chargeByOid: async (oid) => {
      const r = await cards.chargeByOid(db, oid);
      return r ? toCharge(r) : undefined;
    },
    addChargeRefund: (oid, amount) => cards.addChargeRefund(db, oid, amount),
    async insert(order) {
      const { token, merchantOid, amount, expiresAt, state: _s, refundedAmount: _r, ...details } = order;
      await repo.insert(db, { token, merchant_oid: merchantOid, amount, expires_at: new Date(expiresAt), details: JSON.stringify(details) });
    },
    byToken: async (token) => {
      const r = await repo.byToken(db, token);
      return r ? toOrder(r) : undefined;
    },
    paidByOid: async (oid) => {
      const r = await repo.paidByOid(db, oid);
      return r ? toOrder(r) : undefined;
    },
    complete: (token, state) => repo.complete(db, token, state),
    addRefund: (oid, amount) => repo.addRefund(db, oid, amount),
    sweep: (now) => repo.sweep(db, new Date(now)),
  };
}
