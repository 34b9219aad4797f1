/**
 * Files in the console (contract 25): bytes the API serves only with the sign-in token (thumbnails, previews,
 * downloads) and uploads with progress. Loaded with the issue page's files (a chunk of its own, see issue-files.tsx).
 *
 * Every API call needs `Authorization: Bearer`, so an `<img src>` or `<a href>` pointing at `.../content` cannot work:
 * the bytes are fetched with the token. Images are shown as `data:` URLs because the console's CSP allows `img-src
 * 'self' data:` (no `blob:`); downloads are saved through a short-lived blob URL, which no CSP directive governs.
 */
import { type Answer, ApiError, getToken } from './api.js';

export type Attachment = Answer<'listAttachments'>[number];

/** The issue whose files these are. */
export interface UploadTarget {
  slug: string;
  projectId: string;
  issueId: string;
}

/** A short type label for a file without a thumbnail: "PDF", "ZIP", "TXT", else the filename's extension. */
export function typeLabel(a: Pick<Attachment, 'content_type' | 'filename'>): string {
  const known: Record<string, string> = {
    'application/pdf': 'PDF',
    'application/zip': 'ZIP',
    'application/gzip': 'GZ',
    'application/json': 'JSON',
    'text/plain': 'TXT',
    'text/csv': 'CSV',
    'text/html': 'HTML',
    'image/svg+xml': 'SVG',
  };
  const type = a.content_type.split(';')[0]!.trim();
  if (known[type]) return known[type];
  const ext = /\.([a-z0-9]{1,5})$/i.exec(a.filename)?.[1];
  if (ext) return ext.toUpperCase();
  const sub = type.split('/')[1];
  return sub && sub !== 'octet-stream' ? sub.slice(0, 5).toUpperCase() : 'FILE';
}

/** PNG, JPEG, GIF and WebP: the images the service serves inline, shown in the larger preview. */
export function isPreviewable(a: Attachment): boolean {
  return a.image !== null && /^image\/(png|jpeg|gif|webp)$/.test(a.content_type);
}

const enc = encodeURIComponent;

export function attachmentsPath(t: UploadTarget): string {
  return `/api/workspaces/${enc(t.slug)}/projects/${enc(t.projectId)}/issues/${enc(t.issueId)}/attachments/`;
}

/** An answer that is not 2xx as an ApiError: the problem+json the service sent, or its status. */
function problemOf(status: number, statusText: string, text: string): ApiError {
  try {
    const body = JSON.parse(text) as unknown;
    if (body && typeof body === 'object' && 'code' in body && 'status' in body) return new ApiError(body as ApiError['problem']);
  } catch {
    // not JSON: described by its status below
  }
  return new ApiError({ type: 'about:blank', title: statusText, status, code: 'unexpected_response', detail: `HTTP ${status}` });
}

/** The bytes at an API path, fetched with the sign-in token. */
export async function fetchBlob(path: string, signal?: AbortSignal): Promise<Blob> {
  const token = getToken();
  const res = await fetch(path, { headers: token ? { authorization: `Bearer ${token}` } : {}, ...(signal ? { signal } : {}) });
  if (!res.ok) throw problemOf(res.status, res.statusText, await res.text());
  return res.blob();
}

function dataUrlOf(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The image could not be read'));
    reader.readAsDataURL(blob);
  });
}

// Attachments never change once stored: a thumbnail fetched once serves every later render of the issue page.
const thumbnails = new Map<string, Promise<string>>();

/** The thumbnail of a raster image as a `data:` URL (cached); rejects when the file has none (404). */
export function thumbnailUrl(t: UploadTarget, attachmentId: string): Promise<string> {
  let found = thumbnails.get(attachmentId);
  if (!found) {
    found = fetchBlob(`${attachmentsPath(t)}${enc(attachmentId)}/thumbnail`).then(dataUrlOf);
    found.catch(() => thumbnails.delete(attachmentId));
    thumbnails.set(attachmentId, found);
  }
  return found;
}

/** The whole image as a `data:` URL, for the larger preview. */
export async function imageUrl(t: UploadTarget, attachmentId: string, signal?: AbortSignal): Promise<string> {
  return dataUrlOf(await fetchBlob(`${attachmentsPath(t)}${enc(attachmentId)}/content`, signal));
}

/** Fetches the file with the token and saves it under its stored filename. */
export async function download(t: UploadTarget, a: Attachment): Promise<void> {
  const blob = await fetchBlob(`${attachmentsPath(t)}${enc(a.id)}/content`);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = a.filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled; the URL is freed a little later to be safe.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export interface Upload {
  done: Promise<Attachment>;
  abort: () => void;
}

/**
 * Uploads one file as `multipart/form-data` (`comment_id` first, then `file`, as the service reads them) with
 * XMLHttpRequest, whose `upload.onprogress` reports the bytes sent (fetch has no upload progress). `onProgress` gets
 * the bytes sent and the total; once all are sent the service still stores the file and makes its thumbnail.
 * Rejects with the API's problem (402 `storage_limit_reached`, 413 `file_too_large`, ...), or an AbortError.
 */
export function uploadFile(t: UploadTarget, file: File, commentId: string | undefined, onProgress: (sent: number, total: number) => void): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Attachment>((resolve, reject) => {
    xhr.open('POST', attachmentsPath(t));
    const token = getToken();
    if (token) xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      if (xhr.status === 201) {
        try {
          resolve(JSON.parse(xhr.responseText) as Attachment);
        } catch {
          reject(problemOf(xhr.status, xhr.statusText, ''));
        }
      } else reject(problemOf(xhr.status, xhr.statusText, xhr.responseText));
    };
    xhr.onerror = () => reject(new Error('The connection failed before the upload finished'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    const form = new FormData();
    if (commentId) form.append('comment_id', commentId);
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}
