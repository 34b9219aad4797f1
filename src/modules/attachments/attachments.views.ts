import { iso } from '../../kernel/time.js';
import type { AttachmentRow } from './attachments.repository.js';

/** Row -> API shape (contract 25.1): `image` only for raster images under the pixel cap. */
export const attachmentView = (a: Omit<AttachmentRow, 'storage_key' | 'thumbnail_key' | 'thumbnail_bytes' | 'workspace_id'>) => ({
  id: a.id,
  issue_id: a.issue_id,
  comment_id: a.comment_id,
  filename: a.filename,
  content_type: a.content_type,
  size_bytes: Number(a.size_bytes),
  sha256: a.sha256,
  created_by: a.created_by,
  created_at: iso(a.created_at),
  image: a.image_width !== null && a.image_height !== null ? { width: a.image_width, height: a.image_height } : null,
});

export type AttachmentView = ReturnType<typeof attachmentView>;
