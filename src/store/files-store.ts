import type { FileRecord } from '../model';
import { Executor, Row, bool, num, str } from './rows';

const TABLE = 'file_info';

function mapRow(r: Row): FileRecord {
  return {
    id: str(r.id),
    user_id: str(r.user_id),
    channel_id: str(r.channel_id),
    post_id: str(r.post_id),
    create_at: num(r.create_at),
    update_at: num(r.update_at),
    delete_at: num(r.delete_at),
    path: str(r.path),
    thumbnail_path: str(r.thumbnail_path),
    preview_path: str(r.preview_path),
    name: str(r.name),
    extension: str(r.extension),
    size: num(r.size),
    mime_type: str(r.mime_type),
    width: num(r.width),
    height: num(r.height),
    has_preview_image: bool(r.has_preview_image),
    mini_preview: r.mini_preview === null || r.mini_preview === undefined ? null : str(r.mini_preview),
  };
}

function toRow(f: FileRecord): Row {
  return { ...f };
}

/** Uploaded files' records (FileInfo). */
export class FilesStore {
  constructor(private readonly db: Executor) {}

  async insertMany(files: FileRecord[]): Promise<void> {
    if (files.length > 0) await this.db(TABLE).insert(files.map(toRow));
  }

  async get(id: string): Promise<FileRecord | undefined> {
    const r = await this.db(TABLE).where({ id }).first();
    return r ? mapRow(r) : undefined;
  }

  /** The live files attached to these posts, in no particular order. */
  async forPosts(postIds: string[]): Promise<FileRecord[]> {
    if (postIds.length === 0) return [];
    return (await this.db(TABLE).whereIn('post_id', [...new Set(postIds)]).where('delete_at', 0)).map(mapRow);
  }

  /**
   * Attaches files to a post, as Mattermost's AttachToPost does but for all of them or none: each must be live,
   * uploaded by `userId` to `channelId`, and attached to no post yet. Returns how many were attached; the caller
   * undoes a partial attach (detach) when that is fewer than asked. Must run in the post's transaction: two posts
   * claiming one file cannot both succeed (the second UPDATE finds post_id already set).
   */
  async attach(ids: string[], post: { id: string; user_id: string; channel_id: string }, now: number): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db(TABLE)
      .whereIn('id', ids)
      .where({ post_id: '', user_id: post.user_id, channel_id: post.channel_id, delete_at: 0 })
      .update({ post_id: post.id, update_at: now });
  }

  /** Undoes attach() for a post that is not written after all. */
  async detach(postId: string): Promise<void> {
    await this.db(TABLE).where({ post_id: postId }).update({ post_id: '' });
  }

  /**
   * The bytes a user's files take in storage (their `size`; thumbnails and previews are not counted): every live
   * file, attached or not, and the deleted ones deleted at or after `deletedSince` (whose bytes are still kept).
   */
  async storedBytes(userId: string, deletedSince: number): Promise<number> {
    const r = await this.db(TABLE)
      .where('user_id', userId)
      .where((q) => q.where('delete_at', 0).orWhere('delete_at', '>=', deletedSince))
      .sum({ n: 'size' })
      .first();
    return num(r?.n);
  }

  /** Up to `limit` live files attached to no post, uploaded before `createdBefore`. */
  async unattachedBefore(createdBefore: number, limit: number): Promise<FileRecord[]> {
    return (await this.db(TABLE).where({ post_id: '', delete_at: 0 }).where('create_at', '<', createdBefore).limit(limit)).map(mapRow);
  }

  /**
   * Removes the records of these files that are still attached to no post; returns the ids removed. A file a post
   * attached meanwhile (its post_id set in the post's transaction) keeps its record: the caller removes the bytes of
   * the returned ids only, so a post never lists a file whose bytes are gone.
   */
  async removeUnattached(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    await this.db(TABLE).whereIn('id', ids).where({ post_id: '', delete_at: 0 }).delete();
    const kept = new Set((await this.db(TABLE).whereIn('id', ids).select('id')).map((r: Row) => str(r.id)));
    return ids.filter((id) => !kept.has(id));
  }

  /** Up to `limit` deleted files, deleted before `deletedBefore`. */
  async deletedBefore(deletedBefore: number, limit: number): Promise<FileRecord[]> {
    return (await this.db(TABLE).where('delete_at', '>', 0).where('delete_at', '<', deletedBefore).limit(limit)).map(mapRow);
  }

  /** Removes the records of deleted files (once their bytes are removed); a live file's record is never removed here. */
  async removeDeleted(ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return this.db(TABLE).whereIn('id', ids).where('delete_at', '>', 0).delete();
  }

  /** Soft-deletes the files of a post and, for a root post, of its replies (deleted with it). */
  async deleteForThread(postId: string, now: number): Promise<void> {
    await this.db(TABLE)
      .where('delete_at', 0)
      .whereIn('post_id', (q) => q.select('id').from('posts').where('id', postId).orWhere('root_id', postId))
      .update({ delete_at: now, update_at: now });
  }
}
