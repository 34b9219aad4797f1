import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, NoContent } from '../../http/schemas.js';
import { AttachmentSchema } from '../work-items/index.js';
import { receiveUpload } from './attachments.multipart.js';
import { parseRange } from './attachments.rules.js';
import { AttachmentParams, AttachmentsParams, FileBytes, UploadBody } from './attachments.schemas.js';
import { type AttachmentsService, commentIdOf } from './attachments.service.js';

/** Headers of every download (25.1): nothing a browser renders from it can run script or guess another type. */
const SAFE_DOWNLOAD = { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'", 'cache-control': 'private, max-age=0' };

/** Attachments of issues and comments (contract 25.1): upload, list, read, download, thumbnail, delete. */
export const attachmentsRoutes: FastifyPluginAsyncTypebox<{ attachments: AttachmentsService }> = async (app, { attachments }) => {
  const tags = ['attachments'];
  // The upload reads its body as a stream (receiveUpload); this scope's parser hands it over untouched, and its size is
  // capped by ATTACHMENT_MAX_MB there. Every other route keeps the 1 MiB body limit.
  app.addContentTypeParser('multipart/form-data', { bodyLimit: Number.MAX_SAFE_INTEGER }, (_request, _payload, done) => done(null));

  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/',
    {
      schema: {
        tags,
        summary: 'Upload a file to an issue or one of its comments (admin, member)',
        description:
          'A `multipart/form-data` body with one part `file` (and optionally `comment_id` before it), streamed to storage. ' +
          'Over ATTACHMENT_MAX_MB: 413 `file_too_large`. Over the plan storage: 402 `storage_limit_reached` with `used_bytes` and ' +
          '`limit_bytes`, before the bytes are stored when the length is known. The content type is read from the bytes.',
        params: AttachmentsParams,
        consumes: ['multipart/form-data'],
        response: { 201: AttachmentSchema, ...errorResponses(400, 402, 403, 404, 413, 415) },
      },
      // The body is described for the OpenAPI document only (src/http/openapi.ts): it is a stream, never validated.
      config: { openapiBody: UploadBody },
    },
    async (req, reply) => {
      const { slug, projectId, issueId } = req.params;
      const target = await attachments.beginUpload(actorOf(req), slug, projectId, issueId);
      const view = await receiveUpload(
        req.raw,
        req.headers,
        attachments.maxFileBytes,
        (file) => attachments.store(target, file),
        async (name, value) => {
          if (name !== 'comment_id') return null;
          const commentId = commentIdOf(value);
          await attachments.checkComment(target, commentId);
          return commentId;
        },
      );
      return reply.status(201).send(view);
    },
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/',
    {
      schema: {
        tags,
        summary: "An issue's attachments with those of its comments, newest first",
        params: AttachmentsParams,
        response: { 200: Type.Array(AttachmentSchema), ...errorResponses(404) },
      },
    },
    async (req) => attachments.list(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId),
  );

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/:attachmentId/',
    {
      schema: { tags, summary: 'An attachment (the record)', params: AttachmentParams, response: { 200: AttachmentSchema, ...errorResponses(404) } },
    },
    async (req) => attachments.get(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.attachmentId),
  );

  const download =
    (thumbnail: boolean) =>
    async (req: FastifyRequest<{ Params: { slug: string; projectId: string; issueId: string; attachmentId: string } }>, reply: FastifyReply) => {
      const { slug, projectId, issueId, attachmentId } = req.params;
      const file = await attachments.download(actorOf(req), slug, projectId, issueId, attachmentId, thumbnail);
      void reply.headers(SAFE_DOWNLOAD);
      if (file.redirect !== null) return reply.redirect(file.redirect, 302);
      void reply.headers({ 'content-type': file.contentType, 'content-disposition': file.disposition, etag: file.etag, 'accept-ranges': 'bytes' });
      const match = req.headers['if-none-match'];
      if (match !== undefined && match.split(',').some((tag) => tag.trim() === file.etag || tag.trim() === '*')) return reply.status(304).send();
      const ifRange = req.headers['if-range'];
      const range = ifRange === undefined || ifRange === file.etag ? parseRange(req.headers.range, file.size) : null;
      if (range === 'unsatisfiable') {
        return reply
          .status(416)
          .header('content-range', `bytes */${file.size}`)
          .type('application/problem+json')
          .send({
            type: 'about:blank',
            title: 'Range Not Satisfiable',
            status: 416,
            code: 'range_not_satisfiable',
            detail: `The file has ${file.size} bytes`,
            request_id: String(req.id),
          });
      }
      if (range === null) {
        void reply.header('content-length', String(file.size));
        return reply.status(200).send(await file.open());
      }
      void reply.headers({ 'content-range': `bytes ${range.start}-${range.end}/${file.size}`, 'content-length': String(range.end - range.start + 1) });
      return reply.status(206).send(await file.open(range));
    };

  const downloadSchema = (summary: string, description: string) => ({
    schema: {
      tags,
      summary,
      description,
      params: AttachmentParams,
      produces: ['application/octet-stream'],
      response: {
        200: FileBytes,
        206: FileBytes,
        302: Type.Unsafe<undefined>({ description: 'STORAGE=s3: a presigned GET, valid 5 minutes, with the same type and disposition' }),
        304: Type.Unsafe<undefined>({ description: 'If-None-Match matched the ETag' }),
        ...errorResponses(404),
      },
    },
  });

  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/:attachmentId/content',
    downloadSchema(
      'The bytes of an attachment',
      '`Content-Disposition: attachment` except PNG, JPEG, GIF and WebP (`inline`); `nosniff`; `Content-Security-Policy: sandbox`; ' +
        'ETag from the sha256; one `Range` (206, 416).',
    ),
    download(false),
  );
  app.get(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/:attachmentId/thumbnail',
    downloadSchema(
      'The thumbnail of a raster image (WebP, 320 px on its longer side)',
      '404 for files that have none (not a raster image, or over 50 megapixels).',
    ),
    download(true),
  );

  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/attachments/:attachmentId/',
    {
      schema: {
        tags,
        summary: 'Delete an attachment (its uploader or an admin)',
        description: 'The space is free at once; the stored files are removed by a background duty within a minute.',
        params: AttachmentParams,
        response: { 204: NoContent, ...errorResponses(403, 404) },
      },
    },
    async (req, reply) => {
      await attachments.remove(actorOf(req), req.params.slug, req.params.projectId, req.params.issueId, req.params.attachmentId);
      return reply.status(204).send();
    },
  );
};
