import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';

export const PDFTOTEXT = '/usr/bin/pdftotext';
export const hasPdftotext = existsSync(PDFTOTEXT);

/** GET a PDF with the token: status, content type and bytes. */
export async function fetchPdf(url: string, token: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    disposition: res.headers.get('content-disposition'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/**
 * The text of a PDF as poppler's pdftotext extracts it (null, with a clear message, when pdftotext is not installed);
 * KEEP_PDF_DIR keeps a copy of the file for a look at its layout.
 */
export function pdfText(bytes: Buffer, name: string): string | null {
  if (process.env.KEEP_PDF_DIR) writeFileSync(join(process.env.KEEP_PDF_DIR, `${name}.pdf`), bytes);
  if (!hasPdftotext) {
    console.warn(`pdftotext is not installed (${PDFTOTEXT}): the text of ${name}.pdf is not checked`);
    return null;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wis-pdf-'));
  try {
    const file = join(dir, `${name}.pdf`);
    writeFileSync(file, bytes);
    return execFileSync(PDFTOTEXT, ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function expectPdf(r: { status: number; type: string | null; bytes: Buffer }) {
  expect(r.status, r.bytes.toString('utf8', 0, 300)).toBe(200);
  expect(r.type).toMatch(/^application\/pdf/);
  expect(r.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  // the fonts are embedded (a font file stream), not referenced by name
  expect(r.bytes.includes(Buffer.from('/FontFile2'))).toBe(true);
}
