import type { Priority, RelationType, StateGroup } from './demo.plan.js';

/**
 * What the demo's steps need from the service, as the API shows it. Two implementations: in process through the
 * module services the routes use (`demo.in-process.ts`), and over HTTP through the typed client (`demo.http.ts`).
 * The steps are written once against this seam, so both paths make the same demo and both are resumable.
 */
export interface DemoBackend {
  /** Where the demo goes, for the messages: "the embedded database in ./data", "http://127.0.0.1:3000". */
  readonly where: string;
  /**
   * The instant the next changes are recorded at. In process the demo's issues get a past of two weeks (history,
   * breached SLA targets, baselines taken days apart); over HTTP the server's clock is used and this is ignored.
   * `null`: the present.
   */
  at(when: Date | null): void;
  /** Whether changes can be recorded at a past instant (see `at`). */
  readonly timeTravel: boolean;

  /** Signs the demo user in (creating the account if needed); every later call acts as that user. */
  useDemoUser(account: { email: string; password: string; display_name: string }): Promise<{ created: boolean }>;
  /** Creates an account unless one with this e-mail exists; `false` when it existed. */
  ensureUser(account: { email: string; password: string; display_name: string }): Promise<boolean>;

  getWorkspace(slug: string): Promise<{ id: string; created_at: string; time_zone: string } | null>;
  createWorkspace(input: { name: string; slug: string }): Promise<{ id: string; created_at: string }>;
  updateWorkspace(slug: string, input: { time_zone: string }): Promise<void>;
  listMembers(slug: string): Promise<{ user_id: string; email: string; role: string }[]>;
  addMember(slug: string, input: { email: string; role: 'admin' | 'member' | 'guest' }): Promise<void>;

  getSubscription(slug: string): Promise<{ status: string; plan_slug: string } | null>;
  /**
   * Checkout of a plan and payment on the sandbox provider's page with a test card (19.7; default the one that always
   * pays), as a customer would click it; the card is stored and becomes the default (19.1).
   */
  buyOnSandbox(slug: string, input: { plan_slug: string; billing_interval: 'month' | 'year' }, card?: string): Promise<{ merchant_oid: string }>;
  /** Runs the billing duties that are due now (period ends, renewal charges, retries); over HTTP the service runs its own. */
  runBillingDuties(): Promise<void>;
  /** The workspace's subscription as the API shows it, with its period and dunning. */
  getBilling(slug: string): Promise<{ status: string; current_period_end: string; dunning: { attempts: number } | null } | null>;
  startTrial(slug: string, input: { plan_slug: string }): Promise<void>;
  /** Moves the workspace's sandbox test clock to `to` and runs the billing duties due meanwhile (contract 19.7). */
  advanceTestClock(slug: string, to: string): Promise<void>;
  /** Whether the payment provider is the built-in sandbox (else the demo starts a trial instead of paying). */
  readonly sandboxPayments: boolean;

  listCalendars(slug: string): Promise<{ id: string; name: string }[]>;
  createCalendar(slug: string, input: CalendarInput): Promise<{ id: string; name: string }>;
  listPolicies(slug: string): Promise<{ id: string; name: string }[]>;
  createPolicy(slug: string, input: PolicyInput): Promise<{ id: string; name: string }>;

  listProjects(slug: string): Promise<{ id: string; identifier: string; sla_policy_id: string | null }[]>;
  createProject(
    slug: string,
    input: { name: string; identifier: string; description?: string; sla_policy_id?: string | null },
  ): Promise<{ id: string; identifier: string; sla_policy_id: string | null }>;
  listStates(slug: string, projectId: string): Promise<StateView[]>;
  createState(slug: string, projectId: string, input: { name: string; group: StateGroup; pauses_sla?: boolean }): Promise<StateView>;

  listProperties(slug: string, projectId: string): Promise<{ id: string; name: string }[]>;
  createProperty(
    slug: string,
    projectId: string,
    input: { name: string; type: 'select' | 'number' | 'date' | 'multi_select' | 'checkbox'; options?: string[] },
  ): Promise<{ id: string; name: string }>;

  /** Every issue of the project (all pages), oldest first. */
  listIssues(slug: string, projectId: string): Promise<IssueView[]>;
  createIssue(
    slug: string,
    projectId: string,
    input: {
      name: string;
      description?: string;
      priority: Priority;
      state_id: string;
      label_ids?: string[];
      parent_id?: string;
      assignee_ids?: string[];
    } & Partial<IssuePlanning>,
  ): Promise<IssueView>;
  updateIssue(
    slug: string,
    projectId: string,
    issueId: string,
    input: { state_id?: string; priority?: Priority; label_ids?: string[]; parent_id?: string; assignee_ids?: string[] } & Partial<IssuePlanning>,
  ): Promise<IssueView>;
  /** Every worklog of the issue (all pages). */
  listWorklogs(slug: string, projectId: string, issueId: string): Promise<{ user_id: string; started_at: string }[]>;
  createWorklog(
    slug: string,
    projectId: string,
    issueId: string,
    input: { user_id: string; started_at: string; duration_minutes: number; note: string },
  ): Promise<void>;
  listValues(slug: string, projectId: string, issueId: string): Promise<{ property_id: string; value: unknown }[]>;
  setValue(slug: string, issueId: string, propertyId: string, value: unknown): Promise<void>;
  listComments(slug: string, projectId: string, issueId: string): Promise<{ body: string }[]>;
  createComment(slug: string, projectId: string, issueId: string, body: string): Promise<void>;
  /** The issue's attachments (with its comments'), newest first. */
  listAttachments(slug: string, projectId: string, issueId: string): Promise<{ filename: string }[]>;
  /** Uploads a file to the issue (contract 25.1). */
  uploadAttachment(slug: string, projectId: string, issueId: string, file: { filename: string; bytes: Buffer }): Promise<void>;

  listLabels(slug: string, projectId: string): Promise<{ id: string; name: string }[]>;
  createLabel(slug: string, projectId: string, input: { name: string; color: string; description: string }): Promise<{ id: string; name: string }>;
  /** The relations of an issue, from its side (each pair once, whichever side created it). */
  listRelations(slug: string, projectId: string, issueId: string): Promise<{ type: string; issue: { id: string } }[]>;
  createRelation(slug: string, projectId: string, issueId: string, input: { type: RelationType; issue_id: string }): Promise<void>;

  /** The caller's views and the shared ones (contract 23.3). */
  listViews(slug: string): Promise<{ id: string; name: string }[]>;
  createView(
    slug: string,
    input: { name: string; project_id: string | null; filters: Record<string, string[]>; order_by: string | null; shared: boolean },
  ): Promise<{ id: string; name: string }>;

  listBaselines(slug: string, projectId: string): Promise<{ id: string; name: string }[]>;
  createBaseline(slug: string, projectId: string, name: string): Promise<{ id: string; name: string }>;

  listWebhooks(slug: string): Promise<{ id: string; url: string; is_active: boolean }[]>;
  createWebhook(slug: string, input: { url: string; description: string; event_types: string[] }): Promise<{ id: string; url: string; is_active: boolean }>;
  pauseWebhook(slug: string, id: string): Promise<void>;

  /**
   * Acts as another member of the demo workspace (an account with the demo password), for the changes that tell the
   * demo user something (contract 26): the demo user is never told of its own changes.
   */
  asMember(account: { email: string; password: string }): Promise<MemberActions>;
  /** The demo user's inbox (not archived; snoozed ones are hidden until they wake). */
  listNotifications(): Promise<{ id: string; kind: string; read_at: string | null; issue: { id: string } | null }[]>;
  markNotificationsRead(ids: string[]): Promise<void>;
  snoozeNotification(id: string, until: string): Promise<void>;
  /** The workspace's pending invitations (contract 26.4). */
  listInvitations(slug: string): Promise<{ id: string; email: string }[]>;
  createInvitation(slug: string, input: { email: string; role: 'admin' | 'member' | 'guest' }): Promise<void>;

  /** The number of breached and at-risk SLA trackers of the workspace now. */
  slaCounts(slug: string): Promise<{ breached: number; atRisk: number }>;

  close(): Promise<void>;
}

/** What the demo does as another member. */
export interface MemberActions {
  createComment(slug: string, projectId: string, issueId: string, body: string): Promise<void>;
  updateIssue(slug: string, projectId: string, issueId: string, input: { assignee_ids?: string[]; priority?: Priority }): Promise<void>;
}

export interface StateView {
  id: string;
  name: string;
  group: string;
  sequence: number;
}

export interface IssuePlanning {
  start_date: string | null;
  target_date: string | null;
  estimate_minutes: number | null;
}

export interface IssueView extends IssuePlanning {
  id: string;
  sequence_id: number;
  name: string;
  state_id: string;
  priority: string;
  label_ids: string[];
  assignee_ids: string[];
  parent_id: string | null;
}

export interface CalendarInput {
  name: string;
  time_zone: string;
  working_hours: { day: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun'; start: string; end: string }[];
  holidays: { date: string; name: string; recurring: boolean }[];
}

export interface PolicyInput {
  name: string;
  description?: string;
  is_default?: boolean;
  calendar_id?: string | null;
  at_risk_percent?: number | null;
  rules: { priority: 'urgent' | 'high' | 'medium' | 'low'; response_time_h: number; resolution_time_h: number }[];
}
