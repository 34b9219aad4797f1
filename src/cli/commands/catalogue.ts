import type { Static } from 'typebox';
import { CreateCouponBody, CreatePlanBody } from '../../modules/billing/index.js';
import { type Command, checked, integer, print, required, UsageError } from '../cli.js';

const PLAN_COLUMNS = ['slug', 'name', 'price_month', 'price_year', 'currency', 'max_users', 'max_projects', 'trial_days', 'is_active'];
const COUPON_COLUMNS = ['code', 'percent_off', 'amount_off', 'currency', 'plan_slugs', 'max_redemptions', 'times_redeemed', 'redeem_by'];

const list = (v: unknown): string[] | undefined =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** Plans and coupons: what an instance admin manages in the catalogue. */
export const catalogueCommands: Command[] = [
  {
    name: 'plans list',
    summary: 'every plan of the catalogue, retired ones too',
    usage: '[--json]',
    run: async (values, ctx) => {
      const { billing } = await ctx.services();
      print(ctx, values, await billing.adminListPlans(ctx.operator), PLAN_COLUMNS);
    },
  },
  {
    name: 'plans create',
    summary: 'add a plan',
    usage:
      '--slug S --name N --currency TRY [--price-month 29900] [--price-year 299000] [--max-users 10] [--max-projects 5]\n' +
      '                [--max-storage-gb 10] [--ai-tokens-monthly 0] [--trial-days 14] [--features custom_properties,time_tracking]',
    help: 'Prices are integers in minor units (29900 = 299.00). Caps: -1 = unlimited (default).',
    options: Object.fromEntries(
      [
        'slug',
        'name',
        'currency',
        'price-month',
        'price-year',
        'max-users',
        'max-projects',
        'max-storage-gb',
        'ai-tokens-monthly',
        'trial-days',
        'features',
        'sort-order',
      ].map((f) => [f, { type: 'string' as const }]),
    ),
    run: async (values, ctx) => {
      const features = list(values.features);
      const body = checked<Static<typeof CreatePlanBody>>(CreatePlanBody, {
        slug: required(values, 'slug'),
        name: required(values, 'name'),
        currency: required(values, 'currency'),
        price_month: integer(values, 'price-month', { min: 0 }),
        price_year: integer(values, 'price-year', { min: 0 }),
        max_users: integer(values, 'max-users') ?? -1,
        max_projects: integer(values, 'max-projects') ?? -1,
        max_storage_gb: integer(values, 'max-storage-gb') ?? -1,
        ai_tokens_monthly: integer(values, 'ai-tokens-monthly') ?? -1,
        trial_days: integer(values, 'trial-days', { min: 0, max: 365 }),
        sort_order: integer(values, 'sort-order'),
        features: features ? Object.fromEntries(features.map((f) => [f, true])) : undefined,
      });
      const { billing } = await ctx.services();
      print(ctx, values, await billing.adminCreatePlan(ctx.operator, body));
    },
  },
  {
    name: 'plans retire',
    summary: 'stop selling a plan (existing subscriptions keep it)',
    usage: '--slug S',
    options: { slug: { type: 'string' } },
    run: async (values, ctx) => {
      const { billing } = await ctx.services();
      print(ctx, values, await billing.adminUpdatePlan(ctx.operator, required(values, 'slug'), { is_active: false }));
    },
  },
  {
    name: 'coupons list',
    summary: 'every coupon',
    usage: '[--json]',
    run: async (values, ctx) => {
      const { billing } = await ctx.services();
      print(ctx, values, await billing.adminListCoupons(ctx.operator), COUPON_COLUMNS);
    },
  },
  {
    name: 'coupons create',
    summary: 'add a coupon: --percent-off, or --amount-off with --currency',
    usage: '--code C (--percent-off 20 | --amount-off 5000 --currency TRY) [--plans pro,business] [--max-redemptions N] [--redeem-by 2027-01-01]',
    options: Object.fromEntries(
      ['code', 'percent-off', 'amount-off', 'currency', 'plans', 'max-redemptions', 'redeem-by'].map((f) => [f, { type: 'string' as const }]),
    ),
    run: async (values, ctx) => {
      const redeemBy = typeof values['redeem-by'] === 'string' ? new Date(values['redeem-by']) : undefined;
      if (redeemBy && Number.isNaN(redeemBy.getTime())) throw new UsageError(`--redeem-by "${String(values['redeem-by'])}" is not a date`);
      const body = checked<Static<typeof CreateCouponBody>>(
        CreateCouponBody,
        {
          code: required(values, 'code'),
          percent_off: integer(values, 'percent-off', { min: 1, max: 100 }),
          amount_off: integer(values, 'amount-off', { min: 1 }),
          currency: values.currency,
          plan_slugs: list(values.plans),
          max_redemptions: integer(values, 'max-redemptions', { min: 1 }),
          redeem_by: redeemBy?.toISOString(),
        },
        (field) => (field === 'plan_slugs' ? 'plans' : field.replace(/_/g, '-')),
      );
      const { billing } = await ctx.services();
      print(ctx, values, await billing.adminCreateCoupon(ctx.operator, body));
    },
  },
  {
    name: 'coupons delete',
    summary: 'delete a coupon (payments keep their coupon code)',
    usage: '--code C',
    options: { code: { type: 'string' } },
    run: async (values, ctx) => {
      const { billing } = await ctx.services();
      await billing.adminDeleteCoupon(ctx.operator, required(values, 'code'));
      ctx.out(`deleted coupon ${required(values, 'code')}`);
    },
  },
];
