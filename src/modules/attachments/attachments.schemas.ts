import { Type } from 'typebox';
import { Slug, Uuid } from '../../http/schemas.js';

export const AttachmentsParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid });
export const AttachmentParams = Type.Object({ slug: Slug, projectId: Uuid, issueId: Uuid, attachmentId: Uuid });

/** The body of an upload (25.1), for the OpenAPI document: the route reads it as a stream, never through a schema. */
export const UploadBody = {
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          comment_id: { type: 'string', format: 'uuid', description: 'A comment of this issue; send it before `file`' },
          file: { type: 'string', format: 'binary', description: 'The file (its type is read from its bytes)' },
        },
      },
    },
  },
} as const;

export const FileBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The bytes (206 for a Range)' });
