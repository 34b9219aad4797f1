// The rules of attachments that need no I/O (src/modules/attachments/attachments.rules.ts, contract 25.1, 25.3).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contentDisposition,
  MAX_FILENAME_BYTES,
  multipartBoundary,
  multipartFileBytes,
  parseRange,
  sanitizeFilename,
  sniffText,
} from '../../src/modules/attachments/attachments.rules.js';

const bytes = (text: string): number => Buffer.byteLength(text);
/** Control characters (C0, DEL, C1) and the characters that reorder text (Unicode's Bidi_Control). */
const UNSAFE = /[\p{Cc}\p{Bidi_Control}]/u;

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\ali\\Desktop\\rapor.xlsx', 'rapor.xlsx'],
    ['dir/sub\\mixed/name.txt', 'name.txt'],
    ['a\u0000b\u0007c\u007f\u0085.txt', 'abc.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['\u2066x\u2069\u200Fy\u061C.txt', 'xy.txt'],
    ['zero\u200Bwidth\uFEFF.txt', 'zerowidth.txt'],
    ['  spaced out.txt  ', 'spaced out.txt'],
    ['.htaccess', 'htaccess'],
    ['...hidden', 'hidden'],
    ['. . .x', 'x'],
    ['', 'file'],
    ['..', 'file'],
    ['../', 'file'],
    ['\u202E\u0000 ', 'file'],
    ['Ekran görüntüsü 2026-01-15.png', 'Ekran görüntüsü 2026-01-15.png'],
    ['e\u0301te\u0301.txt', 'été.txt'], // NFC
  ])('%j -> %j', (raw, expected) => {
    expect(sanitizeFilename(raw)).toBe(expected);
  });

  it('cuts a long name to 255 bytes of UTF-8 on a character boundary, keeping a short extension', () => {
    const long = sanitizeFilename(`${'ş'.repeat(150)}.pdf`); // 304 bytes
    expect(bytes(long)).toBeLessThanOrEqual(MAX_FILENAME_BYTES);
    expect(long).toBe(`${'ş'.repeat(125)}.pdf`); // 250 + 4 bytes: one more ş would be 256
    const emoji = sanitizeFilename(`${'😀'.repeat(100)}.png`); // 4 bytes each
    expect(emoji).toBe(`${'😀'.repeat(62)}.png`);
    expect(emoji).not.toContain('\ufffd');
    expect(sanitizeFilename('a'.repeat(300))).toBe('a'.repeat(255));
    // An "extension" too long to be one is cut with the rest.
    const noExtension = sanitizeFilename(`${'a'.repeat(250)}.${'b'.repeat(40)}`);
    expect(noExtension).toBe(`${'a'.repeat(250)}.bbbb`);
    // Exactly 255 bytes is kept whole.
    expect(sanitizeFilename(`${'x'.repeat(251)}.txt`)).toBe(`${'x'.repeat(251)}.txt`);
  });

  it('makes any string a safe name: at most 255 bytes, no separator, control or bidi character, never empty or hidden', () => {
    const tricky = fc.constantFrom(
      '/',
      '\\',
      '.',
      ' ',
      '\t',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u061c',
      '\u200e',
      '\u202e',
      '\u2066',
      '\ufeff',
      'ş',
      'ğ',
      '😀',
      'e\u0301',
      'a',
      'Z',
      '-',
    );
    const names = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 400 }),
      fc.string({ unit: tricky, maxLength: 400 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
    );
    fc.assert(
      fc.property(names, (raw) => {
        const name = sanitizeFilename(raw);
        expect(bytes(name)).toBeLessThanOrEqual(MAX_FILENAME_BYTES);
        expect(name).not.toMatch(/[/\\]/);
        expect(name).not.toMatch(UNSAFE);
        expect(name.length).toBeGreaterThan(0);
        expect(name.startsWith('.')).toBe(false);
        expect(name).toBe(name.trim());
        // Idempotent: a stored name stays as it is when sanitized again.
        expect(sanitizeFilename(name)).toBe(name);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('contentDisposition', () => {
  it('is inline for PNG, JPEG, GIF and WebP only', () => {
    for (const type of ['image/png', 'image/jpeg', 'image/gif', 'image/webp']) expect(contentDisposition(type, 'a.png')).toMatch(/^inline; /);
    for (const type of ['image/svg+xml', 'text/html', 'application/pdf', 'text/plain', 'application/octet-stream', 'image/bmp', 'application/xml']) {
      expect(contentDisposition(type, 'a.png')).toMatch(/^attachment; /);
    }
  });

  it('names the file in RFC 8187 form only, as the contract writes the header', () => {
    expect(contentDisposition('application/pdf', 'report.pdf')).toBe(`attachment; filename*=UTF-8''report.pdf`);
    expect(contentDisposition('application/pdf', 'Şubat raporu.pdf')).toBe(`attachment; filename*=UTF-8''%C5%9Eubat%20raporu.pdf`);
    // Quotes, backslashes and ' ( ) * are percent-encoded in the extended form.
    expect(contentDisposition('text/plain', `a"b\\c'(d)*.txt`)).toBe(`attachment; filename*=UTF-8''a%22b%5Cc%27%28d%29%2A.txt`);
    expect(contentDisposition('image/png', '😀.png')).toBe(`inline; filename*=UTF-8''%F0%9F%98%80.png`);
  });

  it('never lets a stored name break out of the header', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 100 }), (raw) => {
        const header = contentDisposition('application/pdf', sanitizeFilename(raw));
        // A valid header value: visible ASCII and spaces only, so no CR/LF and no second parameter smuggled in.
        expect(header).toMatch(/^attachment; filename\*=UTF-8''[A-Za-z0-9%!._~-]*$/);
        expect(header).not.toContain('"');
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('sniffText', () => {
  const sniff = (text: string | Buffer) => sniffText(typeof text === 'string' ? Buffer.from(text) : text);

  it.each([
    '<!DOCTYPE html><html></html>',
    '<!doctype HTML>',
    '<html>',
    '  \n\t<HTML lang="tr">',
    '<head><title>x</title>',
    '<script>alert(1)</script>',
    '<iframe src="x">',
    '<body onload="x()">',
    '<div>',
    '<a href="x">',
    '<p>text</p>',
    '<br/>',
    '<b>bold</b>',
    '<table>',
    '<style>',
    '<title>',
    '<font>',
    '<h1>',
    '\ufeff<html>',
    '<!-- a comment --><html><body>x</body></html>',
    '<!-- x -->\n<script>1</script>',
  ])('reads HTML: %j', (text) => {
    expect(sniff(text)).toBe('text/html');
  });

  it.each([
    '<svg xmlns="http://www.w3.org/2000/svg"/>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>1</script></svg>',
    '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg>',
    '<!-- generator --><svg viewBox="0 0 1 1">',
    '  <SVG>',
  ])('reads SVG: %j', (text) => {
    expect(sniff(text)).toBe('image/svg+xml');
  });

  it('reads other XML, plain text, and nothing for bytes that are not text', () => {
    expect(sniff('<?xml version="1.0"?><note><to>x</to></note>')).toBe('application/xml');
    expect(sniff('plain notes\r\nline two\tcolumn\f')).toBe('text/plain');
    expect(sniff('Türkçe metin: ğüşıöç')).toBe('text/plain');
    expect(sniff('<abbr>not a listed tag</abbr>')).toBe('text/plain');
    expect(sniff('<htmlx>')).toBe('text/plain');
    expect(sniff('a < b and c > d')).toBe('text/plain');
    expect(sniff('{"json": true}')).toBe('text/plain');
    // ESC is allowed (ANSI colours in logs); NUL and other controls are not text.
    expect(sniff('\u001b[31mred\u001b[0m')).toBe('text/plain');
    expect(sniff('a\u0000b')).toBeNull();
    expect(sniff('a\u0001b')).toBeNull();
    expect(sniff(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBeNull();
    // Invalid UTF-8 is not text; a character cut by the end of the head is.
    expect(sniff(Buffer.from([0x61, 0xff, 0x62]))).toBeNull();
    expect(sniff(Buffer.from([0x61, 0xc0, 0xaf]))).toBeNull();
    expect(sniff(Buffer.concat([Buffer.from('ab'), Buffer.from('ş').subarray(0, 1)]))).toBe('text/plain');
    expect(sniff(Buffer.concat([Buffer.from('ab'), Buffer.from('😀').subarray(0, 3)]))).toBe('text/plain');
  });
});

describe('parseRange', () => {
  it.each([
    [undefined, 100, null],
    ['', 100, null],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=0-0', 100, { start: 0, end: 0 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=90-1000', 100, { start: 90, end: 99 }],
    ['bytes=99-99', 100, { start: 99, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-1000', 100, { start: 0, end: 99 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=100-200', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-5', 0, 'unsatisfiable'],
    // Not one valid bytes range: ignored, the whole file.
    ['bytes=9-0', 100, null],
    ['bytes=-', 100, null],
    ['bytes=0-1,5-6', 100, null],
    ['items=0-9', 100, null],
    ['bytes=a-b', 100, null],
    ['bytes=1.5-2', 100, null],
  ] as const)('%j of %d bytes -> %j', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });

  it('answers a span inside the file, or unsatisfiable, for any well-formed range', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.option(fc.nat(20_000)), fc.option(fc.nat(20_000)), (size, first, last) => {
        if (first === null && last === null) return;
        const range = parseRange(`bytes=${first ?? ''}-${last ?? ''}`, size);
        if (range === null) {
          expect(first !== null && last !== null && last < first).toBe(true);
          return;
        }
        if (range === 'unsatisfiable') return;
        expect(range.start).toBeGreaterThanOrEqual(0);
        expect(range.start).toBeLessThanOrEqual(range.end);
        expect(range.end).toBeLessThan(size);
      }),
    );
  });
});

describe('multipartBoundary', () => {
  it.each([
    ['multipart/form-data; boundary=abc123', 'abc123'],
    ['multipart/form-data;boundary=abc', 'abc'],
    ['Multipart/Form-Data; BOUNDARY=xyz', 'xyz'],
    ['multipart/form-data; charset=utf-8; boundary=----WebKitFormBoundaryA1b2', '----WebKitFormBoundaryA1b2'],
    ['multipart/form-data; boundary="with space"', 'with space'],
    ['multipart/form-data; boundary=abc; charset=utf-8', 'abc'],
    [`multipart/form-data; boundary=${'a'.repeat(70)}`, 'a'.repeat(70)],
    // Longer than RFC 2046 allows: not a boundary (taking its first 70 characters would miscount the file's length).
    [`multipart/form-data; boundary=${'a'.repeat(71)}`, null],
    [`multipart/form-data; boundary="${'a'.repeat(71)}"`, null],
    ['multipart/form-data', null],
    ['multipart/form-data; boundary=', null],
    ['multipart/mixed; boundary=abc', null],
    ['application/json', null],
    [undefined, null],
  ] as const)('%j -> %j', (contentType, expected) => {
    expect(multipartBoundary(contentType)).toBe(expected);
  });
});

describe('multipartFileBytes', () => {
  /** A body as browsers and fetch's FormData write it: the fields, then the file, then the closing delimiter. */
  function body(boundary: string, file: Buffer, fields: Record<string, string> = {}) {
    const parts = Object.entries(fields).map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
    const head = `${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const whole = Buffer.concat([Buffer.from(head), file, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    return { length: whole.length, prefix: Buffer.byteLength(head) };
  }

  it('tells the exact length of the file of the usual body, whatever the file and the fields', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2_000 }), fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,70}$/), fc.boolean(), (file, boundary, withField) => {
        const b = body(boundary, Buffer.from(file), withField ? { comment_id: '0190a0b0-0000-7000-8000-000000000001' } : {});
        expect(multipartFileBytes(b.length, b.prefix, boundary)).toBe(file.length);
      }),
    );
  });

  it('is null without a usable length', () => {
    expect(multipartFileBytes(null, 100, 'abc')).toBeNull();
    expect(multipartFileBytes(Number.NaN, 100, 'abc')).toBeNull();
    expect(multipartFileBytes(1.5, 0, 'abc')).toBeNull();
    // Shorter than its own framing: not a length to trust.
    expect(multipartFileBytes(105, 95, 'abc')).toBeNull();
    // `\r\n--abc--\r\n` is 11 bytes: an empty file.
    expect(multipartFileBytes(106, 95, 'abc')).toBe(0);
  });
});
