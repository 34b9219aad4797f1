import type { Actor } from '../../../kernel/actor.js';
import { AppError, type FieldError } from '../../../kernel/errors.js';
import type { BillingDeps } from '../billing.deps.js';
import type { BillingProfileRow } from './profile.repository.js';
import { isValidTurkishTaxId } from './profile.rules.js';

export interface BillingProfileInput {
  legal_name: string;
  tax_id?: string | null;
  tax_office?: string | null;
  address_line?: string | null;
  city?: string | null;
  postal_code?: string | null;
  country?: string;
  email?: string | null;
}

export type BillingProfileView = ReturnType<typeof profileView>;

export const DEFAULT_COUNTRY = 'TR';

/** What GET answers before the first PUT: every field null but the country. */
export const EMPTY_PROFILE = {
  legal_name: null,
  tax_id: null,
  tax_office: null,
  address_line: null,
  city: null,
  postal_code: null,
  country: DEFAULT_COUNTRY,
  email: null,
} as const;

export const profileView = (p: BillingProfileRow | undefined) =>
  p
    ? {
        legal_name: p.legal_name as string | null,
        tax_id: p.tax_id,
        tax_office: p.tax_office,
        address_line: p.address_line,
        city: p.city,
        postal_code: p.postal_code,
        country: p.country,
        email: p.email,
      }
    : { ...EMPTY_PROFILE };

/** An address with one @, no spaces, and a dot in its domain (the mail server has the last word). */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Trimmed; an empty or blank optional text is null. */
const text = (v: string | null | undefined): string | null => {
  const t = v?.trim();
  return t ? t : null;
};

/**
 * The profile a PUT stores (every field it leaves out becomes null, the country TR), or a 400 naming every bad field.
 * For TR a tax id, when given, must be a valid VKN or TCKN (check digits); elsewhere it is free text.
 */
export function normalizeProfile(input: BillingProfileInput) {
  const errors: FieldError[] = [];
  const legalName = input.legal_name.trim();
  if (!legalName) errors.push({ path: '/legal_name', message: 'must not be blank' });
  const country = input.country ?? DEFAULT_COUNTRY;
  const taxId = text(input.tax_id);
  if (taxId !== null && country === 'TR' && !isValidTurkishTaxId(taxId)) {
    errors.push({ path: '/tax_id', message: 'must be a VKN (10 digits with its check digit) or a TCKN (11 digits, first not 0, with its two check digits)' });
  }
  const email = text(input.email);
  if (email !== null && !EMAIL.test(email)) errors.push({ path: '/email', message: 'must be an e-mail address' });
  if (errors.length > 0) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
  return {
    legal_name: legalName,
    tax_id: taxId,
    tax_office: text(input.tax_office),
    address_line: text(input.address_line),
    city: text(input.city),
    postal_code: text(input.postal_code),
    country,
    email,
  };
}

export type ProfileService = ReturnType<typeof createProfileService>;

/** The workspace's billing profile: read and replaced by its admins. */
export function createProfileService(deps: Pick<BillingDeps, 'db' | 'repo' | 'clock' | 'identity'>) {
  const { db, repo, clock, identity } = deps;
  return {
    async getProfile(actor: Actor, slug: string) {
      const ws = await identity.access(actor, slug, 'billing');
      return profileView(await repo.findBillingProfile(db, ws.workspaceId));
    },

    async putProfile(actor: Actor, slug: string, input: BillingProfileInput) {
      const ws = await identity.access(actor, slug, 'billing');
      const fields = normalizeProfile(input);
      return profileView(await repo.upsertBillingProfile(db, { workspace_id: ws.workspaceId, ...fields, updated_at: clock.now() }));
    },
  };
}
