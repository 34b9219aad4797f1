import type { Db } from '../../../db/database.js';
import { sandboxOrdersRepository, type SandboxOrderRow } from './provider.repository.js';
import type { SandboxOrder, SandboxStore } from './paytr/sandbox.js';

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

/** The sandbox's orders in the database: open payment pages survive a restart, refunds are checked atomically. */
export function databaseSandboxStore(db: Db): SandboxStore {
  const repo = sandboxOrdersRepository();
  return {
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
