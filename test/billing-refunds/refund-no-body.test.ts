import { expect, it } from 'vitest';
import { expectSuccess } from '../helpers/client.js';
import { createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { instanceAdmin } from '../billing/billing-helpers.js';
import { as, byPaymentId, paidPayment, type RefundBody, refundRoute } from '../billing/billing-client.js';
const ctx = useTestApp();
it('a refund without a body refunds what is left', async () => {
  const t = ctx();
  const op = await instanceAdmin(t);
  const ws = await createWorkspace(t.api);
  const p = await paidPayment(t, ws);
  // No body at all (the types ask for one, even `{}`): openapi-fetch then sends neither a body nor a content-type.
  const noBody = byPaymentId(p.id) as ReturnType<typeof byPaymentId> & { body: RefundBody };
  const res = await as(t, op.token).POST(refundRoute, noBody);

  expect(expectSuccess(res, 201)).toMatchObject({ amount: 29900, reason: null });
});
