// Files on posts: CreatePost's file_ids, attached in the post's own transaction, and metadata.files on every post
// that is read. Kept apart from the post services (post-create.ts, posts.ts), which only call these.
import { isValidId } from '../lib/ids';
import { AppError, FILE_LIMITS, toFileInfo, type FileInfo, type FileRecord, type Post } from '../model';
import type { Stores, TxStores } from '../store';

/** A post's file_ids as given: unique (in their order), valid ids, at most 10 (Mattermost's 300-character column). */
export function normalizeFileIds(given: string[] | undefined): string[] {
  const ids = [...new Set(given ?? [])];
  if (ids.length > FILE_LIMITS.filesPerPost || ids.some((id) => !isValidId(id))) {
    throw AppError.badRequest('model.post.is_valid.file_ids.app_error', `Invalid file_ids: at most ${FILE_LIMITS.filesPerPost} file ids.`);
  }
  return ids;
}

/** The files refused: Parley refuses the post where Mattermost would post it without them (see attachFiles). */
export const filesRefused = () =>
  AppError.badRequest(
    'api.post.create_post.file_ids.app_error',
    'Invalid file_ids: each file must have been uploaded by you to this channel and not be attached to a post already.',
  );

/**
 * Attaching a new post's files, inside the transaction that writes the post: `precondition` claims every file (see
 * FilesStore.attach) or none, and then `infos` are what metadata.files lists. Mattermost attaches what it can after
 * the post is saved and silently drops the rest; here a file that cannot be attached (someone else's, another
 * channel's, already on a post, a concurrent post's) refuses the whole post instead, so nobody believes they shared
 * a file they did not.
 */
export function attachFiles(post: Post, fileIds: string[], now: number): { precondition: (tx: TxStores) => Promise<boolean>; infos(): FileInfo[] } {
  let attached: FileRecord[] = [];
  return {
    precondition: async (tx) => {
      const n = await tx.files.attach(fileIds, post, now);
      if (n !== fileIds.length) {
        // Part of them may be claimed already in this transaction: let them go, the post is not written.
        if (n > 0) await tx.files.detach(post.id);
        return false;
      }
      attached = await tx.files.forPosts([post.id]);
      return true;
    },
    infos: () => ordered(fileIds, attached).map(toFileInfo),
  };
}

function ordered(fileIds: string[], files: FileRecord[]): FileRecord[] {
  const byId = new Map(files.map((f) => [f.id, f]));
  return fileIds.map((id) => byId.get(id)).filter((f): f is FileRecord => f !== undefined);
}

/** The posts with metadata.files filled in (their live files, in file_ids order), read in one query. */
export async function withFileMetadata(stores: Stores, posts: Post[]): Promise<Post[]> {
  const having = posts.filter((p) => p.file_ids.length > 0);
  if (having.length === 0) return posts;
  const byPost = new Map<string, FileRecord[]>();
  for (const f of await stores.files.forPosts(having.map((p) => p.id))) byPost.set(f.post_id, [...(byPost.get(f.post_id) ?? []), f]);
  return posts.map((p) => {
    const files = p.file_ids.length > 0 ? ordered(p.file_ids, byPost.get(p.id) ?? []) : [];
    return files.length > 0 ? { ...p, metadata: { ...p.metadata, files: files.map(toFileInfo) } } : p;
  });
}
