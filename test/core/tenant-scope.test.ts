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
  'baselines.repository.ts#claimDueSchedule': 'the baseline scheduler claims the next due schedule of any workspace',
  'subscriptions.repository.ts#claimDueSubscriptions': 'the subscription lifecycle job claims due subscriptions of every workspace',
  'refunds.repository.ts#claimStalePending': 'reconciliation claims stale pending payments of every workspace (and leases them)',
  'subscriptions.repository.ts#claimNoticeDue': 'the notices job claims subscriptions due a notice in every workspace',
  'checkout.repository.ts#findPaymentByOid': 'the PayTR callback names only merchant_oid; the settle after it is scoped by the payment row',
  'refunds.repository.ts#workspaceOfPayment': 'instance-admin routes name only the payment id; everything after it is scoped',
  'refunds.repository.ts#findRefundByKey': "an admin's Idempotency-Key is unique across the instance (a key reused on another payment answers 409)",
  'webhooks.repository.ts#deleteEventsBefore': 'event retention prunes old events of every workspace',
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

const QUERY_METHODS = new Set(['selectFrom', 'updateTable', 'deleteFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin']);
const CONDITION_METHODS = new Set(['where', 'whereRef', 'on', 'onRef', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin']);
const RAW_TABLE = /\b(?:from|join|update|delete\s+from)\s+([a-z_]+)\b/gi;

function nameOf(node: ts.Node): string | undefined {
  const parent = node.parent;
  if (ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) return node.name?.getText();
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && parent) {
    if (ts.isPropertyAssignment(parent) || ts.isVariableDeclaration(parent)) return parent.name.getText();
  }
  return undefined;
}

interface Unit {
  name: string;
  tables: Set<string>;
  scoped: boolean;
}

/** The named functions of a file, each with the tenant tables it reads or writes and whether it names workspace_id. */
function unitsOf(file: string, tenant: Set<string>): Unit[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const units: Unit[] = [];
  const visit = (node: ts.Node, unit: Unit | undefined) => {
    const name = nameOf(node);
    if (name !== undefined) {
      const own: Unit = { name, tables: new Set(), scoped: false };
      units.push(own);
      node.forEachChild((child) => visit(child, own));
      return;
    }
    if (unit && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const first = node.arguments[0];
      if (QUERY_METHODS.has(method) && first && ts.isStringLiteralLike(first)) {
        const table = first.text.split(/\s+as\s+/)[0]!;
        if (tenant.has(table)) unit.tables.add(table);
      }
      if (CONDITION_METHODS.has(method) && node.arguments.some((a) => a.getText().includes('workspace_id'))) unit.scoped = true;
    }
    if (unit && (ts.isTaggedTemplateExpression(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node))) {
      const text = node.getText();
      for (const match of text.matchAll(RAW_TABLE)) if (tenant.has(match[1]!)) unit.tables.add(match[1]!);
      if (text.includes('workspace_id')) unit.scoped = true;
    }
    node.forEachChild((child) => visit(child, unit));
  };
  visit(source, undefined);
  return units;
}

describe('tenant scope of the data layer', () => {
  const tenant = tenantTables();
  const files = repositoryFiles();

  it('knows the tenant tables and the repositories', () => {
    expect(tenant.has('issues')).toBe(true);
    expect(tenant.has('sla_trackers')).toBe(true);
    expect(tenant.has('users')).toBe(false);
    expect(files.length).toBeGreaterThan(8);
  });

  it('filters every query on a tenant table by workspace_id', () => {
    const unscoped: string[] = [];
    for (const file of files) {
      const base = file.slice(file.lastIndexOf('/') + 1);
      for (const unit of unitsOf(file, tenant)) {
        const key = `${base}#${unit.name}`;
        if (unit.tables.size > 0 && !unit.scoped && !(key in CROSS_WORKSPACE)) unscoped.push(`${key} (${[...unit.tables].join(', ')})`);
      }
    }
    expect(unscoped).toEqual([]);
  });

  it('lists only cross-workspace exceptions that exist', () => {
    const names = new Set(files.flatMap((file) => unitsOf(file, tenant).map((u) => `${file.slice(file.lastIndexOf('/') + 1)}#${u.name}`)));
    expect(Object.keys(CROSS_WORKSPACE).filter((key) => !names.has(key))).toEqual([]);
  });
});
