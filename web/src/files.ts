import type { components } from '../../generated/api';

/**
 * Files of posts: their URLs (GetFile, GetFileThumbnail, GetFilePreview) and sizes as people read them. No DOM and no
 * state here (unit-tested in Node); the upload is in file-upload.ts.
 */

export type FileInfo = components['schemas']['FileInfo'];

/** Mattermost's limits: at most 10 files per post (and per upload request). */
export const MAX_FILES_PER_POST = 10;

export function fileUrl(id: string, download = false): string {
  return `/api/v4/files/${encodeURIComponent(id)}${download ? '?download=1' : ''}`;
}

export function thumbnailUrl(id: string): string {
  return `/api/v4/files/${encodeURIComponent(id)}/thumbnail`;
}

export function previewUrl(id: string): string {
  return `/api/v4/files/${encodeURIComponent(id)}/preview`;
}

/** An image the server made a thumbnail and preview of (SVGs and animated GIFs are shown as files). */
export function hasThumbnail(f: Pick<FileInfo, 'has_preview_image' | 'mime_type'>): boolean {
  return f.has_preview_image && f.mime_type.startsWith('image/');
}

/** "532 B", "1.2 KB", "14 MB", as Mattermost's apps show sizes (powers of 1024). */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  const shown = u === 0 || n >= 10 ? Math.round(n).toString() : (Math.round(n * 10) / 10).toString();
  return `${shown} ${units[u]}`;
}

/** The name's extension as a short upper-case label for a file card ("PDF"); "FILE" when it has none. */
export function extensionLabel(name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot + 1) : '';
  return ext && ext.length <= 5 ? ext.toUpperCase() : 'FILE';
}
