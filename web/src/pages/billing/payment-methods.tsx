/** Stored cards (contract 19.1, 19.8): brand, last four digits, expiry, the default; remove and make default. */
import { api, type Answer, unwrap } from '../../api.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { byId, DataTable } from '../../components/data-table.js';
import { ListOf } from '../../components/list-view.js';
import { dateTime } from '../../format.js';
import { Badge, ProblemView, useAction, useLoad } from '../../ui.js';

type Method = Answer<'listPaymentMethods'>[number];

const cardName = (m: Method) => `${m.brand} •••• ${m.last4}`;
const expiry = (m: Method) => `${String(m.exp_month).padStart(2, '0')}/${m.exp_year}`;

/** `version` reloads the list (after a checkout stored a card); `onChange` tells the page a card changed. */
export function PaymentMethods({ slug, version, onChange }: { slug: string; version: number; onChange: () => void }) {
  const path = { slug };
  const methods = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/billing/payment-methods/', { params: { path } })), [slug, version]);
  const act = useAction(async (m: Method, what: 'default' | 'remove') => {
    const params = { path: { slug, methodId: m.id } };
    if (what === 'default') await unwrap(api().POST('/api/workspaces/{slug}/billing/payment-methods/{methodId}/default/', { params }));
    else await unwrap(api().DELETE('/api/workspaces/{slug}/billing/payment-methods/{methodId}/', { params }));
    await methods.reload();
    onChange();
  });
  return (
    <>
      <ListOf state={methods} empty="No stored card: renewals need a checkout with “Save card for automatic renewal”.">
        {(rows) => (
          <DataTable
            label="Saved cards"
            rows={rows}
            rowKey={byId}
            columns={[
              {
                header: 'Card',
                cell: (m) => (
                  <>
                    {cardName(m)}
                    {m.is_default ? (
                      <>
                        {' '}
                        <Badge tone="ok">Default</Badge>
                      </>
                    ) : null}
                  </>
                ),
              },
              { header: 'Expires', cell: expiry },
              { header: 'Added', cell: (m) => dateTime(m.created_at) },
              {
                header: 'Actions',
                cell: (m) => (
                  <div class="actions">
                    {m.is_default ? null : (
                      <button type="button" aria-label={`Make ${cardName(m)} default`} disabled={act.busy} onClick={() => void act.run(m, 'default')}>
                        Make default
                      </button>
                    )}
                    <ConfirmButton
                      question={`Remove the card ${cardName(m)}? It is deleted at the provider too.`}
                      label={`Remove ${cardName(m)}`}
                      disabled={act.busy}
                      onConfirm={() => void act.run(m, 'remove')}
                    >
                      Remove
                    </ConfirmButton>
                  </div>
                ),
              },
            ]}
          />
        )}
      </ListOf>
      <ProblemView error={act.error} />
    </>
  );
}
