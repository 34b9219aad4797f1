/** Checkout (8.4): plan, interval, coupon and "save card" (19.1), then the provider's payment page in an iframe. */
import { useState } from 'preact/hooks';
import { api, type Answer, money, unwrap } from '../../api.js';
import { ActionForm } from '../../components/action-form.js';
import { SelectField } from '../../components/options.js';
import { Field, formValues, useAction } from '../../ui.js';

type Plan = Answer<'listPlans'>[number];
type Session = Answer<'createCheckout', 201>;

/**
 * `plans`: the plans that can be bought now (the page leaves out the one an active subscription is on). `onPaid`
 * reloads the subscription, the payments and the cards ("refresh" after paying, or nothing to pay).
 */
export function Checkout({ slug, plans, onPaid }: { slug: string; plans: Plan[]; onPaid: () => void }) {
  const [session, setSession] = useState<Session | null>(null);
  const checkout = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const s = await unwrap(
      api().POST('/api/workspaces/{slug}/billing/checkout/', {
        params: { path: { slug } },
        body: {
          plan_slug: v.plan_slug ?? '',
          billing_interval: (v.billing_interval ?? 'month') as 'month' | 'year',
          save_card: v.save_card === 'yes',
          ...(v.coupon_code ? { coupon_code: v.coupon_code } : {}),
        },
      }),
    );
    setSession(s);
    if (!s.iframe_url) onPaid();
  });
  return (
    <>
      <ActionForm class="inline" action={checkout} submit="Go to payment" problem="outside">
        <SelectField label="Plan" name="plan_slug" items={plans.map((p) => [p.slug, p.name] as const)} />
        <SelectField
          label="Billing interval"
          name="billing_interval"
          items={[
            ['month', 'Monthly'],
            ['year', 'Yearly'],
          ]}
        />
        <Field label="Coupon code">{(id) => <input id={id} name="coupon_code" autocomplete="off" />}</Field>
        <Field label="Save card for automatic renewal">{(id) => <input id={id} name="save_card" value="yes" type="checkbox" defaultChecked />}</Field>
      </ActionForm>
      {session ? (
        session.iframe_url ? (
          <div class="payment">
            <p>
              Pay {money(session.amount, session.currency)} (order {session.merchant_oid}) on the provider's page below, then{' '}
              <button type="button" onClick={onPaid}>
                refresh the subscription
              </button>
              .
            </p>
            <iframe title="Payment page" src={session.iframe_url} class="payment-frame" />
          </div>
        ) : (
          <p class="card">Nothing to pay: the subscription is active.</p>
        )
      ) : null}
    </>
  );
}
