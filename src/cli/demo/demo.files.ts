import sharp from 'sharp';

/**
 * The demo's attachments (contract 25): a screenshot, a phone photo and a PDF, made here so the demo needs no files
 * of its own. Deterministic: the same bytes on every run.
 */
export interface DemoFile {
  /** The issue of SEARCH_EXAMPLES it goes on. */
  issue: string;
  filename: string;
  make(): Promise<Buffer>;
}

/** A screenshot-like PNG: a page with a header bar, a form and a red error banner. */
async function screenshot(): Promise<Buffer> {
  const box = (width: number, height: number, rgb: [number, number, number]) => ({
    input: { create: { width, height, channels: 3 as const, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } },
  });
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: 248, g: 250, b: 252 } } })
    .composite([
      { ...box(1280, 64, [30, 41, 59]), left: 0, top: 0 },
      { ...box(560, 48, [254, 226, 226]), left: 360, top: 140 },
      { ...box(560, 4, [220, 38, 38]), left: 360, top: 184 },
      { ...box(560, 40, [226, 232, 240]), left: 360, top: 230 },
      { ...box(560, 40, [226, 232, 240]), left: 360, top: 290 },
      { ...box(180, 44, [37, 99, 235]), left: 740, top: 360 },
    ])
    .png()
    .toBuffer();
}

/** A phone photo: a warm gradient in a 4:3 JPEG. */
async function photo(): Promise<Buffer> {
  const width = 1600;
  const height = 1200;
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = 200 + Math.round((55 * x) / width);
      pixels[i + 1] = 120 + Math.round((80 * y) / height);
      pixels[i + 2] = 60 + Math.round((40 * (x + y)) / (width + height));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 80 })
    .toBuffer();
}

/** A one-page PDF (pdfkit, loaded on use as the invoices do). */
async function pdf(): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ size: 'A4', info: { Title: 'Invoice 2026-0042', CreationDate: new Date('2026-11-01T09:00:00Z') } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  doc.fontSize(20).text('Invoice 2026-0042', 72, 72);
  doc.fontSize(11).text('Acme Corporate - November 2026', 72, 110);
  doc.text('Subtotal: 1,000.00 TRY', 72, 160);
  doc.text('VAT (KDV) shown: 18% - should be 20%', 72, 180);
  doc.text('Total: 1,180.00 TRY', 72, 200);
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

export const DEMO_FILES: DemoFile[] = [
  { issue: 'Ödeme sayfası açılmıyor', filename: 'checkout-blank-page.png', make: screenshot },
  { issue: 'İSTANBUL ofisinde IŞIK arızası', filename: 'meeting-room.jpg', make: photo },
  { issue: 'Fatura PDF dosyasında KDV hatası', filename: 'invoice-2026-0042.pdf', make: pdf },
];
