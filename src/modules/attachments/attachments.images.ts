import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { MAX_IMAGE_PIXELS, THUMBNAIL_SIZE } from './attachments.rules.js';

/** Thumbnails of raster images with sharp (contract 25.5): one decoder thread per image, the service has few cores. */
sharp.concurrency(1);

/**
 * The size of a raster image and its thumbnail (WebP, 320 px on the longer side, never enlarged), read from its
 * stored bytes. Null for an image over 50,000,000 pixels (a decompression bomb: sharp refuses to decode it) or one
 * sharp cannot read: it stays stored, without size or thumbnail.
 */
export async function imageAndThumbnail(bytes: Readable): Promise<{ width: number; height: number; thumbnail: Buffer } | null> {
  // sharp buffers a stream's whole input before it decodes; from a file it reads as it goes. So the bytes are spooled
  // to a temporary file first: an image of ATTACHMENT_MAX_MB is never held in memory (25.6), only the rows libvips
  // decodes in sequential mode while it shrinks.
  const dir = await mkdtemp(join(tmpdir(), 'wis-image-'));
  const path = join(dir, 'image');
  try {
    await pipeline(bytes, createWriteStream(path));
    return await readImage(path);
  } catch {
    bytes.destroy();
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readImage(path: string): Promise<{ width: number; height: number; thumbnail: Buffer } | null> {
  const decoder = sharp(path, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated: false, sequentialRead: true });
  try {
    const meta = await decoder.metadata();
    // The size as the image is shown (its EXIF orientation applied, as browsers and the thumbnail do): a phone's
    // portrait photo stored 4032 × 3024 is 3024 × 4032.
    const { width, height } = meta.autoOrient ?? meta;
    const pixels = (width ?? 0) * (height ?? 0);
    if (!width || !height || pixels > MAX_IMAGE_PIXELS) return null;
    const thumbnail = await decoder
      .clone()
      .rotate() // EXIF orientation, so a phone's photo is upright
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    return { width, height, thumbnail };
  } catch {
    return null;
  }
}
