import {
  block,
  emptyBlock,
  isPeriodGroup,
  type Period,
  PRIORITY_LABELS,
  REPORT_PRIORITIES,
  type ReportGroup,
  type ReportRow,
  type TargetBlock,
} from './sla-reports.logic.js';
import type { ReportCell } from './sla-reports.repository.js';

/** A report as the API shows it, from the repository's cells (rows -> API shape). */

const blockOf = (c: ReportCell | undefined): TargetBlock => (c ? block(c.met, c.breached, c.median_seconds, c.p90_seconds) : emptyBlock());

export function reportView(
  query: { from: string; to: string; group_by: ReportGroup },
  timeZone: string,
  periods: Period[],
  cells: ReportCell[],
  labels: Map<string, string>,
) {
  const byKey = new Map<string, { response?: ReportCell; resolution?: ReportCell }>();
  const totals: { response?: ReportCell; resolution?: ReportCell } = {};
  for (const cell of cells) {
    if (cell.key === null) totals[cell.target] = cell;
    else {
      let entry = byKey.get(cell.key);
      if (!entry) byKey.set(cell.key, (entry = {}));
      entry[cell.target] = cell;
    }
  }
  const rowOf = (key: string, label: string, entry: { response?: ReportCell; resolution?: ReportCell } | undefined): ReportRow => ({
    key,
    label,
    response: blockOf(entry?.response),
    resolution: blockOf(entry?.resolution),
  });

  let rows: ReportRow[];
  if (isPeriodGroup(query.group_by)) {
    // every period of the range, empty ones included (the SQL keys a period by its index)
    rows = periods.map((p, index) => rowOf(p.key, p.label, byKey.get(String(index))));
  } else if (query.group_by === 'priority') {
    rows = REPORT_PRIORITIES.filter((p) => byKey.has(p)).map((p) => rowOf(p, PRIORITY_LABELS[p], byKey.get(p)));
  } else {
    rows = [...byKey.entries()]
      .map(([key, entry]) => rowOf(key, labels.get(key) ?? key, entry))
      .sort((a, b) => a.label.localeCompare(b.label) || a.key.localeCompare(b.key));
  }
  return {
    from: query.from,
    to: query.to,
    time_zone: timeZone,
    group_by: query.group_by,
    totals: { response: blockOf(totals.response), resolution: blockOf(totals.resolution) },
    rows,
  };
}
