import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Architecture rule: every query on a tenant table (one that carries `workspace_id`) filters on `workspace_id`.
 *
 * Read from the source, not from a running suite, so a query no test happens to run is still checked. Each named
 * function of a repository file that reads, updates, deletes or joins a tenant table (through Kysely or raw `sql`)
 * must name `workspace_id` in a `where`/`on` condition or in its SQL text. Inserts are checked by the type checker:
 * `workspace_id` is a required column of every tenant table's `Insertable` type.
 *
 * The few queries that span workspaces on purpose (background scanners that claim due work across all tenants,
 * instance-admin reports) are listed below with their reason; their follow-up writes are scoped again.
 */
const CROSS_WORKSPACE: Record<string, string> = {
  'sla.trackers.repository.ts#claimCrossings': 'the sla.events scanner claims crossed thresholds of every workspace',
  'sla.trackers.repository.ts#claimPendingRetarget': 'the sla.events scanner claims pending re-targets of every workspace',
  'sla.trackers.repository.ts#countBreachedEverywhere': 'instance metrics: breached trackers of the whole instance',
  'sla-reports.repository.ts#recordBreaches': 'the sla.events duty records targets breached by time in every workspace',
  'sla-reports.repository.ts#claimSecondsTodo': 'the sla.events duty claims outcomes waiting for their working seconds in every workspace',
  'sla-reports.repository.ts#writeSeconds': 'writes back the rows claimSecondsTodo claimed (by id)',
  'baselines.repository.ts#claimDueSchedule': 'the baseline scheduler claims the next due schedule of any workspace',
  'subscriptions.repository.ts#claimDueSubscriptions': 'the subscription lifecycle job claims due subscriptions of every workspace',
  'refunds.repository.ts#claimStalePending': 'reconciliation claims stale pending payments of every workspace (and leases them)',
  'subscriptions.repository.ts#claimNoticeDue': 'the notices job claims subscriptions due a notice in every workspace',
  'checkout.repository.ts#findPaymentByOid': 'the PayTR callback names only merchant_oid; the settle after it is scoped by the payment row',
  'collection.repository.ts#claimChargesDue': 'the collection job claims renewal charges and retries due in every workspace',
  'collection.repository.ts#listClocks': 'the sandbox job runs the duties of every workspace on a test clock, each scoped to it',
  'payment-methods.repository.ts#claimExpiringCards': 'the card notices job claims default cards about to expire in every workspace',
  'refunds.repository.ts#workspaceOfPayment': 'instance-admin routes name only the payment id; everything after it is scoped',
  'refunds.repository.ts#findRefundByKey': "an admin's Idempotency-Key is unique across the instance (a key reused on another payment answers 409)",
  'webhooks.repository.ts#deleteEventsBefore': 'event retention prunes old events of every workspace',
  'work-items.labels.repository.ts#foldLabelCounts':
    'the labels.counts job folds the kept label counts of every workspace and drops those of labels that are gone',
  'attachments.repository.ts#claimExpiredReservations': 'the storage duty frees the space of abandoned uploads of every workspace',
  'attachments.repository.ts#claimDeletions': 'the storage duty removes the stored files of deleted attachments of every workspace',
  'attachments.repository.ts#deleteDeletions': 'deletes the rows claimDeletions claimed (by id), once their files are gone',
  'invitations.repository.ts#findByTokenHash': "an invitation's link names only its token (no workspace); everything after it is scoped by the row",
  'invitations.repository.ts#isRetiredToken': 'a token replaced by a resend answers 410: its link names no workspace either',
  'notifications.repository.ts#memberWorkspaces': 'the inbox spans the workspaces its user is a member of: this reads which they are',
  'notifications.repository.ts#countInbox': "one user's inbox, across the workspaces they are a member of now (n.workspace_id among them)",
  'notifications.repository.ts#countUnread': "one user's unread count, across the workspaces they are a member of now (n.workspace_id among them)",
  'notifications.repository.ts#markRead': "one user's notifications marked read, in the workspaces they are a member of now (n.workspace_id among them)",
  'notifications.repository.ts#updateOne': "one user's notification archived or snoozed, of a workspace they are a member of now (n.workspace_id among them)",
  'mail.repository.ts#claimMails': "the mail worker claims due mails of the instance (the outbox is the instance's; a mail may belong to no workspace)",
  'mail.repository.ts#recordOutcomes': 'writes back the outcomes of the mails claimMails claimed (by id)',
  'mail.repository.ts#listMails': "the instance admin's list of the mail outbox",
  'mail.repository.ts#deleteFinishedBefore': 'mail retention prunes old sent and failed mails of the instance',
  'mail.repository.ts#findMail': "the instance admin's (the CLI's) view of one mail, by id",
  'mail.repository.ts#rescheduleDigest': "moves a user's digest items of every workspace (the user changed their digest hour)",
  'mail.repository.ts#dueUsers': 'the mail duty finds users with notification mails due, in every workspace',
  'mail.repository.ts#takeDue': "the mail duty takes one user's due items of every workspace (one mail per user, not per workspace)",
  'work-items.counts.repository.ts#foldIssueCounts':
    'the issues.counts job moves the changes of the kept issue counts of every workspace into them and drops those left at zero',
};

const root = join(import.meta.dirname, '..', '..', 'src');

function tenantTables(): Set<string> {
  const tables = new Set<string>();
  const dir = join(root, 'db', 'tables');
  for (const file of readdirSync(dir)) {
    const source = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const scoped = new Set<string>();
    const mapping: [string, string][] = [];
    source.forEachChild((node) => {
      if (!ts.isInterfaceDeclaration(node)) return;
      for (const member of node.members) {
        if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
        if (member.name.text === 'workspace_id') scoped.add(node.name.text);
        if (node.name.text.endsWith('Tables') && member.type && ts.isTypeReferenceNode(member.type)) {
          mapping.push([member.name.text, member.type.typeName.getText(source)]);
        }
      }
    });
    for (const [table, type] of mapping) if (scoped.has(type)) tables.add(table);
  }
  return tables;
}

function repositoryFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.repository.ts')) files.push(path);
    }
  };
  walk(join(root, 'modules'));
  return files.sort();
}

const ROOT_METHODS = new Set(['selectFrom', 'updateTable', 'deleteFrom']);
const TABLE_METHODS = new Set([...ROOT_METHODS, 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin']);
const RAW_TABLE = /\b(?:from|join|update|delete\s+from)\s+([a-z_]+)\b/gi;

function nameOf(node: ts.Node): string | undefined {
  const parent = node.parent;
  if (ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) return node.name?.getText();
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && parent) {
    if (ts.isPropertyAssignment(parent) || ts.isVariableDeclaration(parent)) return parent.name.getText();
  }
  return undefined;
}

/** One query: a Kysely builder chain (`db.selectFrom(...)...`) or one raw `sql` text, in a named function. */
interface Statement {
  fn: string;
  line: number;
  tables: Set<string>;
  scoped: boolean;
}

const isCall = (node: ts.Node, methods: Set<string>): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && methods.has(node.expression.name.text);

/** The whole chain a query-starting call belongs to: `db.selectFrom('t')` up to its last `.where(...)` or `.execute()`. */
function chainTop(node: ts.Node): ts.Node {
  let top = node;
  for (;;) {
    const parent = top.parent;
    if (parent && ts.isPropertyAccessExpression(parent) && parent.expression === top) top = parent;
    else if (parent && (ts.isCallExpression(parent) || ts.isNonNullExpression(parent)) && parent.expression === top) top = parent;
    else if (parent && ts.isAwaitExpression(parent)) return top;
    else return top;
  }
}

/** The calls along a chain's spine, outermost first (not the calls inside their arguments). */
function spine(top: ts.Node): ts.CallExpression[] {
  const calls: ts.CallExpression[] = [];
  let node: ts.Node = top;
  for (;;) {
    if (ts.isCallExpression(node)) {
      calls.push(node);
      node = node.expression;
    } else if (ts.isPropertyAccessExpression(node) || ts.isNonNullExpression(node)) node = node.expression;
    else return calls;
  }
}

/** Whether a condition names workspace_id itself; a nested query (a subquery) is a statement of its own. */
function namesWorkspace(node: ts.Node): boolean {
  if (isCall(node, ROOT_METHODS)) return false;
  if ((ts.isStringLiteralLike(node) || ts.isIdentifier(node) || ts.isTemplateLiteralToken(node)) && node.getText().includes('workspace_id')) return true;
  return node.getChildren().some(namesWorkspace);
}

/**
 * Every query of a file that touches a tenant table, each with whether it filters on workspace_id itself: a
 * builder chain must name `workspace_id` in one of its own conditions (`where`, `on`, a join), a raw `sql` text in
 * its text. A subquery is checked on its own, so a count scoped by its property alone is found even when the
 * statement around it is scoped.
 */
function statementsOf(file: string, tenant: Set<string>): Statement[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const statements: Statement[] = [];
  const seenChains = new Set<ts.Node>();
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node, fn: string | undefined) => {
    const name = nameOf(node) ?? fn;
    if (name && isCall(node, ROOT_METHODS)) {
      const top = chainTop(node);
      if (!seenChains.has(top)) {
        seenChains.add(top);
        const tables = new Set<string>();
        let scoped = false;
        for (const call of spine(top)) {
          const method = (call.expression as ts.PropertyAccessExpression).name.text;
          const first = call.arguments[0];
          if (TABLE_METHODS.has(method) && first && ts.isStringLiteralLike(first)) {
            const table = first.text.split(/\s+as\s+/)[0]!;
            if (tenant.has(table)) tables.add(table);
          }
          if (method !== 'select' && method !== 'returning' && call.arguments.some(namesWorkspace)) scoped = true;
        }
        if (tables.size > 0) statements.push({ fn: name, line: line(node), tables, scoped });
      }
    }
    if (name && (ts.isTaggedTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))) {
      // The outermost text only: `sql` fragments spliced into it are part of its one statement.
      const text = node.getText();
      const tables = new Set([...text.matchAll(RAW_TABLE)].map((m) => m[1]!).filter((t) => tenant.has(t)));
      if (tables.size > 0) statements.push({ fn: name, line: line(node), tables, scoped: text.includes('workspace_id') });
      return;
    }
    node.forEachChild((child) => visit(child, name));
  };
  visit(source, undefined);
  return statements;
}

/** An allow-list key names a whole function (`file#fn`) or its statements on one table (`file#fn:table`). */
const allowed = (base: string, st: Statement, table: string) => `${base}#${st.fn}` in CROSS_WORKSPACE || `${base}#${st.fn}:${table}` in CROSS_WORKSPACE;

describe('tenant scope of the data layer', () => {
  const tenant = tenantTables();
  const files = repositoryFiles();

  it('knows the tenant tables and the repositories', () => {
    expect(tenant.has('issues')).toBe(true);
    expect(tenant.has('sla_trackers')).toBe(true);
    expect(tenant.has('users')).toBe(false);
    expect(files.length).toBeGreaterThan(8);
  });

  it('filters every query on a tenant table by workspace_id, statement by statement', () => {
    const unscoped: string[] = [];
    for (const file of files) {
      const base = file.slice(file.lastIndexOf('/') + 1);
      for (const st of statementsOf(file, tenant)) {
        if (st.scoped) continue;
        const tables = [...st.tables].filter((table) => !allowed(base, st, table));
        if (tables.length > 0) unscoped.push(`${base}:${st.line} ${st.fn} (${tables.join(', ')})`);
      }
    }
    expect(unscoped).toEqual([]);
  });

  it('lists only cross-workspace exceptions that exist', () => {
    const names = new Set(
      files.flatMap((file) => {
        const base = file.slice(file.lastIndexOf('/') + 1);
        return statementsOf(file, tenant).flatMap((st) => [`${base}#${st.fn}`, ...[...st.tables].map((t) => `${base}#${st.fn}:${t}`)]);
      }),
    );
    expect(Object.keys(CROSS_WORKSPACE).filter((key) => !names.has(key))).toEqual([]);
  });
});
