import { expect, it } from 'vitest';
import { createWorkspace } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { instanceAdmin } from '../billing/billing-helpers.js';
import { paidPayment, refundPath } from './support.js';
const ctx = useTestApp();
it('a refund without a body refunds what is left', async () => {
  const t = ctx();
  const op = await instanceAdmin(t);
  const ws = await createWorkspace(t.api);
  const p = await paidPayment(t, ws);
  const res = await t.api.request('POST', refundPath(p.id), { token: op.token });

  expect(res.status, res.text).toBe(201);
  expect(res.body).toMatchObject({ amount: 29900, reason: null });
});
