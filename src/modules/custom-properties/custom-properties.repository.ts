import { type Expression, type ExpressionBuilder, type Insertable, type SqlBool, sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { prepared, queryBuilder as qb } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import type { CustomPropertyType } from '../../db/tables/custom-properties.js';
import type { FilterClause, IndexedValue } from './custom-properties.domain.js';

export type CustomPropertiesRepository = ReturnType<typeof customPropertiesRepository>;

/** The issue-list builder's view: `i` is the issues table. */
type IssueEb = ExpressionBuilder<Database & { i: Database['issues'] }, 'i'>;

export const propertyColumns = [
  'id',
  'workspace_id',
  'project_id',
  'name',
  'description',
  'type',
  'options',
  'is_required',
  'created_at',
  'updated_at',
] as const;

/** A project's properties and an issue's values: read by every custom-values route (compiled once). */
const propertiesOf = prepared(
  (workspaceId: string, projectId: string) =>
    qb
      .selectFrom('custom_properties')
      .select(propertyColumns)
      .where('workspace_id', '=', workspaceId)
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('id'),
  2,
);
const valuesOf = prepared(
  (workspaceId: string, issueId: string) =>
    qb.selectFrom('custom_values').select(['property_id', 'value']).where('workspace_id', '=', workspaceId).where('issue_id', '=', issueId),
  2,
);

export function customPropertiesRepository() {
  return {
    listProperties(tx: Executor, workspaceId: string, projectId: string) {
      return propertiesOf(tx, workspaceId, projectId);
    },

    /** A property of the workspace; `lock` takes a row lock ('update' for definition changes, 'share' for values). */
    findProperty(tx: Executor, workspaceId: string, propertyId: string, lock?: 'update' | 'share') {
      let q = tx.selectFrom('custom_properties').select(propertyColumns).where('workspace_id', '=', workspaceId).where('id', '=', propertyId);
      if (lock === 'update') q = q.forUpdate();
      if (lock === 'share') q = q.forShare();
      return q.executeTakeFirst();
    },

    /** Properties of the project among `ids`; with `projectId` null, of any project of the workspace. */
    findProjectProperties(tx: Executor, workspaceId: string, projectId: string | null, ids: string[]) {
      if (!ids.length) return Promise.resolve([]);
      let q = tx.selectFrom('custom_properties').select(['id', 'type', 'options']).where('workspace_id', '=', workspaceId).where('id', 'in', ids);
      if (projectId !== null) q = q.where('project_id', '=', projectId);
      return q.execute();
    },

    /** Inserts, or returns undefined when the name is taken in the project (case-insensitively). */
    insertProperty(tx: Executor, p: Insertable<Database['custom_properties']>) {
      return tx
        .insertInto('custom_properties')
        .values(p)
        .onConflict((oc) => oc.columns(['project_id', 'name_key']).doNothing())
        .returning(propertyColumns)
        .executeTakeFirst();
    },

    /** The type and project of a property never change: a patch names only what may. */
    updateProperty(
      tx: Executor,
      workspaceId: string,
      propertyId: string,
      patch: Pick<Updateable<Database['custom_properties']>, 'name' | 'name_key' | 'description' | 'options' | 'is_required' | 'updated_at'>,
    ) {
      return tx
        .updateTable('custom_properties')
        .set(patch)
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', propertyId)
        .returning(propertyColumns)
        .executeTakeFirstOrThrow();
    },

    /** Deletes the property; its values go with it (ON DELETE CASCADE), in the caller's transaction. */
    deleteProperty(tx: Executor, workspaceId: string, propertyId: string) {
      return tx.deleteFrom('custom_properties').where('workspace_id', '=', workspaceId).where('id', '=', propertyId).execute();
    },

    /** Values of a property that use any of `options`, locked for the change that follows. */
    valuesUsingOptions(tx: Executor, workspaceId: string, propertyId: string, type: CustomPropertyType, options: string[]) {
      let q = tx.selectFrom('custom_values').select(['issue_id', 'value']).where('workspace_id', '=', workspaceId).where('property_id', '=', propertyId);
      q = type === 'select' ? q.where('value_text', 'in', options) : q.where(sql<SqlBool>`value_options && ${sql.val(options)}::text[]`);
      return q.orderBy('issue_id').forUpdate().execute();
    },

    /**
     * How many issues have a value, and how many use each option (zeros included, in the options' order). A select
     * value is always one of the options, so its count groups by the hash the `(property_id, md5(value_text))` index
     * holds (an index-only scan: the index carries workspace_id too, migration 0920); a multi_select counts each
     * option's list through a GIN lookup. Every count is scoped by workspace as well as by property (ARCHITECTURE.md).
     */
    async usage(tx: Executor, workspaceId: string, propertyId: string, type: CustomPropertyType, options: string[]) {
      const total = await tx
        .selectFrom('custom_values')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('property_id', '=', propertyId)
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      let counts = new Map<string, number>();
      if (type === 'select' && options.length) {
        const { rows } = await sql<{ option: string; n: number }>`
          SELECT o.option, coalesce(c.n, 0)::int AS n
          FROM unnest(${sql.val(options)}::text[]) AS o(option)
          LEFT JOIN (SELECT md5(value_text) AS h, count(*) AS n FROM custom_values
                     WHERE property_id = ${propertyId} AND workspace_id = ${workspaceId} GROUP BY 1) c ON c.h = md5(o.option)`.execute(tx);
        counts = new Map(rows.map((r) => [r.option, r.n]));
      } else if (type === 'multi_select' && options.length) {
        const { rows } = await sql<{ option: string; n: number }>`
          SELECT o.option, (SELECT count(*) FROM custom_values v
                            WHERE v.value_options @> ARRAY[o.option] AND v.property_id = ${propertyId}
                              AND v.workspace_id = ${workspaceId})::int AS n
          FROM unnest(${sql.val(options)}::text[]) AS o(option)`.execute(tx);
        counts = new Map(rows.map((r) => [r.option, r.n]));
      }
      return { values: total.n, options: options.map((option) => ({ option, count: counts.get(option) ?? 0 })) };
    },

    /** Issues whose value of this choice property uses any of `options`. */
    async countUsing(tx: Executor, workspaceId: string, propertyId: string, options: string[]): Promise<number> {
      const row = await tx
        .selectFrom('custom_values')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('property_id', '=', propertyId)
        .where((eb) => eb.or([eb('value_text', 'in', options), sql<SqlBool>`value_options && ${sql.val(options)}::text[]`]))
        .executeTakeFirstOrThrow();
      return row.n;
    },

    /**
     * Moves every value of a choice property from the options `from[i]` to `to[i]` (rename, merge), in one
     * statement per type: a multi_select keeps its order and each option once.
     */
    async remapValues(tx: Executor, workspaceId: string, propertyId: string, from: string[], to: string[], now: Date): Promise<void> {
      await sql`
        UPDATE custom_values v SET value_text = m.to_opt, value = to_jsonb(m.to_opt), updated_at = ${now}
        FROM unnest(${sql.val(from)}::text[], ${sql.val(to)}::text[]) AS m(from_opt, to_opt)
        WHERE v.workspace_id = ${workspaceId} AND v.property_id = ${propertyId}
          AND md5(v.value_text) = md5(m.from_opt) AND v.value_text = m.from_opt`.execute(tx);
      await sql`
        UPDATE custom_values v SET value_options = n.opts, value = to_jsonb(n.opts), updated_at = ${now}
        FROM (
          SELECT v2.issue_id, ARRAY(
              SELECT s.x FROM (
                SELECT coalesce(m.to_opt, u.o) AS x, u.ord
                FROM unnest(v2.value_options) WITH ORDINALITY AS u(o, ord)
                LEFT JOIN unnest(${sql.val(from)}::text[], ${sql.val(to)}::text[]) AS m(from_opt, to_opt) ON m.from_opt = u.o
              ) s GROUP BY s.x ORDER BY min(s.ord)) AS opts
          FROM custom_values v2
          WHERE v2.workspace_id = ${workspaceId} AND v2.property_id = ${propertyId} AND v2.value_options && ${sql.val(from)}::text[]
        ) n
        WHERE v.workspace_id = ${workspaceId} AND v.property_id = ${propertyId} AND v.issue_id = n.issue_id`.execute(tx);
    },

    deleteValue(tx: Executor, workspaceId: string, issueId: string, propertyId: string) {
      return tx
        .deleteFrom('custom_values')
        .where('workspace_id', '=', workspaceId)
        .where('issue_id', '=', issueId)
        .where('property_id', '=', propertyId)
        .execute();
    },

    /** `value` is stored as its JSON text, `indexed` as the typed copies the issue-list filter and sort use. */
    upsertValue(tx: Executor, v: Omit<Insertable<Database['custom_values']>, 'value' | keyof IndexedValue> & { value: unknown; indexed: IndexedValue }) {
      const row = {
        workspace_id: v.workspace_id,
        issue_id: v.issue_id,
        property_id: v.property_id,
        value: JSON.stringify(v.value),
        ...v.indexed,
        updated_at: v.updated_at,
      };
      const { workspace_id: _w, issue_id: _i, property_id: _p, ...changes } = row;
      return tx
        .insertInto('custom_values')
        .values(row)
        .onConflict((oc) => oc.columns(['issue_id', 'property_id']).doUpdateSet(changes))
        .returning(['issue_id', 'property_id', 'value', 'updated_at'])
        .executeTakeFirstOrThrow();
    },

    listValues(tx: Executor, workspaceId: string, issueId: string) {
      return valuesOf(tx, workspaceId, issueId);
    },

    /**
     * The issue-list sort key of a property: the issue's typed value copy, through the property's value indexes. An
     * expression of the issue list's own query (which runs it), correlated with the issue `i` and its workspace.
     */
    sortKey(propertyId: string, type: CustomPropertyType) {
      const column =
        type === 'number'
          ? 'value_number'
          : type === 'date'
            ? 'value_date'
            : type === 'checkbox'
              ? 'value_bool'
              : type === 'multi_select'
                ? 'value_options'
                : 'value_text';
      return (eb: IssueEb) =>
        eb
          .selectFrom('custom_values as cv')
          .select(`cv.${column}` as 'cv.value_text')
          .whereRef('cv.workspace_id', '=', 'i.workspace_id')
          .whereRef('cv.issue_id', '=', 'i.id')
          .where('cv.property_id', '=', propertyId);
    },

    /** The issue-list condition of one filter clause: an EXISTS on the issue's value (in its workspace), through the typed indexes. */
    issueCondition(clause: FilterClause): (eb: IssueEb) => Expression<SqlBool> {
      return (eb) => {
        let q = eb
          .selectFrom('custom_values as cv')
          .select(sql.lit(1).as('one'))
          .whereRef('cv.workspace_id', '=', 'i.workspace_id')
          .whereRef('cv.issue_id', '=', 'i.id')
          .where('cv.property_id', '=', clause.propertyId);
        switch (clause.kind) {
          case 'text':
            q = q.where(sql<SqlBool>`md5(cv.value_text) = md5(${clause.value})`).where('cv.value_text', '=', clause.value);
            break;
          case 'option':
            q = q.where(sql<SqlBool>`cv.value_options @> ARRAY[${clause.value}]::text[]`);
            break;
          case 'bool':
            q = q.where('cv.value_bool', '=', clause.value);
            break;
          case 'number':
            if (clause.gte !== undefined) q = q.where('cv.value_number', '>=', clause.gte);
            if (clause.lte !== undefined) q = q.where('cv.value_number', '<=', clause.lte);
            break;
          case 'date':
            if (clause.gte !== undefined) q = q.where('cv.value_date', '>=', clause.gte);
            if (clause.lte !== undefined) q = q.where('cv.value_date', '<=', clause.lte);
            if (clause.lt !== undefined) q = q.where('cv.value_date', '<', clause.lt);
            break;
        }
        return eb.exists(q);
      };
    },
  };
}
