import type { ColumnType, Generated } from 'kysely';

/** Table types of the sandbox provider's card storage (migration 1061). Kept by hand beside the SQL they describe. */
type Timestamp = ColumnType<Date, Date, Date>;

export type SandboxCardBehaviour = 'success' | 'insufficient_funds' | 'card_closed' | 'wait_callback' | 'wait_callback_failed';

export interface SandboxCardsTable {
  ctoken: string;
  utoken: string;
  last4: string;
  brand: string;
  exp_month: number;
  exp_year: number;
  behaviour: SandboxCardBehaviour;
  created_at: Timestamp;
}

export interface SandboxChargesTable {
  merchant_oid: string;
  utoken: string;
  ctoken: string;
  amount: number;
  currency: string;
  status: 'success' | 'failed';
  answer: 'success' | 'wait_callback' | 'failed';
  failure_reason: string | null;
  try_again: boolean | null;
  test_mode: boolean;
  refunded_amount: Generated<number>;
  created_at: Timestamp;
}

export interface SandboxCardsTables {
  sandbox_cards: SandboxCardsTable;
  sandbox_charges: SandboxChargesTable;
}
