import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses } from '../../http/schemas.js';
import { reportCsv } from './sla-reports.logic.js';
import { Report, ReportParams, ReportQuery } from './sla-reports.schemas.js';
import type { SlaReportsService } from './sla-reports.service.js';

export const slaReportsRoutes: FastifyPluginAsyncTypebox<{ slaReports: SlaReportsService }> = async (app, { slaReports }) => {
  app.get(
    '/api/workspaces/:slug/sla-reports/',
    {
      schema: {
        tags: ['sla'],
        summary: 'SLA achievement per period, priority, policy or project (admin, member)',
        description:
          'Each target (response, resolution) counts once, in the period of its outcome: met at responded_at / resolved_at ' +
          'when that was not after the target was breached, breached at its due instant. Open targets that are not ' +
          'breached are not counted. Dates are local dates of the workspace time zone, from and to inclusive, at most ' +
          '366 days; weeks start on Monday. median_seconds and p90_seconds are nearest-rank, over the working time ' +
          'counted until the target stopped (a breached, still-open target is left out). `format=csv` or ' +
          '`Accept: text/csv` answers the rows as text/csv: key, label, then met, breached, achievement_percent, ' +
          'median_seconds and p90_seconds of response and of resolution.',
        params: ReportParams,
        querystring: ReportQuery,
        response: {
          200: {
            description: 'The report (JSON), or its rows as CSV',
            content: { 'application/json': { schema: Report }, 'text/csv': { schema: Type.String() } },
          },
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (req, reply) => {
      const report = await slaReports.report(actorOf(req), req.params.slug, req.query);
      const csv = req.query.format === 'csv' || (req.query.format === undefined && /\btext\/csv\b/i.test(req.headers.accept ?? ''));
      if (!csv) return report;
      // A string with its own content type is sent as it is (the JSON schema of 200 does not apply to it).
      return (reply as unknown as FastifyReply)
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="sla-report-${report.from}-${report.to}-${report.group_by}.csv"`)
        .send(reportCsv(report.rows));
    },
  );
};
