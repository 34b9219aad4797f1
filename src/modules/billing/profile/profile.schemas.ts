import { Type } from 'typebox';

/** The workspace's billing profile (contract 19.5): the buyer on its invoices and credit notes. */

const Text = (maxLength: number, description: string) => Type.Union([Type.String({ maxLength, description }), Type.Null()]);

export const BillingProfile = Type.Object({
  legal_name: Type.Union([Type.String(), Type.Null()], { description: 'Legal name (unvan) or full name; null before the first PUT' }),
  tax_id: Type.Union([Type.String(), Type.Null()], { description: 'For TR: a VKN (10 digits) or a TCKN (11 digits)' }),
  tax_office: Type.Union([Type.String(), Type.Null()], { description: 'Tax office (vergi dairesi)' }),
  address_line: Type.Union([Type.String(), Type.Null()]),
  city: Type.Union([Type.String(), Type.Null()]),
  postal_code: Type.Union([Type.String(), Type.Null()]),
  country: Type.String({ description: 'ISO 3166-1 alpha-2, TR by default' }),
  email: Type.Union([Type.String(), Type.Null()], { description: 'Where invoices go' }),
});

export const PutBillingProfileBody = Type.Object(
  {
    legal_name: Type.String({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Legal name (unvan) or full name' }),
    tax_id: Type.Optional(Text(32, 'For TR: a VKN (10 digits, its check digit) or a TCKN (11 digits, first not 0, its two check digits)')),
    tax_office: Type.Optional(Text(255, 'Tax office (vergi dairesi)')),
    address_line: Type.Optional(Text(500, 'Street address')),
    city: Type.Optional(Text(255, 'City')),
    postal_code: Type.Optional(Text(20, 'Postal code')),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$', description: 'ISO 3166-1 alpha-2, upper case; default TR' })),
    email: Type.Optional(Text(254, 'Where invoices go: an e-mail address')),
  },
  { additionalProperties: false },
);
