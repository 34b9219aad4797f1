/**
 * One issue: its heading with labels and a Blocked badge, labels and parent, sub-issues and relations, the SLA panel,
 * dates and estimates, time (timer, worklogs), custom values, comments and history; its files (attachments.tsx):
 * files dropped anywhere on the page or pasted (a screenshot, outside text fields) attach to it. The files and the
 * comments load as a chunk of their own (issue-files.tsx).
 */
import { useState } from 'preact/hooks';
import { api, unwrap, when } from '../../api.js';
import { LabelChips, useLabels } from '../../components/label-chips.js';
import { lazy } from '../../lazy.js';
import { Badge, PageTitle, Show, useLoad } from '../../ui.js';
import { CustomValues } from './custom-values.js';
import { AttachmentsSection, CommentsSection } from './issue-files.js';
import { ParentPicker, SubIssues } from './hierarchy.js';
import { IssueHistory } from './history.js';
import { IssueLabels } from './issue-labels.js';
import { Planning } from './planning.js';
import { Relations } from './relations.js';
import { SlaTracker } from './sla-tracker.js';
import { Timer, Worklogs } from './worklogs.js';

// Watch / stop watching and the watchers (contract 26.1): a small chunk of its own.
const Watch = lazy(() => import('./watch.js').then((m) => m.Watch));

export function IssuePage({ slug, projectId, issueId }: { slug: string; projectId: string; issueId: string }) {
  const issue = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId } } })),
    [issueId],
  );
  const labels = useLabels(slug, projectId);
  const project = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/', { params: { path: { slug, projectId } } })),
    [slug, projectId],
  );
  const identifier = project.data?.identifier;
  // Bumped when a comment is added: the tracker (a response) and the history reload.
  const [version, setVersion] = useState(0);
  // Bumped when a timer stops (it logs a worklog): the worklogs reload.
  const [logged, setLogged] = useState(0);
  // A plan change (history) or time logged (time spent, remaining): the issue reads anew.
  const planned = () => {
    void issue.reload();
    setVersion((v) => v + 1);
  };
  const reread = () => void issue.reload();
  // Bumped when a file is stored or deleted: the Attachments section and the comments (their files) reload.
  const [files, setFiles] = useState(0);
  const filesChanged = () => setFiles((n) => n + 1);
  return (
    <section class="issue-page">
      <Show state={issue}>
        {(i) => (
          <>
            <PageTitle>{`#${i.sequence_id} ${i.name}`}</PageTitle>
            <p class="meta">
              <Badge tone="info">{i.state_group}</Badge> {i.blocked ? <Badge tone="bad">Blocked</Badge> : null}{' '}
              <span class={`prio ${i.priority}`}>{i.priority}</span> · created {when(i.created_at)}
            </p>
            <LabelChips ids={i.label_ids} labels={labels.data} />
            <div class="watch-row">
              <Watch slug={slug} projectId={projectId} issueId={issueId} watching={i.watching} />
            </div>
            {i.description ? <p class="description">{i.description}</p> : null}
            <AttachmentsSection target={{ slug, projectId, issueId }} version={files} onChanged={filesChanged} />
            <div class="grid2">
              <section aria-labelledby="labels-h">
                <h2 id="labels-h">Labels</h2>
                <IssueLabels slug={slug} projectId={projectId} issue={i} labels={labels.data} onSaved={planned} />
              </section>
              <section aria-labelledby="parent-h">
                <h2 id="parent-h">Parent</h2>
                <ParentPicker slug={slug} issue={i} identifier={identifier} onSaved={planned} />
              </section>
            </div>
            <div class="grid2">
              <section aria-labelledby="sub-issues-h">
                <h2 id="sub-issues-h">Sub-issues</h2>
                <SubIssues slug={slug} issue={i} identifier={identifier} onChanged={reread} />
              </section>
              <section aria-labelledby="relations-h">
                <h2 id="relations-h">Relations</h2>
                <Relations slug={slug} projectId={projectId} issueId={issueId} onChanged={reread} />
              </section>
            </div>
          </>
        )}
      </Show>
      <div class="grid2">
        <div>
          <h2>Dates and estimate</h2>
          <Show state={issue}>{(i) => <Planning slug={slug} projectId={projectId} issue={i} onSaved={planned} />}</Show>
        </div>
        <div>
          <h2>Time</h2>
          <Timer
            slug={slug}
            issueId={issueId}
            onStopped={() => {
              setLogged((n) => n + 1);
              void issue.reload();
            }}
          />
          <h3>Worklogs</h3>
          <Worklogs slug={slug} projectId={projectId} issueId={issueId} version={logged} onChanged={() => void issue.reload()} />
        </div>
      </div>
      <div class="grid2">
        <div>
          <h2>SLA</h2>
          <SlaTracker slug={slug} issueId={issueId} version={version} />
          <h2>Custom values</h2>
          <CustomValues slug={slug} projectId={projectId} issueId={issueId} />
        </div>
        <div>
          <h2>Comments</h2>
          <CommentsSection
            slug={slug}
            projectId={projectId}
            issueId={issueId}
            filesVersion={files}
            onAdded={() => setVersion((v) => v + 1)}
            onFilesChanged={filesChanged}
          />
        </div>
      </div>
      <h2>History</h2>
      <IssueHistory slug={slug} projectId={projectId} issueId={issueId} version={version} />
    </section>
  );
}
