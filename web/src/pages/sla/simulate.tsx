/**
 * The "simulate before saving" panel of the SLA policy editor (contract 20.2, 20.3): the issues created in a range
 * replayed under the policy that applies to each now and under the form's draft, per priority, and the targets whose
 * outcome would change, each naming its issue by key and name with a link to it. It fits a phone: the comparison
 * scrolls in its own labelled region, the list wraps.
 */
import { useState } from 'preact/hooks';
import { type Answer, api, type operations, unwrap } from '../../api.js';
import { Link } from '../../router.js';
import { issueKey } from '../../components/issue-bits.js';
import { codeName, count, percent, today } from '../../format.js';
import { errorsAt, Field, formValues, ProblemView, useAction } from '../../ui.js';

type Simulation = Answer<'simulateSlaPolicy'>;
type Block = Simulation['current']['response'];
type Issue = Answer<'listWorkspaceIssues'>['results'][number];
type Project = Answer<'listProjects'>[number];
/** The rules, calendar and at-risk share as the policy form holds them (saved, or simulated before saving). */
export type Draft = operations['simulateSlaPolicy']['requestBody']['content']['application/json']['policy'];
export type DraftOf = (values: Record<string, string>) => Draft;

const DAY_MS = 86_400_000;
const MAX_LOOKUP_PAGES = 10;
const plusDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
const plural = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/**
 * The changed targets' issues, looked up among the workspace's issues created in the range (a day wider on each side:
 * the range is in the workspace's zone), oldest first as the simulation lists them, until every one is found.
 */
async function issuesOf(slug: string, ids: string[], from: string, to: string): Promise<{ issues: Map<string, Issue>; projects: Map<string, Project> }> {
  const wanted = new Set(ids);
  const issues = new Map<string, Issue>();
  const projects = unwrap(api().GET('/api/workspaces/{slug}/projects/', { params: { path: { slug } } }));
  const query = { created_from: `${plusDays(from, -1)}T00:00:00Z`, created_to: `${plusDays(to, 2)}T00:00:00Z`, order_by: 'created_at', per_page: 100 };
  for (let page = 0; page < MAX_LOOKUP_PAGES && issues.size < wanted.size; page++) {
    const found = await unwrap(api().GET('/api/workspaces/{slug}/issues/', { params: { path: { slug }, query: { ...query, offset: page * 100 } } }));
    for (const i of found.results) if (wanted.has(i.id)) issues.set(i.id, i);
    if (found.results.length < 100) break;
  }
  return { issues, projects: new Map((await projects).map((p) => [p.id, p])) };
}

/** "97.5% (37 met, 3 breached, 2 open)", or a dash when nothing was met or breached. */
function BlockCell({ b }: { b: Block }) {
  return (
    <td>
      <strong>{b.achievement_percent === null ? '–' : percent(b.achievement_percent)}</strong>{' '}
      <small class="muted">
        {count(b.met)} met · {count(b.breached)} breached · {count(b.open)} open
      </small>
    </td>
  );
}

function ComparisonRow({ label, current, draft }: { label: string; current: Simulation['current']; draft: Simulation['draft'] }) {
  return (
    <tr>
      <th scope="row">{label}</th>
      <BlockCell b={current.response} />
      <BlockCell b={draft.response} />
      <BlockCell b={current.resolution} />
      <BlockCell b={draft.resolution} />
    </tr>
  );
}

function Changed({ slug, result, lookup }: { slug: string; result: Simulation; lookup: Awaited<ReturnType<typeof issuesOf>> | null }) {
  const { items, total } = result.changed;
  return (
    <details class="changed">
      <summary>Changed targets{total > items.length ? ` (first ${count(items.length)} of ${count(total)})` : ''}</summary>
      <ul>
        {items.map((c) => {
          const issue = lookup?.issues.get(c.issue_id);
          return (
            <li key={`${c.issue_id}-${c.target}`}>
              {issue ? (
                <Link to={`/w/${slug}/p/${issue.project_id}/issues/${issue.id}`}>
                  <span class="issue-key">{issueKey(lookup?.projects.get(issue.project_id)?.identifier, issue.sequence_id)}</span> {issue.name}
                </Link>
              ) : (
                <span class="muted">{lookup ? 'An issue beyond the first 1,000 of the range' : 'Loading the issue…'}</span>
              )}
              {' · '}
              {codeName(c.target)}: {codeName(c.current)} → {codeName(c.draft)}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

/** `of` names the form's policy (or the new one), so two open panels label their comparisons apart. */
export function SimulatePanel({ slug, draftOf, of }: { slug: string; draftOf: DraftOf; of: string }) {
  const [result, setResult] = useState<Simulation | null>(null);
  const [lookup, setLookup] = useState<Awaited<ReturnType<typeof issuesOf>> | null>(null);
  const run = useAction(async (form: HTMLFormElement) => {
    const v = formValues(form);
    setResult(null);
    setLookup(null);
    const body = { policy: draftOf(v), from: v.simulate_from ?? '', to: v.simulate_to ?? '' };
    const answer = await unwrap(api().POST('/api/workspaces/{slug}/sla-policies/simulate/', { params: { path: { slug } }, body }));
    setResult(answer);
    const ids = [...new Set(answer.changed.items.map((c) => c.issue_id))];
    if (ids.length) setLookup(await issuesOf(slug, ids, body.from, body.to));
  });
  const now = today();
  return (
    <fieldset class="simulate">
      <legend>Simulate before saving</legend>
      <div class="row">
        <Field label="Issues created from" errors={errorsAt(run.error, '/from')}>
          {(id) => <input id={id} name="simulate_from" type="date" defaultValue={plusDays(now, -29)} />}
        </Field>
        <Field label="to" errors={errorsAt(run.error, '/to')}>
          {(id) => <input id={id} name="simulate_to" type="date" defaultValue={now} />}
        </Field>
        <button type="button" disabled={run.busy} onClick={(e) => void run.run(e.currentTarget.form!)}>
          {run.busy ? 'Simulating…' : 'Simulate'}
        </button>
      </div>
      <ProblemView error={run.error} />
      {result ? (
        <div aria-live="polite" class="simulation">
          <p>
            {plural(result.issues, 'issue', 'issues')} replayed ·{' '}
            {result.changed.total === 0 ? 'no target would change' : `${plural(result.changed.total, 'target', 'targets')} would change`}
          </p>
          <div class="table-wrap" role="region" aria-label={`Current policy against draft (${of})`} tabIndex={0}>
            <table aria-label={`Current policy against draft (${of})`}>
              <thead>
                <tr>
                  <th scope="col">Priority</th>
                  <th scope="col">Response now</th>
                  <th scope="col">Response draft</th>
                  <th scope="col">Resolution now</th>
                  <th scope="col">Resolution draft</th>
                </tr>
              </thead>
              <tbody>
                {result.by_priority.map((p) => (
                  <ComparisonRow key={p.priority} label={codeName(p.priority)} current={p.current} draft={p.draft} />
                ))}
                <ComparisonRow label="All" current={result.current} draft={result.draft} />
              </tbody>
            </table>
          </div>
          {result.changed.items.length ? <Changed slug={slug} result={result} lookup={lookup} /> : null}
        </div>
      ) : null}
    </fieldset>
  );
}
