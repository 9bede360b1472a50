import type { Schemas } from './wire';

/** A FileInfo as served (Mattermost's shape): `post_id`, `width` and `height` only where they apply. */
export type FileInfo = Schemas['FileInfo'];

/** A FileInfo as stored: where its bytes (and its derived images) are, which is never served. */
export interface FileRecord {
  id: string;
  user_id: string;
  channel_id: string;
  post_id: string;
  create_at: number;
  update_at: number;
  delete_at: number;
  /** Storage paths (relative to the storage root); the derived images' are empty for a file that is not an image. */
  path: string;
  thumbnail_path: string;
  preview_path: string;
  name: string;
  extension: string;
  size: number;
  mime_type: string;
  /** 0 for a file that is not an image. */
  width: number;
  height: number;
  has_preview_image: boolean;
  /** Base64 of a 16×16 JPEG, images only. */
  mini_preview: string | null;
}

/** The served form of a stored file: no storage paths, and Mattermost's omitted-when-empty fields left out. */
export function toFileInfo(r: FileRecord): FileInfo {
  const info: FileInfo = {
    id: r.id,
    user_id: r.user_id,
    channel_id: r.channel_id,
    create_at: r.create_at,
    update_at: r.update_at,
    delete_at: r.delete_at,
    name: r.name,
    extension: r.extension,
    size: r.size,
    mime_type: r.mime_type,
    has_preview_image: r.has_preview_image,
    mini_preview: r.mini_preview,
  };
  if (r.post_id !== '') info.post_id = r.post_id;
  if (r.width > 0 && r.height > 0) {
    info.width = r.width;
    info.height = r.height;
  }
  return info;
}
