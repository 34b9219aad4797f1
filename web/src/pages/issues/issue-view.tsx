/**
 * One issue, everything edited in place (issue 41), in two columns: the main one holds the key and state, the title,
 * the description (Markdown) and the activity feed (comments and history by time, the comment box last); the
 * properties sidebar holds state, priority, assignees, dates and estimates (issue-fields.tsx, assignee-picker.tsx),
 * then labels, parent and sub-issues, relations, watchers, the SLA block, custom values, time tracking and the files.
 * Every field saves on change; one live region says what was saved. On a phone the sidebar comes after the
 * description and before the feed. Files dropped anywhere on the page or pasted (outside text fields) attach to it.
 * A chunk of its own (issue-page.tsx loads it): the console's main bundle stays small.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, unwrap } from '../../api.js';
import { Facts } from '../../components/facts.js';
import { IssueKey, StateBadge, useMembers, useProjectMeta } from '../../components/issue-bits.js';
import { LabelChips, useLabels } from '../../components/label-chips.js';
import { minutes } from '../../format.js';
import { lazy } from '../../lazy.js';
import { Badge, Show, useLoad } from '../../ui.js';
import { AssigneePicker } from './assignee-picker.js';
import { CustomValues } from './custom-values.js';
import { ParentPicker, SubIssues } from './hierarchy.js';
import { DateField, DescriptionField, type Issue, MinutesField, PriorityField, StateField, TitleField, useIssueEditor } from './issue-fields.js';
import { ActivitySection, AttachmentsSection } from './issue-files.js';
import { IssueLabels } from './issue-labels.js';
import { Relations } from './relations.js';
import { SlaTracker } from './sla-tracker.js';
import { Timer, Worklogs } from './worklogs.js';
import './issue-page.css';

// Watch / stop watching and the watchers (contract 26.1): a small chunk of its own.
const Watch = lazy(() => import('./watch.js').then((m) => m.Watch));

export interface Props {
  slug: string;
  projectId: string;
  issueId: string;
}

export function IssueView(props: Props) {
  const { slug, projectId, issueId } = props;
  const loaded = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId } } })),
    [issueId],
  );
  return <Show state={loaded}>{(issue) => <IssueEditorView {...props} loaded={issue} reload={() => void loaded.reload()} />}</Show>;
}

/** A titled block of the sidebar (a region, by its heading). */
function Side({ id, title, children }: { id: string; title: string; children: ComponentChildren }) {
  return (
    <section class="side-block" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

function IssueEditorView({ slug, projectId, issueId, loaded, reload }: Props & { loaded: Issue; reload: () => void }) {
  // The issue as shown: what the page loaded, then what each save answered.
  const [issue, setIssue] = useState(loaded);
  // Bumped by each save and each reread: the SLA block and the history reload (a change of state or priority moves them).
  const [saves, setSaves] = useState(0);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    setIssue(loaded);
    setSaves((n) => n + 1);
  }, [loaded]);
  const [status, setStatus] = useState('');
  const editor = useIssueEditor(
    slug,
    projectId,
    issue,
    (next) => {
      setIssue(next);
      setSaves((n) => n + 1);
    },
    setStatus,
  );
  const meta = useProjectMeta(slug, projectId);
  const members = useMembers(slug);
  const labels = useLabels(slug, projectId);
  // Bumped when a comment is added: the SLA block (a response) and the feed reload.
  const [commented, setCommented] = useState(0);
  // Bumped when a timer stops (it logs a worklog): the worklogs reload.
  const [logged, setLogged] = useState(0);
  // Bumped when a file is stored or deleted: the Attachments section and the comments (their files) reload.
  const [files, setFiles] = useState(0);
  const filesChanged = () => setFiles((n) => n + 1);
  const version = `${issue.updated_at} ${saves} ${commented}`;
  const identifier = meta.data?.project.identifier;
  const state = meta.data?.stateById.get(issue.state_id);
  return (
    <article class="issue-page">
      <div class="issue-main">
        <p class="issue-meta">
          <IssueKey identifier={identifier} sequenceId={issue.sequence_id} />
          <StateBadge state={state} />
          {issue.blocked ? <Badge tone="bad">Blocked</Badge> : null}
        </p>
        <TitleField editor={editor} />
        <LabelChips ids={issue.label_ids} labels={labels.data} />
        <DescriptionField editor={editor} />
      </div>
      <section class="issue-side" aria-label="Properties">
        <p class="save-status" role="status">
          {status}
        </p>
        <div class="props">
          {meta.data ? <StateField editor={editor} states={meta.data.states} /> : null}
          <PriorityField editor={editor} />
          <AssigneePicker editor={editor} members={members.data} />
          <DateField editor={editor} field="start_date" label="Start date" />
          <DateField editor={editor} field="target_date" label="Target date" />
          <MinutesField editor={editor} field="estimate_minutes" label="Estimate (minutes)" hint="The original estimate; blank: none" />
          <MinutesField editor={editor} field="remaining_minutes" label="Remaining (minutes)" hint="Blank: the estimate minus the time spent" />
        </div>
        <Side id="labels-h" title="Labels">
          <IssueLabels slug={slug} projectId={projectId} issue={issue} labels={labels.data} onSaved={reload} />
        </Side>
        <Side id="parent-h" title="Parent">
          <ParentPicker slug={slug} issue={issue} identifier={identifier} onSaved={reload} />
        </Side>
        <Side id="sub-issues-h" title="Sub-issues">
          <SubIssues slug={slug} issue={issue} identifier={identifier} onChanged={reload} />
        </Side>
        <Side id="relations-h" title="Relations">
          <Relations slug={slug} projectId={projectId} issueId={issueId} onChanged={reload} />
        </Side>
        <Side id="watchers-h" title="Watchers">
          <Watch slug={slug} projectId={projectId} issueId={issueId} watching={issue.watching} />
        </Side>
        <Side id="sla-h" title="SLA">
          <SlaTracker slug={slug} issueId={issueId} version={version} />
        </Side>
        <Side id="custom-h" title="Custom values">
          <CustomValues slug={slug} projectId={projectId} issueId={issueId} say={setStatus} />
        </Side>
        <Side id="time-h" title="Time">
          <div class="time-facts">
            <Facts
              live
              items={[
                ['Time spent', minutes(issue.time_spent_minutes)],
                ['Remaining', minutes(issue.remaining_minutes)],
              ]}
            />
          </div>
          <Timer
            slug={slug}
            issueId={issueId}
            onStopped={() => {
              setLogged((n) => n + 1);
              reload();
            }}
          />
          <h3>Worklogs</h3>
          <Worklogs slug={slug} projectId={projectId} issueId={issueId} version={logged} onChanged={reload} />
        </Side>
        <AttachmentsSection target={{ slug, projectId, issueId }} version={files} onChanged={filesChanged} />
      </section>
      <div class="issue-feed">
        <ActivitySection
          slug={slug}
          projectId={projectId}
          issueId={issueId}
          version={version}
          filesVersion={files}
          onCommented={() => setCommented((n) => n + 1)}
          onFilesChanged={filesChanged}
        />
      </div>
    </article>
  );
}
