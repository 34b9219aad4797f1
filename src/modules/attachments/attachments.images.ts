import type { Readable } from 'node:stream';
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
  const decoder = sharp({ limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated: false });
  bytes.on('error', (error) => decoder.destroy(error));
  bytes.pipe(decoder);
  try {
    const meta = await decoder.metadata();
    const { width, height } = meta;
    const pixels = (width ?? 0) * (height ?? 0);
    if (!width || !height || pixels > MAX_IMAGE_PIXELS) {
      bytes.destroy();
      return null;
    }
    const thumbnail = await decoder
      .clone()
      .rotate() // EXIF orientation, so a phone's photo is upright
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toBuffer();
    return { width, height, thumbnail };
  } catch {
    bytes.destroy();
    return null;
  }
}
