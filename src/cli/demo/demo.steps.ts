import { DateTime } from 'luxon';
import type { DemoBackend, IssuePlanning, IssueView, StateView } from './demo.backend.js';
import { DEMO_FILES } from './demo.files.js';
import {
  BASELINES,
  CALENDAR,
  DEMO_ACCOUNT,
  DEMO_ASSIGNEES,
  DEMO_LOGGERS,
  DEMO_MEMBERS,
  DEMO_SLUG,
  DEMO_TIME_ZONE,
  DEMO_WORKSPACE_NAME,
  type DemoPlan,
  type IssueRef,
  LABELS,
  type LabelName,
  type PlannedIssue,
  POLICIES,
  type ProjectKey,
  PROJECT_LABELS,
  PROJECTS,
  PROPERTIES,
  type PlannedWorklog,
  type PropertyKey,
  SEARCH_EXAMPLES,
  seeded,
  type StateKey,
  WAITING_STATE,
  WEBHOOK,
} from './demo.plan.js';

/**
 * One step of the demo: it looks at what exists and adds only what is missing, and answers what it added (nothing:
 * the step was complete). Steps run in order and each finds what it needs by looking it up, so a run may start
 * after any step an earlier run finished. To add a step, write one here and put it in `DEMO_STEPS` where its data
 * belongs (after the steps whose records it needs).
 */
export interface DemoStep {
  name: string;
  run(ctx: DemoContext): Promise<string[]>;
}

const MINUTE = 60_000;
const HOUR_MS = 60 * MINUTE;

export class DemoContext {
  private projectRows?: Map<string, { id: string; identifier: string; sla_policy_id: string | null }>;
  private stateRows = new Map<ProjectKey, StateView[]>();
  private propertyIds?: Record<PropertyKey, string>;
  private labelRows = new Map<ProjectKey, Map<string, string>>();
  private issueRows = new Map<ProjectKey, IssueView[]>();
  private matched?: Map<number, IssueView>;
  private anchor?: Date;
  private people?: string[];

  constructor(
    readonly api: DemoBackend,
    readonly plan: DemoPlan,
    readonly slug: string,
  ) {}

  /** The instant `offsetMs` into the demo's timeline, which ends just before the workspace was created. */
  async at(offsetMs: number): Promise<void> {
    if (!this.api.timeTravel) return;
    this.api.at(new Date((await this.anchorMs()) - this.plan.spanMs - 60 * MINUTE + offsetMs));
  }

  /** The instant `ms` before the workspace was created (the delivery history's weeks). */
  async atBefore(ms: number): Promise<void> {
    if (!this.api.timeTravel) return;
    this.api.at(new Date((await this.anchorMs()) - ms));
  }

  /** The workspace's creation: every past instant of the demo is counted from it, so every run finds the same ones. */
  async anchorMs(): Promise<number> {
    if (!this.anchor) {
      const ws = await this.api.getWorkspace(this.slug);
      this.anchor = new Date(ws!.created_at);
    }
    return this.anchor.getTime();
  }

  /** The date (in the workspace's time zone) `n` days after the first day of the timeline. */
  async day(n: number): Promise<string> {
    const start = (await this.anchorMs()) - this.plan.spanMs - 60 * MINUTE;
    return DateTime.fromMillis(start, { zone: DEMO_TIME_ZONE }).startOf('day').plus({ days: n }).toISODate()!;
  }

  /** The planned dates and estimate of an issue, as the API takes them. */
  async planningOf(planned: PlannedIssue): Promise<IssuePlanning | null> {
    if (!planned.planning) return null;
    const { startDay, targetDay, estimateMinutes } = planned.planning;
    return { start_date: await this.day(startDay), target_date: await this.day(targetDay), estimate_minutes: estimateMinutes };
  }

  async project(key: ProjectKey): Promise<{ id: string; sla_policy_id: string | null }> {
    if (!this.projectRows?.has(key)) this.projectRows = new Map((await this.api.listProjects(this.slug)).map((p) => [p.identifier, p]));
    const project = this.projectRows.get(key);
    if (!project) throw new Error(`The demo's project ${key} is missing`);
    return project;
  }

  forgetProjects(): void {
    this.projectRows = undefined;
  }

  async states(key: ProjectKey, refresh = false): Promise<StateView[]> {
    if (refresh || !this.stateRows.has(key)) this.stateRows.set(key, await this.api.listStates(this.slug, (await this.project(key)).id));
    return this.stateRows.get(key)!;
  }

  /** The state an issue of the plan is in: the first state of its group, or the pausing one. */
  async stateId(key: ProjectKey, state: StateKey): Promise<string> {
    const states = await this.states(key);
    const found =
      state === 'waiting'
        ? states.find((s) => s.name === WAITING_STATE.name)
        : states.filter((s) => s.group === state && s.name !== WAITING_STATE.name).sort((a, b) => a.sequence - b.sequence)[0];
    if (!found) throw new Error(`The project ${key} has no state for "${state}"`);
    return found.id;
  }

  async properties(): Promise<Record<PropertyKey, string>> {
    if (!this.propertyIds) {
      const existing = await this.api.listProperties(this.slug, (await this.project('SD')).id);
      const ids = {} as Record<PropertyKey, string>;
      for (const p of PROPERTIES) {
        const found = existing.find((e) => e.name === p.name);
        if (!found) throw new Error(`The demo's custom property "${p.name}" is missing`);
        ids[p.key] = found.id;
      }
      this.propertyIds = ids;
    }
    return this.propertyIds;
  }

  /** The ids of the project's labels of these names (read once; `forgetLabels` after adding some). */
  async labelIds(key: ProjectKey, names: readonly LabelName[]): Promise<string[]> {
    if (!this.labelRows.has(key)) {
      const labels = await this.api.listLabels(this.slug, (await this.project(key)).id);
      this.labelRows.set(key, new Map(labels.map((l) => [l.name.toLowerCase(), l.id])));
    }
    const ids = this.labelRows.get(key)!;
    return names.map((name) => {
      const id = ids.get(name);
      if (!id) throw new Error(`The demo's label "${name}" of project ${key} is missing`);
      return id;
    });
  }

  forgetLabels(): void {
    this.labelRows.clear();
  }

  /** The user ids of DEMO_ASSIGNEES, in its order (read once). */
  async assigneeIds(): Promise<string[]> {
    if (!this.people) {
      const members = await this.api.listMembers(this.slug);
      this.people = DEMO_ASSIGNEES.map((email) => {
        const found = members.find((m) => m.email === email);
        if (!found) throw new Error(`The demo's member ${email} is missing`);
        return found.user_id;
      });
    }
    return this.people;
  }

  /** Every issue of the project by sequence id, as last read (`refresh`: read now). */
  async issues(key: ProjectKey, refresh = false): Promise<IssueView[]> {
    if (refresh || !this.issueRows.has(key)) {
      const issues = (await this.api.listIssues(this.slug, (await this.project(key)).id)).sort((a, b) => a.sequence_id - b.sequence_id);
      this.issueRows.set(key, issues);
    }
    return this.issueRows.get(key)!;
  }

  /**
   * The existing issue of each planned one: the n-th planned issue of a name in a project is the n-th issue of that
   * name there (by sequence id). Planned issues without one are missing.
   */
  async existingIssues(refresh = false): Promise<Map<number, IssueView>> {
    if (this.matched && !refresh) return this.matched;
    const matched = new Map<number, IssueView>();
    for (const { key } of PROJECTS) {
      const byName = new Map<string, IssueView[]>();
      for (const issue of await this.issues(key, true)) {
        byName.set(issue.name, [...(byName.get(issue.name) ?? []), issue]);
      }
      for (const planned of this.plan.issues.filter((i) => i.project === key)) {
        const next = byName.get(planned.name)?.shift();
        if (next) matched.set(planned.index, next);
      }
    }
    this.matched = matched;
    return matched;
  }

  /** The existing issues of the sub-issue trees by name (the first of each name in its project), as last read. */
  async treeIssues(refresh = false): Promise<Map<string, IssueView>> {
    const found = new Map<string, IssueView>();
    for (const { key } of PROJECTS) {
      const names = new Set(this.plan.subIssues.filter((s) => s.project === key).map((s) => s.name));
      for (const issue of await this.issues(key, refresh)) if (names.has(issue.name) && !found.has(issue.name)) found.set(issue.name, issue);
    }
    return found;
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * Creates what is missing of the planned issues `from` .. `to` (exclusive): the issue (with its labels and assignees),
 * its custom values, its comment, and the moves of one that was worked on (to do, then started, then done, each at
 * its own instant); an existing issue without labels or assignees (a demo made before they existed) gets its planned
 * ones.
 */
async function completeIssues(ctx: DemoContext, from: number, to: number): Promise<string[]> {
  const { api, slug } = ctx;
  const existing = await ctx.existingIssues(true);
  const props = await ctx.properties();
  const people = await ctx.assigneeIds();
  let created = 0;
  let values = 0;
  let comments = 0;
  let labelled = 0;
  let assigned = 0;
  let moved = 0;
  for (const planned of ctx.plan.issues.slice(from, to)) {
    const project = await ctx.project(planned.project);
    const labelIds = await ctx.labelIds(planned.project, planned.labels);
    const assigneeIds = planned.assignees.map((n) => people[n]!);
    let issue = existing.get(planned.index);
    const isNew = !issue;
    if (!issue) {
      await ctx.at(planned.offsetMs);
      issue = await api.createIssue(slug, project.id, {
        name: planned.name,
        priority: planned.priority,
        state_id: await ctx.stateId(planned.project, planned.progress ? 'unstarted' : planned.state),
        ...(labelIds.length ? { label_ids: labelIds } : {}),
        ...(assigneeIds.length ? { assignee_ids: assigneeIds } : {}),
        ...(await ctx.planningOf(planned)),
      });
      existing.set(planned.index, issue);
      created++;
      if (labelIds.length) labelled++;
      if (assigneeIds.length) assigned++;
    } else {
      const patch = {
        ...(labelIds.length && issue.label_ids.length === 0 ? { label_ids: labelIds } : {}),
        ...(assigneeIds.length && issue.assignee_ids.length === 0 ? { assignee_ids: assigneeIds } : {}),
      };
      if (Object.keys(patch).length) {
        await ctx.at(planned.offsetMs + 3 * MINUTE);
        issue = await api.updateIssue(slug, project.id, issue.id, patch);
        if (patch.label_ids) labelled++;
        if (patch.assignee_ids) assigned++;
      }
    }
    // A new issue has nothing yet; an existing one is checked (a run may have stopped between its parts).
    const plannedValues = Object.entries(planned.values) as [PropertyKey, unknown][];
    if (plannedValues.length) {
      const have = isNew
        ? new Set<string>()
        : new Set((await api.listValues(slug, project.id, issue.id)).filter((v) => v.value !== null).map((v) => v.property_id));
      await ctx.at(planned.offsetMs + MINUTE);
      for (const [key, value] of plannedValues) {
        if (have.has(props[key])) continue;
        await api.setValue(slug, issue.id, props[key], value);
        values++;
      }
    }
    if (planned.comment && (isNew || !(await api.listComments(slug, project.id, issue.id)).some((c) => c.body === planned.comment))) {
      await ctx.at(planned.offsetMs + 30 * MINUTE);
      await api.createComment(slug, project.id, issue.id, planned.comment);
      comments++;
    }
    moved += await workOn(ctx, planned, issue, from === 0);
  }
  return created || values || comments || labelled || assigned || moved
    ? [
        `${plural(created, 'issue')}, ${plural(values, 'custom value')}, ${plural(comments, 'comment')}, labels on ${plural(labelled, 'issue')}, ` +
          `assignees on ${plural(assigned, 'issue')}, ${plural(moved, 'state change')} as the work went on`,
      ]
    : [];
}

/**
 * Moves an issue that was worked on from to do to its planned state: answered (started, or waiting on the customer)
 * and then resolved (completed or cancelled), each after its planned delay, before the sprint's baseline is taken
 * (the first sprint's: before "the sprint moves on"). Picks up where it stands: an issue in its state, or in the
 * state the sprint moved it to, is left alone. Answers how many moves it made.
 */
async function workOn(ctx: DemoContext, planned: PlannedIssue, issue: IssueView, firstSprint: boolean): Promise<number> {
  if (!planned.progress) return 0;
  const key = planned.project;
  const [todo, target] = [await ctx.stateId(key, 'unstarted'), await ctx.stateId(key, planned.state)];
  const resolved = planned.state === 'completed' || planned.state === 'cancelled';
  if (issue.state_id === target || (planned.later && issue.state_id === (await ctx.stateId(key, planned.later.state)))) return 0;
  const end = (firstSprint ? ctx.plan.baselineOffsetsMs[0] : Math.min(ctx.plan.baselineOffsetsMs[1], ctx.plan.spanMs)) - 10 * MINUTE;
  const at = (delayMs: number) => ctx.at(Math.min(planned.offsetMs + delayMs, end));
  const projectId = (await ctx.project(key)).id;
  let moves = 0;
  let state = issue.state_id;
  if (state === todo && planned.state !== 'cancelled') {
    await at(planned.progress.respondMs);
    state = (await ctx.api.updateIssue(ctx.slug, projectId, issue.id, { state_id: resolved ? await ctx.stateId(key, 'started') : target })).state_id;
    moves++;
  }
  if (resolved && state !== target) {
    await at(planned.progress.resolveMs);
    await ctx.api.updateIssue(ctx.slug, projectId, issue.id, { state_id: target });
    moves++;
  }
  return moves;
}

async function ensureBaseline(ctx: DemoContext, index: 0 | 1): Promise<string[]> {
  const name = BASELINES[index];
  const project = await ctx.project('SD');
  if ((await ctx.api.listBaselines(ctx.slug, project.id)).some((b) => b.name === name)) return [];
  await ctx.at(ctx.plan.baselineOffsetsMs[index]);
  await ctx.api.createBaseline(ctx.slug, project.id, name);
  return [`baseline "${name}" of Service Desk`];
}

/** The web project's delivery history: issues created, started and completed at their past instants (contract 18.5). */
async function deliveryHistory(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const project = await ctx.project('WEB');
  const existing = new Map((await api.listIssues(slug, project.id)).map((i) => [i.name, i]));
  const [todo, started, completed] = [await ctx.stateId('WEB', 'unstarted'), await ctx.stateId('WEB', 'started'), await ctx.stateId('WEB', 'completed')];
  let created = 0;
  let done = 0;
  for (const h of ctx.plan.history) {
    let issue = existing.get(h.name);
    if (!issue) {
      await ctx.atBefore(h.createdMs);
      issue = await api.createIssue(slug, project.id, { name: h.name, priority: h.priority, state_id: todo, estimate_minutes: h.estimateMinutes });
      created++;
    }
    // A run that stopped between the moves completes them, each at its own instant.
    if (issue.state_id === completed) continue;
    if (issue.state_id !== started) {
      await ctx.atBefore(h.startedMs);
      await api.updateIssue(slug, project.id, issue.id, { state_id: started });
    }
    await ctx.atBefore(h.completedMs);
    await api.updateIssue(slug, project.id, issue.id, { state_id: completed });
    done++;
  }
  return created || done ? [`${plural(created, 'issue')} of Web Platform over the past 12 weeks, ${done} completed at their past instants`] : [];
}

/** Dates and estimates where an issue has none (a demo made before they existed); new issues get theirs when created. */
async function completePlanning(ctx: DemoContext): Promise<string[]> {
  const existing = await ctx.existingIssues(true);
  let set = 0;
  for (const planned of ctx.plan.issues) {
    const issue = existing.get(planned.index);
    const planning = await ctx.planningOf(planned);
    if (!issue || !planning || issue.start_date !== null || issue.target_date !== null || issue.estimate_minutes !== null) continue;
    await ctx.at(planned.offsetMs + 2 * MINUTE);
    await ctx.api.updateIssue(ctx.slug, (await ctx.project(planned.project)).id, issue.id, planning);
    set++;
  }
  return set ? [`dates and estimates on ${plural(set, 'issue')}`] : [];
}

/** After the first baseline, some targets move later and their estimates grow: the baseline's schedule variance. */
async function slipSchedule(ctx: DemoContext): Promise<string[]> {
  const existing = await ctx.existingIssues(true);
  let slipped = 0;
  let n = 0;
  for (const planned of ctx.plan.issues.slice(0, ctx.plan.firstHalf)) {
    const issue = existing.get(planned.index);
    const planning = await ctx.planningOf(planned);
    if (!issue || !planning || !planned.slip) continue;
    n++;
    const target = DateTime.fromISO(planning.target_date!).plus({ days: planned.slip.days }).toISODate()!;
    // Not slipped yet: the planned target (or none, in a demo made before dates existed).
    if (issue.target_date !== null && issue.target_date !== planning.target_date) continue;
    await ctx.at(ctx.plan.laterOffsetMs + HOUR_MS + n * MINUTE);
    await ctx.api.updateIssue(ctx.slug, (await ctx.project(planned.project)).id, issue.id, {
      start_date: planning.start_date,
      target_date: target,
      estimate_minutes: planning.estimate_minutes! + planned.slip.moreMinutes,
    });
    slipped++;
  }
  return slipped ? [`${plural(slipped, 'target')} moved later, with larger estimates`] : [];
}

/** Time logged over the past weeks by the admin and the members (the admin logs for the members). */
async function completeWorklogs(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const members = await api.listMembers(slug);
  const loggers = DEMO_LOGGERS.map((email) => {
    const found = members.find((m) => m.email === email);
    if (!found) throw new Error(`The demo's member ${email} is missing`);
    return found.user_id;
  });
  const anchor = await ctx.anchorMs();
  const existing = await ctx.existingIssues(true);
  const web = await ctx.project('WEB');
  const history = new Map((await api.listIssues(slug, web.id)).map((i) => [i.name, i]));
  const work: { projectId: string; issueId: string; logs: PlannedWorklog[] }[] = [];
  for (const [index, logs] of ctx.plan.worklogs) {
    const planned = ctx.plan.issues[index]!;
    const issue = existing.get(index);
    if (!issue) throw new Error(`The demo's issue "${planned.name}" is missing`);
    work.push({ projectId: (await ctx.project(planned.project)).id, issueId: issue.id, logs });
  }
  for (const h of ctx.plan.history) {
    const issue = history.get(h.name);
    if (!issue) throw new Error(`The demo's issue "${h.name}" is missing`);
    work.push({ projectId: web.id, issueId: issue.id, logs: h.worklogs });
  }
  let added = 0;
  let minutes = 0;
  for (const { projectId, issueId, logs } of work) {
    const have = new Set((await api.listWorklogs(slug, projectId, issueId)).map((w) => `${w.user_id} ${Date.parse(w.started_at)}`));
    for (const log of logs) {
      const startedAt = new Date(anchor - log.atMs);
      if (have.has(`${loggers[log.logger]} ${startedAt.getTime()}`)) continue;
      await api.createWorklog(slug, projectId, issueId, {
        user_id: loggers[log.logger]!,
        started_at: startedAt.toISOString(),
        duration_minutes: log.minutes,
        note: log.note,
      });
      added++;
      minutes += log.minutes;
    }
  }
  return added ? [`${plural(added, 'worklog')} (${Math.round(minutes / 60)} hours) by ${DEMO_LOGGERS.length} people over the past weeks`] : [];
}

/** The labels of each project (contract 24.1), by name, with their colours. */
async function ensureLabels(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const added: string[] = [];
  for (const { key, name } of PROJECTS) {
    const projectId = (await ctx.project(key)).id;
    // Names are unique ignoring case: a "Bug" someone made is the demo's "bug".
    const have = new Set((await api.listLabels(slug, projectId)).map((l) => l.name.toLowerCase()));
    const missing = PROJECT_LABELS[key].filter((label) => !have.has(label));
    for (const label of missing) await api.createLabel(slug, projectId, { name: label, ...LABELS[label] });
    if (missing.length) added.push(`${plural(missing.length, 'label')} of ${name} (${missing.join(', ')})`);
  }
  ctx.forgetLabels();
  return added;
}

/**
 * The sub-issue trees (contract 24.2): each issue created under its parent, in its state and with its labels, at its
 * instant of the second sprint. An issue found without its parent or its labels gets them.
 */
async function subIssueTrees(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const existing = await ctx.treeIssues(true);
  let created = 0;
  let completed = 0;
  let mended = 0;
  for (const planned of ctx.plan.subIssues) {
    const project = await ctx.project(planned.project);
    const labelIds = await ctx.labelIds(planned.project, planned.labels);
    // Parents come first in the plan: a parent is found or was just created.
    const parentId = planned.parent === null ? null : existing.get(planned.parent)!.id;
    const issue = existing.get(planned.name);
    if (!issue) {
      await ctx.at(planned.offsetMs);
      const made = await api.createIssue(slug, project.id, {
        name: planned.name,
        priority: planned.priority,
        state_id: await ctx.stateId(planned.project, planned.state),
        ...(labelIds.length ? { label_ids: labelIds } : {}),
        ...(parentId ? { parent_id: parentId } : {}),
      });
      existing.set(planned.name, made);
      created++;
      if (planned.state === 'completed') completed++;
      continue;
    }
    const patch = {
      ...(parentId && issue.parent_id === null ? { parent_id: parentId } : {}),
      ...(labelIds.length && issue.label_ids.length === 0 ? { label_ids: labelIds } : {}),
    };
    if (Object.keys(patch).length === 0) continue;
    await ctx.at(planned.offsetMs + MINUTE);
    existing.set(planned.name, await api.updateIssue(slug, project.id, issue.id, patch));
    mended++;
  }
  const trees = ctx.plan.subIssues.filter((s) => s.parent === null).length;
  const added: string[] = [];
  if (created) added.push(`${plural(created, 'issue')} in ${trees} sub-issue trees, ${completed} of them completed`);
  if (mended) added.push(`parents or labels set on ${plural(mended, 'issue')}`);
  return added;
}

/** The relations (contract 24.3): a pair already related, whichever way and of whatever type, is left as it is. */
async function relateIssues(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const planned = await ctx.existingIssues(true);
  // The lists were just read: the trees' issues are found in them.
  const trees = await ctx.treeIssues();
  const resolve = async (ref: IssueRef) => {
    const [issue, key] =
      'planned' in ref
        ? [planned.get(ref.planned), ctx.plan.issues[ref.planned]!.project]
        : [trees.get(ref.tree), ctx.plan.subIssues.find((s) => s.name === ref.tree)!.project];
    if (!issue) throw new Error(`The demo's issue "${'planned' in ref ? ctx.plan.issues[ref.planned]!.name : ref.tree}" is missing`);
    return { issue, key, projectId: (await ctx.project(key)).id, label: `${key}-${issue.sequence_id}` };
  };
  const added: string[] = [];
  for (const relation of ctx.plan.relations) {
    const [from, to] = [await resolve(relation.from), await resolve(relation.to)];
    if ((await api.listRelations(slug, from.projectId, from.issue.id)).some((r) => r.issue.id === to.issue.id)) continue;
    await ctx.at(relation.offsetMs);
    await api.createRelation(slug, from.projectId, from.issue.id, { type: relation.type, issue_id: to.issue.id });
    added.push(`${from.label} ${relation.type.replace('_', ' ')} ${to.label}`);
  }
  return added;
}

/**
 * Saved views (contract 23.3): "My issues" for everyone (shared, workspace-wide; `me` is whoever runs it) and the
 * service desk's urgent queue. A view of the same name is left as it is.
 */
async function savedViews(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const existing = new Set((await api.listViews(slug)).map((v) => v.name));
  const desk = (await ctx.project('SD')).id;
  const views: Parameters<typeof api.createView>[1][] = [
    { name: 'My issues', project_id: null, filters: { assignee_id: ['me'], state_group: ['unstarted', 'started'] }, order_by: 'priority', shared: true },
    {
      name: 'Urgent and high, open',
      project_id: desk,
      filters: { priority: ['urgent', 'high'], state_group: ['backlog', 'unstarted', 'started'] },
      order_by: 'priority',
      shared: true,
    },
  ];
  const added: string[] = [];
  for (const view of views) {
    if (existing.has(view.name)) continue;
    await api.createView(slug, view);
    added.push(`view "${view.name}"`);
  }
  return added;
}

/**
 * Requests in Turkish and English with descriptions and comments (search, contract 23.1). An issue of the same name is
 * left as it is.
 */
async function searchExamples(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const project = await ctx.project('SD');
  const existing = new Set((await api.listIssues(slug, project.id)).map((i) => i.name));
  let added = 0;
  for (const example of SEARCH_EXAMPLES) {
    if (existing.has(example.name)) continue;
    const stateId = await ctx.stateId('SD', example.state);
    const issue = await api.createIssue(slug, project.id, {
      name: example.name,
      description: example.description,
      priority: example.priority,
      state_id: stateId,
    });
    await api.createComment(slug, project.id, issue.id, example.comment);
    added++;
  }
  return added ? [`${plural(added, 'request')} in Turkish and English to search for`] : [];
}

/** A screenshot, a photo and a PDF on the search examples (attachments, contract 25); a file already there is kept. */
async function attachFiles(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const project = await ctx.project('SD');
  const issues = new Map((await api.listIssues(slug, project.id)).map((i) => [i.name, i]));
  let added = 0;
  for (const file of DEMO_FILES) {
    const issue = issues.get(file.issue);
    if (!issue) continue;
    const existing = await api.listAttachments(slug, project.id, issue.id);
    if (existing.some((a) => a.filename === file.filename)) continue;
    await api.uploadAttachment(slug, project.id, issue.id, { filename: file.filename, bytes: await file.make() });
    added++;
  }
  return added ? [`${plural(added, 'file')} attached (a screenshot, a photo, a PDF)`] : [];
}

/** The comment that mentions the demo user: the inbox step's last change, so a run that finds it has nothing to add. */
const INBOX_MENTION = `@${DEMO_ACCOUNT.email} could you confirm the refund went out? The customer wrote again.`;
/** Someone invited who has no account yet (contract 26.4): the members page shows the pending invitation. */
export const DEMO_INVITEE = `newcomer.${DEMO_SLUG}@example.com`;

/**
 * The demo user's inbox (contract 26): teammates assign an issue to them, comment on it, raise the priority of one
 * they created and mention them; one notification is read and one snoozed until tomorrow, the rest stay unread. And
 * a pending invitation for a newcomer.
 */
async function inboxAndInvitation(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  const added: string[] = [];
  const project = await ctx.project('SD');
  const issues = new Map((await api.listIssues(slug, project.id)).map((i) => [i.name, i]));
  const [first, second] = SEARCH_EXAMPLES.map((e) => issues.get(e.name));
  const me = (await api.listMembers(slug)).find((m) => m.email === DEMO_ACCOUNT.email);
  if (first && second && me && !(await api.listComments(slug, project.id, first.id)).some((c) => c.body === INBOX_MENTION)) {
    const [grace, hana] = [DEMO_MEMBERS[0], DEMO_MEMBERS[2]].map((m) => ({ email: m.email, password: DEMO_ACCOUNT.password }));
    const asGrace = await api.asMember(grace!);
    const asHana = await api.asMember(hana!);
    await asGrace.updateIssue(slug, project.id, second.id, { assignee_ids: [me.user_id] });
    await asHana.createComment(slug, project.id, second.id, 'The customer sent the screenshot again; it still fails on the second step.');
    await asHana.updateIssue(slug, project.id, first.id, { priority: first.priority === 'urgent' ? 'high' : 'urgent' });
    await asGrace.createComment(slug, project.id, first.id, INBOX_MENTION);
    const inbox = await api.listNotifications();
    const read = inbox.find((n) => n.kind === 'priority_changed' && n.read_at === null);
    if (read) await api.markNotificationsRead([read.id]);
    const snoozed = inbox.find((n) => n.kind === 'commented');
    if (snoozed) await api.snoozeNotification(snoozed.id, new Date(Date.now() + 24 * HOUR_MS).toISOString());
    added.push(`an inbox of ${plural(inbox.length, 'notification')} (one read, one snoozed until tomorrow)`);
  }
  if (!(await api.listInvitations(slug)).some((i) => i.email === DEMO_INVITEE)) {
    await api.createInvitation(slug, { email: DEMO_INVITEE, role: 'member' });
    added.push(`an invitation for ${DEMO_INVITEE}`);
  }
  return added;
}

const laterOf = (planned: PlannedIssue) => planned.later!;

/**
 * Several weeks of SLA history before the sprint (contract 21: the SLA reports show something): on the Web Platform
 * (the standard policy, business hours), seven issues a week for six weeks, each answered (moved to started) and
 * resolved after delays that meet most targets and breach some. Only where the demo records the past (in process);
 * resumable: an issue found half-way is moved on from where it stands.
 */
const SLA_HISTORY_WEEKS = 6;
const SLA_HISTORY_PREFIX = 'SLA history';
async function slaHistory(ctx: DemoContext): Promise<string[]> {
  const { api, slug } = ctx;
  if (!api.timeTravel) return [];
  const project = await ctx.project('WEB');
  const [started, completed, backlog] = await Promise.all([ctx.stateId('WEB', 'started'), ctx.stateId('WEB', 'completed'), ctx.stateId('WEB', 'backlog')]);
  const existing = new Map((await api.listIssues(slug, project.id)).filter((i) => i.name.startsWith(SLA_HISTORY_PREFIX)).map((i) => [i.name, i]));
  const rnd = seeded(2020);
  const priorities = ['urgent', 'high', 'high', 'medium', 'medium', 'low'] as const;
  const responses = [20 * MINUTE, 45 * MINUTE, 2 * 60 * MINUTE, 5 * 60 * MINUTE, 26 * 60 * MINUTE];
  const resolutions = [3 * 60 * MINUTE, 20 * 60 * MINUTE, 2 * 1440 * MINUTE, 4 * 1440 * MINUTE, 9 * 1440 * MINUTE];
  let created = 0;
  let moved = 0;
  for (let week = 0; week < SLA_HISTORY_WEEKS; week++) {
    for (let n = 0; n < 7; n++) {
      const name = `${SLA_HISTORY_PREFIX} ${week + 1}.${n + 1}: ${rnd.pick(['Export', 'Login', 'Search', 'Invoice', 'Upload'])} ${rnd.pick(['fails', 'is slow', 'times out'])}`;
      const priority = rnd.pick(priorities);
      const respond = rnd.pick(responses);
      const resolve = respond + rnd.pick(resolutions);
      // Week 1 starts eight weeks before the demo's end; working days at 07:00-15:00 UTC.
      const offset = -(SLA_HISTORY_WEEKS - week) * 7 * 1440 * MINUTE + n * 1440 * MINUTE + (7 + ((week + n) % 8)) * 60 * MINUTE;
      let issue = existing.get(name);
      if (!issue) {
        await ctx.at(offset);
        issue = await api.createIssue(slug, project.id, { name, priority, state_id: backlog });
        created++;
      }
      if (issue.state_id === backlog) {
        await ctx.at(offset + respond);
        issue = await api.updateIssue(slug, project.id, issue.id, { state_id: started });
        moved++;
      }
      if (issue.state_id === started) {
        await ctx.at(offset + resolve);
        await api.updateIssue(slug, project.id, issue.id, { state_id: completed });
        moved++;
      }
    }
  }
  return created || moved ? [`${plural(created, 'issue')} over ${SLA_HISTORY_WEEKS} weeks, ${plural(moved, 'state change')}`] : [];
}

export const DEMO_STEPS: DemoStep[] = [
  {
    name: 'account',
    run: async ({ api }) => {
      const { created } = await api.useDemoUser({ email: DEMO_ACCOUNT.email, password: DEMO_ACCOUNT.password, display_name: DEMO_ACCOUNT.displayName });
      return created ? [`account ${DEMO_ACCOUNT.email}`] : [];
    },
  },
  {
    name: 'workspace',
    run: async ({ api, slug }) => {
      if (await api.getWorkspace(slug)) return [];
      await api.createWorkspace({ name: DEMO_WORKSPACE_NAME, slug });
      return [`workspace "${slug}" (${DEMO_WORKSPACE_NAME})`];
    },
  },
  {
    name: 'workspace time zone',
    run: async ({ api, slug }) => {
      // The default (UTC) is what is missing; a zone chosen since is left alone.
      if ((await api.getWorkspace(slug))!.time_zone !== 'UTC') return [];
      await api.updateWorkspace(slug, { time_zone: DEMO_TIME_ZONE });
      return [`time zone ${DEMO_TIME_ZONE}`];
    },
  },
  {
    name: 'members',
    run: async ({ api, slug }) => {
      const added: string[] = [];
      const members = await api.listMembers(slug);
      for (const m of DEMO_MEMBERS) {
        // A member's account exists; only a missing member costs a sign-up (which the API limits per address).
        if (members.some((x) => x.email === m.email)) continue;
        if (await api.ensureUser({ email: m.email, password: DEMO_ACCOUNT.password, display_name: m.name })) added.push(`account ${m.email}`);
        await api.addMember(slug, { email: m.email, role: m.role });
        added.push(`${m.name} as ${m.role}`);
      }
      return added;
    },
  },
  {
    name: 'subscription',
    run: async (ctx) => {
      const { api, slug } = ctx;
      const current = await api.getSubscription(slug);
      if (current && ['active', 'trialing', 'past_due'].includes(current.status)) return [];
      if (api.sandboxPayments) {
        // Bought five weeks before the workspace was made, so its first period has ended and the card renews it.
        await ctx.atBefore(SUBSCRIBED_BEFORE_MS);
        const { merchant_oid } = await api.buyOnSandbox(slug, { plan_slug: 'pro', billing_interval: 'month' });
        api.at(null);
        const after = await api.getSubscription(slug);
        return [
          `Pro plan paid on the sandbox's payment page (order ${merchant_oid}), its card stored: subscription ${after?.status ?? 'missing'}, with its invoice`,
        ];
      }
      await api.startTrial(slug, { plan_slug: 'pro' });
      return ['Pro trial (the payment provider is not the sandbox, so nothing was paid)'];
    },
  },
  {
    name: 'renewal',
    run: async ({ api, slug }) => {
      // The duties are exactly once: a period already renewed is not charged again, and nothing is said.
      const before = await api.getBilling(slug);
      await api.runBillingDuties();
      const after = await api.getBilling(slug);
      if (!before || !after || before.current_period_end === after.current_period_end) return [];
      return [`renewal charged to the stored card: the subscription runs to ${after.current_period_end.slice(0, 10)}`];
    },
  },
  {
    name: 'SLA calendar and policies',
    run: async ({ api, slug }) => {
      const added: string[] = [];
      let calendar = (await api.listCalendars(slug)).find((c) => c.name === CALENDAR.name);
      if (!calendar) {
        calendar = await api.createCalendar(slug, CALENDAR);
        added.push(`calendar "${CALENDAR.name}"`);
      }
      const policies = await api.listPolicies(slug);
      for (const policy of [{ ...POLICIES.standard, calendar_id: calendar.id }, POLICIES.live]) {
        if (policies.some((p) => p.name === policy.name)) continue;
        await api.createPolicy(slug, { ...policy, rules: [...policy.rules] });
        added.push(`policy "${policy.name}"`);
      }
      return added;
    },
  },
  {
    name: 'projects',
    run: async (ctx) => {
      const { api, slug } = ctx;
      const added: string[] = [];
      const existing = await api.listProjects(slug);
      const policies = await api.listPolicies(slug);
      for (const p of PROJECTS) {
        if (existing.some((e) => e.identifier === p.identifier)) continue;
        const policyId = p.policy ? (policies.find((x) => x.name === POLICIES[p.policy].name)?.id ?? null) : null;
        await api.createProject(slug, { name: p.name, identifier: p.identifier, description: p.description, sla_policy_id: policyId });
        added.push(`project ${p.name} (${p.identifier})`);
      }
      ctx.forgetProjects();
      return added;
    },
  },
  {
    name: 'states',
    run: async (ctx) => {
      const states = await ctx.states('SD', true);
      if (states.some((s) => s.name === WAITING_STATE.name)) return [];
      await ctx.api.createState(ctx.slug, (await ctx.project('SD')).id, { ...WAITING_STATE });
      await ctx.states('SD', true);
      return [`state "${WAITING_STATE.name}" of Service Desk (pauses the SLA clock)`];
    },
  },
  {
    name: 'custom properties',
    run: async (ctx) => {
      const { api, slug } = ctx;
      const projectId = (await ctx.project('SD')).id;
      const existing = await api.listProperties(slug, projectId);
      const added: string[] = [];
      for (const p of PROPERTIES) {
        if (existing.some((e) => e.name === p.name)) continue;
        await api.createProperty(slug, projectId, { name: p.name, type: p.type, ...('options' in p ? { options: [...p.options] } : {}) });
        added.push(`"${p.name}" (${p.type})`);
      }
      return added;
    },
  },
  { name: 'labels', run: ensureLabels },
  { name: 'delivery history', run: deliveryHistory },
  { name: 'issues, first sprint', run: (ctx) => completeIssues(ctx, 0, ctx.plan.firstHalf) },
  { name: BASELINES[0], run: (ctx) => ensureBaseline(ctx, 0) },
  {
    name: 'the sprint moves on',
    run: async (ctx) => {
      const existing = await ctx.existingIssues(true);
      let changed = 0;
      let n = 0;
      for (const planned of ctx.plan.issues.slice(0, ctx.plan.firstHalf).filter((i) => i.later)) {
        const issue = existing.get(planned.index);
        if (!issue) throw new Error(`The demo's issue "${planned.name}" is missing`);
        const later = laterOf(planned);
        const project = await ctx.project(planned.project);
        const stateId = await ctx.stateId(planned.project, later.state);
        const patch = {
          ...(issue.state_id !== stateId ? { state_id: stateId } : {}),
          ...(later.priority && issue.priority !== later.priority ? { priority: later.priority } : {}),
        };
        n++;
        if (Object.keys(patch).length === 0) continue;
        await ctx.at(ctx.plan.laterOffsetMs + n * 5 * MINUTE);
        await ctx.api.updateIssue(ctx.slug, project.id, issue.id, patch);
        changed++;
      }
      return changed ? [`${plural(changed, 'issue')} started, finished or escalated`] : [];
    },
  },
  { name: 'schedule slips', run: slipSchedule },
  { name: 'issues, second sprint', run: (ctx) => completeIssues(ctx, ctx.plan.firstHalf, ctx.plan.issues.length) },
  { name: 'sub-issues', run: subIssueTrees },
  { name: 'relations', run: relateIssues },
  { name: 'saved views', run: savedViews },
  { name: 'search examples', run: searchExamples },
  { name: 'attachments', run: attachFiles },
  { name: 'dates and estimates', run: completePlanning },
  { name: 'worklogs', run: completeWorklogs },
  { name: BASELINES[1], run: (ctx) => ensureBaseline(ctx, 1) },
  { name: 'SLA history', run: slaHistory },
  { name: 'inbox and invitation', run: inboxAndInvitation },
  {
    name: 'webhook endpoint',
    run: async ({ api, slug }) => {
      const existing = (await api.listWebhooks(slug)).find((w) => w.url === WEBHOOK.url);
      if (existing && !existing.is_active) return [];
      // Created, then paused (creation makes it active): a run stopped in between pauses it the next time.
      const endpoint = existing ?? (await api.createWebhook(slug, WEBHOOK));
      await api.pauseWebhook(slug, endpoint.id);
      return [existing ? `endpoint ${WEBHOOK.url} paused` : `endpoint ${WEBHOOK.url} for every event, paused`];
    },
  },
  {
    name: 'a workspace in dunning',
    run: async (ctx) => {
      const { api } = ctx;
      // Only where the demo pays on the sandbox: a renewal must have fallen due and been declined.
      if (!api.sandboxPayments) return [];
      const slug = `${ctx.slug}${DUNNING_SUFFIX}`;
      const added: string[] = [];
      if (!(await api.getWorkspace(slug))) {
        await api.createWorkspace({ name: `${DEMO_WORKSPACE_NAME} (card declined)`, slug });
        added.push(`workspace "${slug}"`);
      }
      if (!(await api.getBilling(slug))) {
        await ctx.atBefore(SUBSCRIBED_BEFORE_MS);
        await api.buyOnSandbox(slug, { plan_slug: 'pro', billing_interval: 'month' }, DECLINING_CARD);
        api.at(null);
        added.push('Pro plan paid with a card whose later charges are declined');
      }
      const before = await api.getBilling(slug);
      if (api.timeTravel) await api.runBillingDuties();
      // Bought just now (over HTTP): the workspace's test clock moves past the period's end, where the renewal fails.
      else if (before?.status === 'active') await api.advanceTestClock(slug, new Date(Date.parse(before.current_period_end) + HOUR_MS).toISOString());
      const after = await api.getBilling(slug);
      if (after && before?.status !== after.status) added.push(`renewal declined: subscription ${after.status}, ${after.dunning?.attempts ?? 0} attempt(s)`);
      return added;
    },
  },
];

/** The demo's subscriptions were bought this long before its workspace was made: their first period has ended. */
const SUBSCRIBED_BEFORE_MS = 35 * 24 * HOUR_MS;
/** The second demo workspace, whose stored card declines every renewal (sandbox card 19.7). */
export const DUNNING_SUFFIX = '-dunning';
const DECLINING_CARD = '4000000000000341';
