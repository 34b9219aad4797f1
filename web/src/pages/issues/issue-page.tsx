/** One issue: its heading, the SLA panel, dates and estimates, time (timer, worklogs), custom values, comments and history. */
import { useState } from 'preact/hooks';
import { api, unwrap, when } from '../../api.js';
import { Badge, PageTitle, Show, useLoad } from '../../ui.js';
import { Comments } from './comments.js';
import { CustomValues } from './custom-values.js';
import { IssueHistory } from './history.js';
import { Planning } from './planning.js';
import { SlaTracker } from './sla-tracker.js';
import { Timer, Worklogs } from './worklogs.js';

export function IssuePage({ slug, projectId, issueId }: { slug: string; projectId: string; issueId: string }) {
  const issue = useLoad(
    () => unwrap(api().GET('/api/workspaces/{slug}/projects/{projectId}/issues/{issueId}/', { params: { path: { slug, projectId, issueId } } })),
    [issueId],
  );
  // Bumped when a comment is added: the tracker (a response) and the history reload.
  const [version, setVersion] = useState(0);
  // Bumped when a timer stops (it logs a worklog): the worklogs reload.
  const [logged, setLogged] = useState(0);
  // A plan change (history) or time logged (time spent, remaining): the issue reads anew.
  const planned = () => {
    void issue.reload();
    setVersion((v) => v + 1);
  };
  return (
    <section>
      <Show state={issue}>
        {(i) => (
          <>
            <PageTitle>{`#${i.sequence_id} ${i.name}`}</PageTitle>
            <p class="meta">
              <Badge tone="info">{i.state_group}</Badge> <span class={`prio ${i.priority}`}>{i.priority}</span> · created {when(i.created_at)}
            </p>
            {i.description ? <p class="description">{i.description}</p> : null}
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
          <Comments slug={slug} projectId={projectId} issueId={issueId} onAdded={() => setVersion((v) => v + 1)} />
        </div>
      </div>
      <h2>History</h2>
      <IssueHistory slug={slug} projectId={projectId} issueId={issueId} version={version} />
    </section>
  );
}
