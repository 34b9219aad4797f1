import type { Db, Executor, Tx } from '../../db/database.js';
import { conflictIfUnique } from '../../db/pg-errors.js';
import type { Actor } from '../../kernel/actor.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, conflict, type FieldError, invalid, notFound } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import type { PlanGate } from '../../kernel/plan-gate.js';
import { iso } from '../../kernel/time.js';
import type { IdentityService } from '../identity/index.js';
import type { IssueCondition, IssueFilterProvider, IssueSortProvider, WorkItemsService } from '../work-items/index.js';
import {
  assertChoiceProperty,
  CHOICE_TYPES,
  checkValue,
  type CustomPropertyType,
  filterClause,
  nameKey,
  optionErrors,
  readFilterQuery,
  renameMapping,
  stripOptions,
  unstorableText,
} from './custom-properties.domain.js';
import type { CustomPropertiesRepository } from './custom-properties.repository.js';
import { propertyView } from './custom-properties.views.js';

export interface CustomPropertiesDeps {
  db: Db;
  repo: CustomPropertiesRepository;
  clock: Clock;
  identity: Pick<IdentityService, 'access'>;
  workItems: Pick<WorkItemsService, 'findIssue' | 'findProject'>;
  planGate: Pick<PlanGate<Tx>, 'assertFeature'>;
}

const NAME_TAKEN = 'A custom property with this name already exists in the project';

function assertStorable(fields: Record<string, string | undefined>) {
  const errors: FieldError[] = [];
  for (const [path, value] of Object.entries(fields)) {
    const bad = value === undefined ? null : unstorableText(value);
    if (bad) errors.push({ path, message: bad });
  }
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

function assertOptions(type: CustomPropertyType, options: readonly string[] | undefined) {
  const errors = optionErrors(type, options);
  if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
}

export type CustomPropertiesService = ReturnType<typeof createCustomPropertiesService>;

export function createCustomPropertiesService(deps: CustomPropertiesDeps) {
  const { db, repo, clock, identity, workItems, planGate } = deps;

  async function propertyOf(workspaceId: string, propertyId: string, tx: Executor, lock?: 'update' | 'share') {
    const property = await repo.findProperty(tx, workspaceId, propertyId, lock);
    if (!property) throw notFound('Custom property');
    return property;
  }

  /**
   * `custom.<propertyId>[.gte|.lte]` on the issue list: each entry is one EXISTS on the issue's value (AND). On the
   * workspace-wide list (`projectId` null) a property of any project of the workspace: other projects' issues have no
   * value of it, so they match no value and sort last.
   */
  const issueFilter: IssueFilterProvider = async ({ tx, workspaceId, projectId, query }) => {
    const { filters, errors } = readFilterQuery(query);
    const properties = await repo.findProjectProperties(tx, workspaceId, projectId, [...new Set(filters.map((f) => f.propertyId))]);
    const byId = new Map(properties.map((p) => [p.id, p]));
    const conditions: IssueCondition[] = [];
    for (const filter of filters) {
      const path = `/querystring/${filter.key}`;
      const property = byId.get(filter.propertyId);
      if (!property) {
        errors.push({ path, message: `is not a custom property of this ${projectId === null ? 'workspace' : 'project'}` });
        continue;
      }
      const clause = filterClause(property, filter);
      if (typeof clause === 'string') errors.push({ path, message: clause });
      else conditions.push(repo.issueCondition(clause));
    }
    if (errors.length) throw new AppError('validation_failed', `${errors[0]!.path} ${errors[0]!.message}`, errors);
    return conditions;
  };

  /** `order_by=custom.<propertyId>`: issues sorted by their value of a property of the project (multi_select: the list). */
  const issueSort: IssueSortProvider = async ({ tx, workspaceId, projectId, key }) => {
    if (!key.startsWith('custom.')) return null;
    const propertyId = key.slice('custom.'.length);
    const [property] = isUuid(propertyId) ? await repo.findProjectProperties(tx, workspaceId, projectId, [propertyId]) : [];
    if (!property) throw invalid('/querystring/order_by', `"${propertyId}" is not a custom property of this ${projectId === null ? 'workspace' : 'project'}`);
    return repo.sortKey(property.id, property.type);
  };

  return {
    issueFilter,
    issueSort,

    async listProperties(actor: Actor, slug: string, projectId: string) {
      const ws = await identity.access(actor, slug, 'read');
      await workItems.findProject(db, ws.workspaceId, projectId);
      return (await repo.listProperties(db, ws.workspaceId, projectId)).map(propertyView);
    },

    async createProperty(
      actor: Actor,
      slug: string,
      projectId: string,
      input: { name: string; description?: string; type: CustomPropertyType; options?: string[]; is_required?: boolean },
    ) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await workItems.findProject(tx, ws.workspaceId, projectId);
        await planGate.assertFeature(tx, ws.workspaceId, 'custom_properties');
        const name = input.name.trim();
        assertStorable({ '/name': name, '/description': input.description });
        assertOptions(input.type, input.options);
        const now = clock.now();
        const property = await repo.insertProperty(tx, {
          id: newId(),
          workspace_id: ws.workspaceId,
          project_id: projectId,
          name,
          name_key: nameKey(name),
          description: input.description ?? '',
          type: input.type,
          options: input.options ?? [],
          is_required: input.is_required ?? false,
          created_at: now,
          updated_at: now,
        });
        if (!property) throw conflict(NAME_TAKEN);
        return propertyView(property);
      });
    },

    async updateProperty(
      actor: Actor,
      slug: string,
      propertyId: string,
      input: {
        name?: string;
        description?: string;
        options?: string[];
        is_required?: boolean;
        type?: CustomPropertyType;
        rename_options?: Record<string, string>;
      },
      force: boolean,
    ) {
      try {
        return await db.transaction().execute(async (tx) => {
          const ws = await identity.access(actor, slug, 'manage', tx);
          const property = await propertyOf(ws.workspaceId, propertyId, tx, 'update');
          if (input.type !== undefined && input.type !== property.type) {
            throw invalid('/type', `cannot change: the property is ${property.type} and stays so`);
          }
          const name = input.name?.trim();
          assertStorable({ '/name': name, '/description': input.description });
          const now = clock.now();
          let renamedOptions: string[] | undefined;
          if (input.rename_options !== undefined) {
            if (input.options !== undefined) throw invalid('/rename_options', 'send rename_options or options, not both');
            const mapping = renameMapping(property, input.rename_options);
            renamedOptions = property.options.map((o) => mapping.get(o) ?? o);
            assertOptions(property.type, renamedOptions);
            await repo.remapValues(tx, ws.workspaceId, property.id, [...mapping.keys()], [...mapping.values()], now);
          }
          if (input.options !== undefined) {
            assertOptions(property.type, input.options);
            const kept = new Set(input.options);
            const removed = property.options.filter((o) => !kept.has(o));
            if (removed.length && CHOICE_TYPES.has(property.type)) {
              const using = await repo.valuesUsingOptions(tx, ws.workspaceId, property.id, property.type, removed);
              if (using.length && !force) {
                throw new AppError(
                  'option_in_use',
                  `${using.length} issue value(s) use the option(s) being removed (${removed.join(', ')}); ` +
                    'send ?force=true to remove them from those values too',
                );
              }
              const gone = new Set(removed);
              for (const row of using) {
                const next = stripOptions(property.type, row.value, gone);
                if (!next.keep) await repo.deleteValue(tx, ws.workspaceId, row.issue_id, property.id);
                else {
                  const checked = checkValue({ type: property.type, options: input.options }, next.value);
                  if (!checked.ok) throw new Error(`stripped value no longer valid: ${checked.message}`);
                  await repo.upsertValue(tx, {
                    workspace_id: ws.workspaceId,
                    issue_id: row.issue_id,
                    property_id: property.id,
                    value: checked.value,
                    indexed: checked.indexed,
                    updated_at: now,
                  });
                }
              }
            }
          }
          const updated = await repo.updateProperty(tx, ws.workspaceId, property.id, {
            ...(name !== undefined && { name, name_key: nameKey(name) }),
            ...(input.description !== undefined && { description: input.description }),
            ...(input.options !== undefined && { options: input.options }),
            ...(renamedOptions !== undefined && { options: renamedOptions }),
            ...(input.is_required !== undefined && { is_required: input.is_required }),
            updated_at: now,
          });
          return propertyView(updated);
        });
      } catch (error) {
        throw conflictIfUnique(error, NAME_TAKEN);
      }
    },

    async usage(actor: Actor, slug: string, propertyId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const property = await propertyOf(ws.workspaceId, propertyId, db);
      return repo.usage(db, ws.workspaceId, property.id, property.type, CHOICE_TYPES.has(property.type) ? property.options : []);
    },

    /** Values that use a `from` option use `into` instead, and the `from` options are removed (one transaction). */
    async mergeOptions(actor: Actor, slug: string, propertyId: string, input: { from: string[]; into: string; dry_run?: boolean }) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        const property = await propertyOf(ws.workspaceId, propertyId, tx, 'update');
        assertChoiceProperty(property, '/from');
        const from = [...new Set(input.from)];
        if (!property.options.includes(input.into)) throw invalid('/into', `"${input.into}" is not an option of this property`);
        for (const [i, option] of from.entries()) {
          if (option === input.into) throw invalid(`/from/${i}`, 'must not contain the option merged into');
          if (!property.options.includes(option)) throw invalid(`/from/${i}`, `"${option}" is not an option of this property`);
        }
        const affected = await repo.countUsing(tx, ws.workspaceId, property.id, from);
        if (!input.dry_run) {
          const now = clock.now();
          await repo.remapValues(
            tx,
            ws.workspaceId,
            property.id,
            from,
            from.map(() => input.into),
            now,
          );
          const gone = new Set(from);
          await repo.updateProperty(tx, ws.workspaceId, property.id, { options: property.options.filter((o) => !gone.has(o)), updated_at: now });
        }
        return { affected_issues: affected };
      });
    },

    async deleteProperty(actor: Actor, slug: string, propertyId: string) {
      await db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'manage', tx);
        await propertyOf(ws.workspaceId, propertyId, tx, 'update');
        await repo.deleteProperty(tx, ws.workspaceId, propertyId);
      });
    },

    async listValues(actor: Actor, slug: string, projectId: string, issueId: string) {
      const ws = await identity.access(actor, slug, 'read');
      const issue = await workItems.findIssue(db, ws.workspaceId, issueId);
      if (issue.project_id !== projectId) throw notFound('Issue');
      const [properties, values] = await Promise.all([repo.listProperties(db, ws.workspaceId, projectId), repo.listValues(db, ws.workspaceId, issueId)]);
      const byProperty = new Map(values.map((v) => [v.property_id, v.value]));
      return properties.map((p) => ({ property_id: p.id, name: p.name, type: p.type, value: byProperty.get(p.id) ?? null }));
    },

    async setValue(actor: Actor, slug: string, issueId: string, propertyId: string, value: unknown) {
      return db.transaction().execute(async (tx) => {
        const ws = await identity.access(actor, slug, 'write_items', tx);
        const issue = await workItems.findIssue(tx, ws.workspaceId, issueId);
        // Shared lock: a concurrent change of the options waits, so the value is checked against the options it keeps.
        const property = await propertyOf(ws.workspaceId, propertyId, tx, 'share');
        if (property.project_id !== issue.project_id) throw notFound('Custom property');
        const now = clock.now();
        if (value === null) {
          if (property.is_required) throw new AppError('value_required', `${property.name} is required: its value cannot be cleared`);
          await repo.deleteValue(tx, ws.workspaceId, issueId, propertyId);
          return { issue_id: issueId, property_id: propertyId, value: null, updated_at: iso(now) };
        }
        const checked = checkValue(property, value);
        if (!checked.ok) throw invalid('/value', checked.message);
        const stored = await repo.upsertValue(tx, {
          workspace_id: ws.workspaceId,
          issue_id: issueId,
          property_id: propertyId,
          value: checked.value,
          indexed: checked.indexed,
          updated_at: now,
        });
        return { issue_id: stored.issue_id, property_id: stored.property_id, value: stored.value, updated_at: iso(stored.updated_at) };
      });
    },
  };
}
