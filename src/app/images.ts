import type { Readable } from 'node:stream';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { FILE_LIMITS } from '../model';
import type { RasterFormat } from '../lib/mime';

// libvips keeps decoded images in a cache by default: memory a chat server should not hold for images it has made
// its thumbnails of.
sharp.cache(false);

/** Mattermost's sizes: a thumbnail 120 wide (landscape) or 100 high (portrait or square), previews at most 1920 wide. */
export const THUMBNAIL = { width: 120, height: 100 } as const;
export const PREVIEW_WIDTH = 1920;
const MINI_PREVIEW = 16;
const JPEG_QUALITY = 90;

export interface ImageFacts {
  format: RasterFormat;
  /** Upright dimensions (after the EXIF orientation), as the image is shown. */
  width: number;
  height: number;
  /** An animated GIF or WebP: thumbnails are made of its first frame, but it has no "preview image" (Mattermost). */
  animated: boolean;
}

export interface DerivedImages {
  /** PNG for PNG images (transparency kept), JPEG for the others (as Mattermost). */
  extension: 'png' | 'jpg';
  /** Encoded as they are read: a preview (up to 1920 × any height) is streamed to storage, never held whole. */
  thumbnail(): Readable;
  preview(): Readable;
  /** A 16×16 JPEG, for a placeholder while the image loads. */
  miniPreview: Buffer;
}

const RASTER = new Set<string>(['jpeg', 'png', 'gif', 'webp', 'tiff']);

/**
 * What an image file is, read from its header only (nothing is decoded), or undefined when it is not a raster image
 * libvips can read. `input` is a file path or the bytes.
 */
export async function inspectImage(input: string | Buffer): Promise<ImageFacts | undefined> {
  let meta: Metadata;
  try {
    meta = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    return undefined;
  }
  if (!meta.format || !RASTER.has(meta.format) || !meta.width || !meta.height) return undefined;
  // EXIF orientations 5 to 8 turn the image a quarter: its upright width is the stored height.
  const turned = (meta.orientation ?? 1) >= 5;
  return {
    format: meta.format as RasterFormat,
    width: turned ? meta.height : meta.width,
    height: turned ? meta.width : meta.height,
    animated: (meta.pages ?? 1) > 1,
  };
}

/** Whether an image is small enough to be decoded at all (Mattermost's MaxImageResolution). */
export function decodable(facts: ImageFacts): boolean {
  return facts.width * facts.height <= FILE_LIMITS.imagePixels;
}

/**
 * The thumbnail, preview and mini preview of an image, made upright first. The thumbnail keeps the aspect ratio:
 * 120 pixels wide for a landscape image, else 100 pixels high (Mattermost's GenerateThumbnail, which can make a
 * near-square landscape image taller than 100); the preview is the image scaled down to 1920 wide when wider.
 */
export async function deriveImages(input: string | Buffer, facts: ImageFacts): Promise<DerivedImages> {
  const png = facts.format === 'png';
  const source = () => sharp(input, { limitInputPixels: FILE_LIMITS.imagePixels }).rotate();
  const encode = (image: Sharp): Readable => (png ? image.png() : image.flatten({ background: '#ffffff' }).jpeg({ quality: JPEG_QUALITY }));
  const thumbnail = () => encode(source().resize(facts.width > facts.height ? { width: THUMBNAIL.width } : { height: THUMBNAIL.height }));
  const preview = () => encode(facts.width > PREVIEW_WIDTH ? source().resize({ width: PREVIEW_WIDTH }) : source());
  const miniPreview = await source()
    .resize(MINI_PREVIEW, MINI_PREVIEW, { fit: 'fill' })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: JPEG_QUALITY })
    .toBuffer();
  return { extension: png ? 'png' : 'jpg', thumbnail, preview, miniPreview };
}
