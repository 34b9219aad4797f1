import { readFileSync } from 'node:fs';
import { DateTime } from 'luxon';
import type PDFKit from 'pdfkit';
import { formatMinor, ratePercent, type TaxSplit } from './invoices.tax.js';

/**
 * The PDF of an invoice or a credit note (contract 19.6), made with pdfkit and the DejaVu Sans fonts committed beside
 * this file (read relative to it, so the compiled dist/ finds them too). Labels are Turkish with English in small
 * type; amounts are formatted from integer minor units in Turkish notation (1.234,56) followed by the ISO currency
 * code; dates are days in Europe/Istanbul (dd.MM.yyyy).
 */

export interface PdfParty {
  name: string | null;
  taxId: string | null;
  taxOffice: string | null;
  address: string[];
  email?: string | null;
}

export interface PdfLine {
  description: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  quantity: number;
  amount: number;
}

export interface PdfDocumentData {
  kind: 'invoice' | 'credit_note';
  number: string;
  issuedAt: Date;
  /** e.g. the invoice a credit note refers to. */
  reference: string | null;
  seller: PdfParty | null;
  buyer: PdfParty | null;
  lines: PdfLine[];
  split: TaxSplit;
  total: number;
  currency: string;
}

type FontObject = object;

/**
 * pdfkit (with fontkit) is loaded on the first document, not at start-up: its import costs about 200 ms that a
 * service which never renders a PDF should not pay before it answers.
 */
let PDFDocument: typeof PDFKit;
async function loadPdfkit(): Promise<void> {
  PDFDocument ??= (await import('pdfkit')).default;
}

/** The fonts parsed once per process (fontkit objects pdfkit accepts in place of a file), shared by every document. */
let fonts: { regular: FontObject; bold: FontObject } | undefined;

function parsedFont(file: string): FontObject {
  const bytes = readFileSync(new URL(`./fonts/${file}`, import.meta.url));
  // pdfkit parses a font with its own fontkit; a throwaway document lends us the parsed object once.
  const probe = new PDFDocument({ font: null as unknown as string, autoFirstPage: false });
  probe.font(bytes);
  return (probe as unknown as { _font: { font: FontObject } })._font.font;
}

/**
 * The shared fonts, their glyph objects forgotten: fontkit caches a glyph by id with the characters it was first
 * made for, and pdfkit writes a document's ToUnicode map from them, so a glyph first made by another document (or by
 * a composed letter such as Ç) would leave its letter out of the extractable text. The parsed tables, the costly part,
 * stay shared.
 */
function loadFonts() {
  fonts ??= { regular: parsedFont('DejaVuSans.ttf'), bold: parsedFont('DejaVuSans-Bold.ttf') };
  for (const font of [fonts.regular, fonts.bold]) (font as { _glyphs: Record<number, unknown> })._glyphs = {};
  return fonts;
}

const ZONE = 'Europe/Istanbul';
export const formatDate = (d: Date): string => DateTime.fromJSDate(d, { zone: ZONE }).toFormat('dd.LL.yyyy');

const TITLES = {
  invoice: { tr: 'FATURA', en: 'Invoice', number: 'Fatura no', numberEn: 'Invoice number' },
  credit_note: { tr: 'İADE BELGESİ (ALACAK DEKONTU)', en: 'Credit note', number: 'Belge no', numberEn: 'Credit note number' },
} as const;

export async function renderPdf(data: PdfDocumentData): Promise<Buffer> {
  await loadPdfkit();
  const { regular, bold } = loadFonts();
  const title = TITLES[data.kind];
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    font: null as unknown as string,
    info: { Title: `${title.en} ${data.number}`, Subject: `${title.en} ${data.number}`, Creator: 'Work Item Service' },
  });
  doc.registerFont('regular', regular as never);
  doc.registerFont('bold', bold as never);
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = 50;
  const right = 545;
  const width = right - left;
  const money = (minor: number) => `${formatMinor(minor)} ${data.currency}`;

  // Header: title and number, date.
  doc.font('bold').fontSize(18).text(title.tr, left, 50);
  doc.font('regular').fontSize(9).fillColor('#555555').text(title.en, left, doc.y);
  doc.fillColor('#000000');
  const meta: [string, string][] = [
    [`${title.number} / ${title.numberEn}`, data.number],
    ['Düzenleme tarihi / Issue date', formatDate(data.issuedAt)],
    ['Para birimi / Currency', data.currency],
  ];
  if (data.reference) meta.push(['İlgili belge / Refers to', data.reference]);
  let y = 50;
  for (const [label, value] of meta) {
    doc.font('regular').fontSize(8).fillColor('#555555').text(label, 330, y, { width: 215, align: 'right' });
    doc
      .font('bold')
      .fontSize(10)
      .fillColor('#000000')
      .text(value, 330, y + 10, { width: 215, align: 'right' });
    y += 26;
  }

  // Parties.
  const top = Math.max(y, doc.y) + 16;
  const party = (x: number, heading: string, p: PdfParty | null) => {
    doc.font('bold').fontSize(10).text(heading, x, top, { width: 240 });
    doc.font('regular').fontSize(9);
    if (!p) {
      doc.text('—', x, doc.y + 2, { width: 240 });
      return doc.y;
    }
    if (p.name)
      doc
        .font('bold')
        .text(p.name, x, doc.y + 2, { width: 240 })
        .font('regular');
    if (p.taxOffice || p.taxId) {
      const kind = p.taxId?.length === 11 ? 'TCKN' : 'VKN';
      doc.text([p.taxOffice ? `Vergi dairesi: ${p.taxOffice}` : null, p.taxId ? `${kind}: ${p.taxId}` : null].filter(Boolean).join(' · '), x, doc.y, {
        width: 240,
      });
    }
    for (const line of p.address) doc.text(line, x, doc.y, { width: 240 });
    if (p.email) doc.text(p.email, x, doc.y, { width: 240 });
    return doc.y;
  };
  const sellerEnd = party(left, 'Satıcı / Seller', data.seller);
  const buyerEnd = party(305, 'Alıcı / Buyer', data.buyer);

  // Lines.
  y = Math.max(sellerEnd, buyerEnd) + 24;
  const cols = { description: left, period: 275, quantity: 395, amount: 435 };
  doc
    .rect(left, y - 4, width, 18)
    .fill('#eeeeee')
    .fillColor('#000000');
  doc.font('bold').fontSize(9);
  doc.text('Açıklama / Description', cols.description + 4, y, { width: 220 });
  doc.text('Dönem / Period', cols.period, y, { width: 115 });
  doc.text('Miktar', cols.quantity, y, { width: 35, align: 'right' });
  doc.text('Tutar (KDV dahil)', cols.amount, y, { width: right - cols.amount - 4, align: 'right' });
  y += 20;
  doc.font('regular').fontSize(9);
  for (const line of data.lines) {
    const period = line.periodStart && line.periodEnd ? `${formatDate(line.periodStart)} – ${formatDate(line.periodEnd)}` : '';
    doc.text(line.description, cols.description + 4, y, { width: 220 });
    const descEnd = doc.y;
    doc.text(period, cols.period, y, { width: 115 });
    doc.text(String(line.quantity), cols.quantity, y, { width: 35, align: 'right' });
    doc.text(money(line.amount), cols.amount, y, { width: right - cols.amount - 4, align: 'right' });
    y = Math.max(descEnd, doc.y) + 6;
    doc
      .moveTo(left, y - 3)
      .lineTo(right, y - 3)
      .lineWidth(0.5)
      .strokeColor('#cccccc')
      .stroke();
  }

  // Totals.
  y += 10;
  const totals: [string, string, boolean][] = [
    ['Matrah (KDV hariç) / Net', money(data.split.net_amount), false],
    [`KDV ${ratePercent(data.split.tax_rate_bp)} / VAT`, money(data.split.tax_amount), false],
    ['Toplam (KDV dahil) / Total', money(data.total), true],
  ];
  for (const [label, value, strong] of totals) {
    doc.font(strong ? 'bold' : 'regular').fontSize(strong ? 11 : 10);
    doc.text(label, 250, y, { width: 190 });
    doc.text(value, 440, y, { width: right - 440 - 4, align: 'right' });
    y = doc.y + 6;
  }

  doc.font('regular').fontSize(8).fillColor('#555555');
  doc.text('Fiyatlara KDV dahildir. Tutarlar kuruş hassasiyetindedir. / Prices include VAT.', left, y + 24, { width });
  doc.end();
  return done;
}
