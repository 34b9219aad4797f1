import { Type } from 'typebox';
import { Timestamp, Uuid } from '../../../http/schemas.js';

/** The credit note of a refund (contract section 13); invoices share `Invoice` of `billing.schemas.ts`. */

export const CreditNote = Type.Object({
  id: Uuid,
  payment_id: Uuid,
  amount: Type.Integer({ description: 'Refunded, in minor units' }),
  currency: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  credit_note_number: Type.String({ description: 'CN-YYYY-NNNNNN, gapless within a year' }),
  created_at: Timestamp,
});
