// The rules of attachments that need no I/O (contract 25): names, content types, dispositions, ranges, and the
// arithmetic of a multipart body. Tested without HTTP (test/attachments/rules.test.ts).

/** Largest filename kept, in bytes of UTF-8 (25.1). */
export const MAX_FILENAME_BYTES = 255;

/** An image with more pixels than this is stored but gets no thumbnail and no size (25.5). */
export const MAX_IMAGE_PIXELS = 50_000_000;

/** Longer side of a thumbnail, never enlarged (25.5). */
export const THUMBNAIL_SIZE = 320;

/** How long a presigned download URL lives (25.2: at most 5 minutes). */
export const PRESIGNED_TTL_S = 300;

/** Raster images: served inline and given a thumbnail. Everything else, SVG and HTML above all, is a download. */
const RASTER_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export const isRasterImage = (contentType: string): boolean => RASTER_IMAGES.has(contentType);

// C0 and C1 controls, DEL, and the characters that reorder or hide text (bidi embeddings, overrides and isolates,
// marks (U+061C ARABIC LETTER MARK among them), zero-width characters, the BOM): a name with U+202E can show `gpj.exe`
// as `exe.jpg`.
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * The filename as stored and served: the last segment of any path (`/` or `\`), without control and bidi-control
 * characters, without leading dots (no hidden or `..` names) and surrounding spaces, at most 255 bytes of UTF-8
 * (cut on a character boundary, keeping a short extension). An empty result is `file`.
 */
export function sanitizeFilename(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(UNSAFE_CHARACTERS, '')
    .trim()
    .replace(/^[.\s]+/, '');
  if (name === '') return 'file';
  if (Buffer.byteLength(name) <= MAX_FILENAME_BYTES) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
  name = truncateUtf8(name.slice(0, name.length - extension.length), MAX_FILENAME_BYTES - Buffer.byteLength(extension)) + extension;
  return name;
}

/** The longest prefix of `text` that fits `maxBytes` of UTF-8, never splitting a character (or a surrogate pair). */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let out = '';
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    out += char;
  }
  return out;
}

/**
 * `Content-Disposition` of a download (25.1): `inline` for PNG, JPEG, GIF and WebP only, `attachment` for everything
 * else; the name in RFC 6266/8187 form only, as the contract writes it (`attachment; filename*=UTF-8''...`): every
 * browser of the last ten years reads it, and a plain `filename=` fallback would only mangle non-ASCII names.
 */
export function contentDisposition(contentType: string, filename: string): string {
  const kind = isRasterImage(contentType) ? 'inline' : 'attachment';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename*=UTF-8''${encoded}`;
}

// The WHATWG MIME sniffing standard's HTML patterns (§7.1), after leading whitespace, case-insensitive, followed by a
// space or `>` (the comment opener by anything).
const HTML_TAGS = ['!DOCTYPE HTML', 'HTML', 'HEAD', 'SCRIPT', 'IFRAME', 'H1', 'DIV', 'FONT', 'TABLE', 'A', 'STYLE', 'TITLE', 'B', 'BODY', 'BR', 'P'];

/**
 * The type of a text file from its first bytes (25.1), for what magic numbers do not tell: HTML (any of the WHATWG
 * patterns), SVG (an `<svg` element near the start, with or without an XML declaration or doctype), other XML,
 * plain UTF-8 text; null for bytes that are not text.
 */
export function sniffText(head: Uint8Array): string | null {
  let text = new TextDecoder('utf-8', { fatal: false }).decode(head);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const start = text.replace(/^[\t\n\f\r ]+/, '');
  const upper = start.slice(0, 64).toUpperCase();
  if (upper.startsWith('<!--')) {
    // A comment first: an SVG or HTML may follow it; look at the whole head below.
  } else {
    for (const tag of HTML_TAGS) {
      if (upper.startsWith(`<${tag}`)) {
        const next = upper.charAt(tag.length + 1);
        if (next === ' ' || next === '>' || next === '\t' || next === '\n' || next === '\r' || next === '/') return 'text/html';
      }
    }
  }
  const lower = start.toLowerCase();
  if (/<svg[\s>/]/.test(lower.slice(0, 4096))) return 'image/svg+xml';
  if (lower.startsWith('<?xml')) return 'application/xml';
  if (upper.startsWith('<!--') && /<(html|script|body|head|iframe)[\s>/]/.test(lower)) return 'text/html';
  // Text: no NUL and no other C0 control but tab, newlines, form feed and escape, and valid UTF-8 (a character cut at
  // the end of the head is fine).
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001a\u001c-\u001f]/.test(text)) return null;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, lastCompleteUtf8(head)));
  } catch {
    return null;
  }
  return 'text/plain';
}

/** Length of `bytes` without a UTF-8 sequence cut short at its end. */
function lastCompleteUtf8(bytes: Uint8Array): number {
  let i = bytes.length - 1;
  let continuation = 0;
  while (i >= 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80 && continuation < 3) {
    i--;
    continuation++;
  }
  if (i < 0) return bytes.length;
  const lead = bytes[i] ?? 0;
  const needed = lead >= 0xf0 ? 3 : lead >= 0xe0 ? 2 : lead >= 0xc0 ? 1 : 0;
  return needed > continuation ? i : bytes.length;
}

/** Types that may run script when a browser renders them: never served inline, whatever the disposition rule says. */
export const SCRIPTABLE_TYPES = new Set(['text/html', 'image/svg+xml', 'application/xhtml+xml', 'application/xml', 'text/xml']);

/**
 * One `Range: bytes=...` against a file of `size` bytes (RFC 9110 §14): the inclusive span, `unsatisfiable` (416),
 * or null to serve the whole file (no header, a unit other than bytes, several ranges, or a malformed one).
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * The bytes of the file in a multipart body (25.3), known before they arrive: the body's length less what comes
 * before the file's bytes (`prefixBytes`: earlier parts and the file part's headers) and the closing delimiter
 * (`\r\n--boundary--\r\n`). Exact for the usual body whose last part is the file; a body with parts after it, or
 * with no CRLF after the closing delimiter, is off by those bytes, which the upload then settles (reserving more
 * when the file turns out longer, releasing when shorter). Null when it cannot tell (no or a bad length).
 */
export function multipartFileBytes(contentLength: number | null, prefixBytes: number, boundary: string): number | null {
  if (contentLength === null || !Number.isSafeInteger(contentLength)) return null;
  const bytes = contentLength - prefixBytes - Buffer.byteLength(`\r\n--${boundary}--\r\n`);
  return bytes >= 0 ? bytes : null;
}

/** The boundary of a `multipart/form-data` content type, or null (RFC 2046 §5.1.1: 1..70 characters). */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return null;
  // The whole value or nothing: the first 70 characters of a longer one would miscount the file's length.
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))(?=\s*(?:;|$))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}
