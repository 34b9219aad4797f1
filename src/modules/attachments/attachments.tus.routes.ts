import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { actorOf } from '../../http/auth.js';
import { errorResponses, Problem, Slug, Uuid } from '../../http/schemas.js';
import { AttachmentsParams } from './attachments.schemas.js';
import { TUS_RESUMABLE, TusProblem, type TusUploads } from './attachments.tus.js';

const UploadParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid, uploadId: Uuid });

/** The body of a tus PATCH (and of a creation with upload). */
const OFFSET_STREAM = 'application/offset+octet-stream';

/** What a browser may send to the upload routes across origins (a preflight answered here, not by the app's CORS). */
const PREFLIGHT = {
  'access-control-allow-methods': 'POST, HEAD, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Tus-Resumable, Upload-Length, Upload-Metadata, Upload-Offset',
  'access-control-max-age': '600',
};

/** The body of a PATCH, for the OpenAPI document (tus reads it as a stream, never through a schema). */
const PatchBody = {
  content: { [OFFSET_STREAM]: { schema: { type: 'string', format: 'binary', description: 'The next bytes of the file, from Upload-Offset' } } },
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  423: 'Locked',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

/** The problem code of a refusal tus answered itself (an offset that does not match, a body over the upload's length). */
const CODES: Record<number, string> = {
  400: 'validation_failed',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  410: 'upload_expired',
  412: 'tus_version_unsupported',
  413: 'file_too_large',
  415: 'unsupported_media_type',
  423: 'conflict',
  501: 'not_implemented',
};

function sendProblem(reply: FastifyReply, status: number, code: string, detail: string, headers: Record<string, string> = {}): FastifyReply {
  return reply
    .status(status)
    .headers(headers)
    .type('application/problem+json')
    .send({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, request_id: String(reply.request.id) });
}

/**
 * The request as tus reads it (a web Request): its headers, and for a PATCH or a creation with upload its body, read
 * from the socket as tus writes it (this scope's parser left it unread). The URL is not the request's: tus takes the
 * upload's id from the route (attachments.tus.ts) and must not parse a path of its own.
 */
function tusRequest(req: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // A value the fetch API refuses is no header of the tus protocol.
      }
    }
  }
  const streamed = (req.method === 'PATCH' || req.method === 'POST') && req.headers['content-type'] === OFFSET_STREAM;
  return new Request('http://tus.internal/uploads/id', {
    method: req.method,
    headers,
    ...(streamed ? { body: lazyBody(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * The request's body as a web stream that starts reading the socket only when tus reads it. A request refused before
 * (a wrong offset, an expired upload) leaves its body unread, so that Node drops the rest of it and the connection
 * serves the next request; reading it into a stream nobody drains would stall the connection instead.
 */
function lazyBody(req: FastifyRequest): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        reader ??= (Readable.toWeb(req.raw) as NodeReadableStream as ReadableStream<Uint8Array>).getReader();
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel(reason) {
        await reader?.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** tus's answer through Fastify (the API's headers, CORS and request id with it); a refusal as problem+json. */
async function sendTus(req: FastifyRequest, reply: FastifyReply, response: Response): Promise<FastifyReply> {
  const text = await response.text();
  const { status } = response;
  if (status >= 400) {
    const kept: Record<string, string> = {};
    for (const name of ['tus-version', 'connection']) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    // A body tus stopped reading part way (one longer than the upload): the connection cannot serve another request.
    if (!req.raw.complete && req.raw.readableDidRead) kept.connection = 'close';
    if (status >= 500) {
      req.log.error({ status, detail: text.trim() }, 'tus upload failed');
      return sendProblem(
        reply,
        status === 501 ? 501 : 500,
        status === 501 ? 'not_implemented' : 'internal',
        'An internal error occurred; it has been logged',
        kept,
      );
    }
    return sendProblem(reply, status, CODES[status] ?? 'validation_failed', text.trim() || (TITLES[status] ?? 'Refused'), kept);
  }
  void reply.status(status);
  response.headers.forEach((value, name) => {
    // CORS is the app's (security-headers.ts), the length Fastify's.
    if (!name.startsWith('access-control-') && name !== 'content-length') void reply.header(name, value);
  });
  return reply.send(text === '' ? undefined : text);
}

/** A tus route: its work, then tus's answer or the refusal. */
const tusRoute =
  <P>(work: (req: FastifyRequest<{ Params: P }>) => Promise<Response>) =>
  async (req: FastifyRequest<{ Params: P }>, reply: FastifyReply) => {
    try {
      return await sendTus(req, reply, await work(req));
    } catch (error) {
      if (error instanceof TusProblem) return sendProblem(reply, error.status, error.code, error.message, error.headers);
      throw error;
    }
  };

const Empty = (description: string) => Type.Unsafe<undefined>({ description });

/** Resumable uploads (contract 25.4): tus 1.0 with the creation, termination and expiration extensions. */
export const tusRoutes: FastifyPluginAsyncTypebox<{ uploads: TusUploads }> = async (app, { uploads }) => {
  const tags = ['attachments'];
  // The bytes of a PATCH go to tus as a stream, unread by Fastify; their size is the upload's (ATTACHMENT_MAX_MB).
  app.addContentTypeParser(OFFSET_STREAM, { bodyLimit: Number.MAX_SAFE_INTEGER }, (_request, _payload, done) => done(null));
  // tus: every answer but OPTIONS carries the protocol version, refusals included.
  app.addHook('onSend', (req, reply, payload, done) => {
    if (req.method !== 'OPTIONS') void reply.header('tus-resumable', TUS_RESUMABLE);
    done(null, payload);
  });

  const tusHeaders =
    'Send `Tus-Resumable: 1.0.0` with every request (412 otherwise, with `Tus-Version`); every answer carries it. ' +
    'Refusals are problem+json as everywhere else.';

  // Discovery and the browsers' preflight (no token): tus's version, extensions and largest upload, and for an origin
  // of CORS_ORIGINS the methods and headers of the protocol (the app's own preflight does not know them).
  const options = async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.headers['access-control-request-method'] !== undefined && reply.getHeader('access-control-allow-origin') !== undefined) {
      void reply.headers(PREFLIGHT);
    }
    return sendTus(req, reply, await uploads.options(tusRequest(req)));
  };
  app.options('/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/', { schema: { hide: true }, config: { public: true } }, options);
  app.options('/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/:uploadId/', { schema: { hide: true }, config: { public: true } }, options);

  app.post(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/',
    {
      schema: {
        tags,
        operationId: 'createUpload',
        summary: 'Start a resumable upload (tus 1.0) of a file to an issue or one of its comments (admin, member)',
        description:
          'The tus creation extension. Headers: `Upload-Length` (required: no deferred length), `Upload-Metadata` with ' +
          '`filename` and optionally `comment_id` (a comment of this issue), base64 as tus encodes them. Over ATTACHMENT_MAX_MB: ' +
          '413 `file_too_large`. The length is reserved in the plan storage at once (402 `storage_limit_reached` with `used_bytes` ' +
          'and `limit_bytes`, nothing stored). Answers 201 with `Location` (the upload URL: `HEAD` for its `Upload-Offset`, ' +
          '`PATCH` the bytes, `DELETE` to terminate) and `Upload-Expires`: an upload left 24 h without a write is removed and its ' +
          'space freed. A body (`Content-Type: application/offset+octet-stream`) is the first bytes (creation-with-upload). ' +
          tusHeaders,
        params: AttachmentsParams,
        response: {
          201: Empty('Created: `Location`, `Upload-Expires` (or, when the body was the whole file, `Attachment-Id`)'),
          ...errorResponses(400, 402, 403, 404, 413),
          412: { ...Problem, description: '`Tus-Resumable` missing or not 1.0.0' },
        },
      },
    },
    tusRoute<{ slug: string; projectId: string; issueId: string }>((req) => uploads.create(actorOf(req), req.params, tusRequest(req))),
  );

  // HEAD is not in the OpenAPI document (@fastify/swagger leaves HEAD routes out); PATCH's description tells it.
  app.head(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/:uploadId/',
    {
      schema: {
        tags,
        summary: "A resumable upload's offset (tus HEAD): `Upload-Offset`, `Upload-Length`, `Upload-Expires`",
        params: UploadParams,
        response: { 200: Empty('`Upload-Offset`: where to resume'), ...errorResponses(403, 404) },
      },
    },
    tusRoute<{ slug: string; projectId: string; issueId: string; uploadId: string }>((req) => uploads.head(actorOf(req), req.params, tusRequest(req))),
  );

  app.patch(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/:uploadId/',
    {
      schema: {
        tags,
        operationId: 'sendUploadBytes',
        summary: 'Send the next bytes of a resumable upload (tus 1.0 PATCH, its starter only)',
        description:
          'The bytes at `Upload-Offset` (`Content-Type: application/offset+octet-stream`); `HEAD` on the same URL answers the ' +
          'offset to resume from after a connection was lost (`Upload-Offset`, `Upload-Length`, `Upload-Expires`). An offset ' +
          'that is not the upload’s: 409. Each PATCH moves `Upload-Expires` to 24 h later. The PATCH that completes the file ' +
          'turns it into an attachment (its type read from the bytes, as for a multipart upload) and answers its id in ' +
          '`Attachment-Id`. ' +
          tusHeaders,
        params: UploadParams,
        consumes: [OFFSET_STREAM],
        response: {
          204: Empty('Stored: `Upload-Offset` (and `Attachment-Id` when the upload is whole)'),
          ...errorResponses(400, 403, 404, 409, 413, 415),
          410: { ...Problem, description: 'The upload expired (24 h without a write) and is removed' },
          412: { ...Problem, description: '`Tus-Resumable` missing or not 1.0.0' },
        },
      },
      // The body is described for the OpenAPI document only (http/openapi.ts): tus reads it as a stream.
      ...({ config: { openapiBody: PatchBody } } as object),
    },
    tusRoute<{ slug: string; projectId: string; issueId: string; uploadId: string }>((req) => uploads.patch(actorOf(req), req.params, tusRequest(req))),
  );

  app.delete(
    '/api/workspaces/:slug/projects/:projectId/issues/:issueId/uploads/:uploadId/',
    {
      schema: {
        tags,
        operationId: 'terminateUpload',
        summary: 'Terminate a resumable upload (tus termination; its starter or an admin)',
        description: 'Removes the bytes sent so far and frees the space reserved for the upload. ' + tusHeaders,
        params: UploadParams,
        response: {
          204: Empty('Terminated'),
          ...errorResponses(403, 404, 409),
          410: { ...Problem, description: 'The upload expired (24 h without a write) and is removed' },
          412: { ...Problem, description: '`Tus-Resumable` missing or not 1.0.0' },
        },
      },
    },
    tusRoute<{ slug: string; projectId: string; issueId: string; uploadId: string }>((req) => uploads.terminate(actorOf(req), req.params, tusRequest(req))),
  );
};
