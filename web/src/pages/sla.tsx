import { useEffect, useState } from 'preact/hooks';
import { api, unwrap, when } from '../api.js';
import { Link } from '../router.js';
import { Badge, Empty, Field, formValues, PageTitle, ProblemView, Show, useAction, useLoad } from '../ui.js';

const REFRESH_MS = 10_000;
const RULE_PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;

/** Breached trackers, refreshed every 10 s without a reload. */
export function BreachedBoard({ slug }: { slug: string }) {
  const board = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/sla-breached/', { params: { path: { slug }, query: { offset: 0, per_page: 100 } } })), [slug]);
  const [checked, setChecked] = useState(new Date());
  useEffect(() => {
    const t = setInterval(() => {
      if (document.visibilityState === 'visible') void board.reload().then(() => setChecked(new Date()));
    }, REFRESH_MS);
    return () => clearInterval(t);
  }, [board.reload]);
  return (
    <section>
      <PageTitle>SLA breached</PageTitle>
      <p class="muted" aria-live="polite">Live: refreshes every 10 seconds · last checked {checked.toLocaleTimeString()}</p>
      <Show state={board}>
        {(page) =>
          page.results.length ? (
            <ul class="board">
              {page.results.map((t) => (
                <li key={t.id}>
                  <Link to={`/w/${slug}/p/${t.issue.project_id}/issues/${t.issue.id}`}>#{t.issue.sequence_id} {t.issue.name}</Link>
                  <div>
                    <span class={`prio ${t.issue.priority}`}>{t.issue.priority}</span> {t.issue.state_group}{' '}
                    {t.response_breached ? <Badge tone="bad">response breached</Badge> : null}{' '}
                    {t.resolution_breached ? <Badge tone="bad">resolution breached</Badge> : null}
                  </div>
                  <small class="muted">response due {when(t.response_due_at)} · resolution due {when(t.resolution_due_at)}</small>
                </li>
              ))}
            </ul>
          ) : (
            <Empty>Nothing is breached. Well done.</Empty>
          )
        }
      </Show>
      {/* Slot: the at-risk board (section 11) goes next to this one when its endpoint lands. */}
    </section>
  );
}

type Rule = { priority: (typeof RULE_PRIORITIES)[number]; response_time_h: number; resolution_time_h: number };
type Policy = { id: string; name: string; description: string; is_default: boolean; rules: Rule[] };

function PolicyForm({ slug, policy, onDone }: { slug: string; policy?: Policy; onDone: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    const rules: Rule[] = [];
    for (const p of RULE_PRIORITIES) {
      const r = v[`${p}_response`];
      const s = v[`${p}_resolution`];
      if (r || s) rules.push({ priority: p, response_time_h: Number(r), resolution_time_h: Number(s) });
    }
    const body = { name: v.name ?? '', description: v.description ?? '', is_default: v.is_default === 'on', rules };
    if (policy) await unwrap(api().PATCH('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path: { slug, policyId: policy.id } }, body }));
    else await unwrap(api().POST('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } }, body }));
    if (!policy) form.reset();
    onDone();
  });
  const rule = (p: string) => policy?.rules.find((r) => r.priority === p);
  return (
    <form class="policy" onSubmit={(e) => {
        e.preventDefault();
        void save.run(e.currentTarget);
      }}>
      <Field label="Policy name">{(id) => <input id={id} name="name" required value={policy?.name ?? ''} />}</Field>
      <Field label="Description">{(id) => <input id={id} name="description" value={policy?.description ?? ''} />}</Field>
      <Field label="Workspace default">{(id) => <input id={id} name="is_default" type="checkbox" checked={policy?.is_default ?? false} />}</Field>
      <fieldset>
        <legend>Targets in hours (leave empty for no rule)</legend>
        <div class="rules">
          {RULE_PRIORITIES.map((p) => (
            <div key={p} class="rule">
              <span class={`prio ${p}`}>{p}</span>
              <Field label={`${p} response (h)`}>{(id) => <input id={id} name={`${p}_response`} type="number" step="any" min="0" value={rule(p)?.response_time_h ?? ''} />}</Field>
              <Field label={`${p} resolution (h)`}>{(id) => <input id={id} name={`${p}_resolution`} type="number" step="any" min="0" value={rule(p)?.resolution_time_h ?? ''} />}</Field>
            </div>
          ))}
        </div>
      </fieldset>
      <ProblemView error={save.error} />
      <button type="submit" disabled={save.busy}>{policy ? 'Save policy' : 'Create policy'}</button>
    </form>
  );
}

export function Policies({ slug }: { slug: string }) {
  const list = useLoad(() => unwrap(api().GET('/api/workspaces/{slug}/sla-policies/', { params: { path: { slug } } })), [slug]);
  const [editing, setEditing] = useState<string | null>(null);
  const remove = useAction(async (id: string) => {
    await unwrap(api().DELETE('/api/workspaces/{slug}/sla-policies/{policyId}/', { params: { path: { slug, policyId: id } } }));
    await list.reload();
  });
  return (
    <section>
      <PageTitle>SLA policies</PageTitle>
      <ProblemView error={remove.error} />
      <Show state={list}>
        {(items) =>
          items.length ? (
            <ul class="cards">
              {items.map((p) => (
                <li key={p.id}>
                  <strong>{p.name}</strong> {p.is_default ? <Badge tone="info">default</Badge> : null}
                  <div class="muted">{p.rules.map((r) => `${r.priority}: ${r.response_time_h} h / ${r.resolution_time_h} h`).join(' · ') || 'no rules'}</div>
                  <div class="actions">
                    <button type="button" onClick={() => setEditing(editing === p.id ? null : p.id)} aria-expanded={editing === p.id}>Edit</button>
                    <button type="button" class="danger" onClick={() => confirm(`Delete the policy ${p.name}?`) && void remove.run(p.id)}>Delete</button>
                  </div>
                  {editing === p.id ? <PolicyForm slug={slug} policy={p as Policy} onDone={() => {
                        setEditing(null);
                        void list.reload();
                      }} /> : null}
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No SLA policies yet: without a policy, issues have no SLA tracker.</Empty>
          )
        }
      </Show>
      <h2>New policy</h2>
      <PolicyForm slug={slug} onDone={() => void list.reload()} />
      {/* Slot: calendars editor (section 11). */}
    </section>
  );
}
