/** A table of rows with one header row, in its own labelled, focusable scrolling region; the caller says per column what a cell shows. */
import type { ComponentChildren } from 'preact';

export interface Column<T> {
  header: ComponentChildren;
  cell: (row: T, index: number) => ComponentChildren;
  /** `aria-sort` of the header, for the column the rows are sorted by. */
  sort?: 'ascending' | 'descending' | undefined;
  key?: string;
}

export function DataTable<T>({
  columns,
  rows,
  rowKey,
  selected,
  label,
}: {
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T, index: number) => string | number;
  /** Rows the user picked (a checkbox in a cell says so to assistive technology; this only highlights the row). */
  selected?: (row: T) => boolean;
  /**
   * What the table holds: the name of its scrolling region (a keyboard reaches a table wider than the page; on a phone
   * the table scrolls inside it, never the page). Unique on the page: two regions of one name are one too many for axe.
   */
  label: string;
}) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>
        <thead>
          <tr>
            {columns.map((c, n) => (
              <th scope="col" key={c.key ?? n} aria-sort={c.sort}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={rowKey(r, i)} class={selected?.(r) ? 'selected' : undefined}>
              {columns.map((c, n) => (
                <td key={c.key ?? n}>{c.cell(r, i)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The key of a row that has an `id`. */
export const byId = (row: { id: string }) => row.id;
