import { Readable } from 'node:stream';
import { newId, isValidId } from '../lib/ids';
import { OCTET_STREAM, RASTER_MIME, mimeTypeOf, sniffRaster, type RasterFormat } from '../lib/mime';
import { Semaphore } from '../lib/semaphore';
import { codePointLength, splitByCodePoints } from '../lib/text';
import { AppError, FILE_LIMITS, toFileInfo, type FileInfo, type FileRecord, type Schemas, type Session } from '../model';
import { Authz } from './authz';
import { channelNotFound } from './channel-errors';
import type { Deps } from './deps';
import { FileNotFound, type ByteRange, type FileStorage } from './file-storage';
import { decodable, deriveImages, inspectImage, type DerivedImages, type ImageFacts } from './images';
import { UploadQuota, type QuotaTicket } from './upload-quota';

export type FileUploadResponse = Schemas['FileUploadResponse'];

/**
 * One part of an upload form, in the order sent: a form field, or a file whose bytes are read from `stream` (the
 * next part arrives only once this one has been read to its end).
 */
export type UploadPart = { kind: 'field'; name: string; value: string; truncated: boolean } | { kind: 'file'; name: string; filename: string; stream: Readable };

/** What GetFile, GetFileThumbnail and GetFilePreview answer: the bytes to stream and what to say about them. */
export interface FileDownload {
  name: string;
  contentType: string;
  size: number;
  /** update_at of the file, for Last-Modified. */
  lastModified: number;
  open(range?: ByteRange): Promise<Readable>;
}

export type DerivedKind = 'file' | 'thumbnail' | 'preview';

const fileNotFound = () => AppError.notFound('app.file_info.get.app_error', 'Unable to get the file info.');
const postNotFound = () => AppError.notFound('app.post.get.app_error', 'Unable to get the post.');
const storageMissing = () => AppError.notFound('api.file.file_reader.app_error', 'Unable to read the file from storage.');

const tooLarge = (filename: string, limit: number) =>
  new AppError('api.file.upload_file.too_large_detailed.app_error', `Unable to upload file ${filename}. It exceeds the maximum allowed ${limit} bytes.`, 413, `limit=${limit}`);

const overQuota = (filename: string, limit: number) =>
  new AppError(
    'api.file.upload_file.storage_quota.app_error',
    `Unable to upload file ${filename}. Your files would exceed the ${limit} bytes of storage allowed per user.`,
    413,
    `limit=${limit}`,
  );

const archivedChannel = () => AppError.badRequest('api.file.upload_file.can_not_upload_to_deleted.error', 'Can not upload files to an archived channel.');

/** Files the hourly clean-up removes per query (their records and bytes); it goes on until none are left. */
const PURGE_BATCH = 500;
/** Stored files removed at once by the clean-up. */
const PURGE_REMOVALS = 16;
const HOUR_MS = 3_600_000;

/** An upload's account under FileSettings.MaxUserStorageBytes (none when the setting is 0). */
interface Allowance {
  ticket: QuotaTicket;
  limit: number;
}

/** Images are decoded two at a time at most (each can take its width × height × 4 bytes); the rest wait their turn. */
const IMAGE_JOBS = 2;
const IMAGE_JOBS_WAITING = 256;

/** Bytes of a file sniffed for an image's magic number. */
const HEAD_BYTES = 16;

/** A file's name as stored: no directory, no control characters, at most 255 code points (keeping its extension). */
export function cleanFileName(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const name = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (codePointLength(name) <= FILE_LIMITS.name) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && codePointLength(name) - codePointLength(name.slice(0, dot)) <= 17 ? name.slice(dot) : '';
  return splitByCodePoints(name.slice(0, name.length - extension.length), FILE_LIMITS.name - codePointLength(extension))[0] + extension;
}

/** The extension as Mattermost stores it: lower-case, without the dot; empty when there is none (or it is too long to be one). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return '';
  const extension = name.slice(dot + 1).toLowerCase();
  return extension.length <= FILE_LIMITS.extension ? extension : '';
}

/** Go's strconv.ParseBool true values, which Mattermost's `download` accepts. */
export function parseTrue(value: string | undefined): boolean {
  return value !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
}

/**
 * The bytes of `source`, refusing (413) past `limit` or past what is left of the uploader's allowance, with the first
 * few bytes kept in `head` as they pass.
 */
function limited(source: Readable, limit: number, filename: string, head: { bytes: Buffer }, allowance: Allowance | undefined): Readable {
  async function* pass() {
    let size = 0;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(filename, limit);
      if (allowance && !allowance.ticket.take(chunk.length, allowance.limit)) throw overQuota(filename, allowance.limit);
      if (head.bytes.length < HEAD_BYTES) head.bytes = Buffer.concat([head.bytes, chunk.subarray(0, HEAD_BYTES - head.bytes.length)]);
      yield chunk;
    }
  }
  return Readable.from(pass(), { objectMode: false });
}

/** Uploads, downloads and the files of posts (Mattermost's files API); the bytes live in a FileStorage. */
export class FilesService {
  private readonly authz: Authz;
  private readonly imageJobs = new Semaphore(IMAGE_JOBS, IMAGE_JOBS_WAITING);
  private readonly quota: UploadQuota;
  private purging = false;

  constructor(
    private readonly deps: Deps,
    readonly storage: FileStorage,
  ) {
    this.authz = new Authz(deps);
    this.quota = new UploadQuota((userId) => deps.stores.files.storedBytes(userId, this.deletedKeptSince()));
  }

  /** The deletion time from which a deleted file's bytes are still kept (FileSettings.DeletedRetentionHours). */
  private deletedKeptSince(): number {
    const hours = this.deps.config.get().FileSettings.DeletedRetentionHours;
    return hours === 0 ? 0 : this.deps.now() - hours * HOUR_MS;
  }

  /**
   * Stores the files of an upload form and records them, all or nothing: every file streamed to storage (never held
   * in memory), each checked against FileSettings.MaxFileSize as it arrives, then one insert of all their records.
   * Whatever fails, every byte already stored for this request is removed before the error is thrown. The bytes
   * count against FileSettings.MaxUserStorageBytes as they arrive: with nothing left the first file is refused before
   * a byte of it is stored, else the upload is cut (413) the moment it passes what was left, which bounds a request of
   * 10 files of MaxFileSize too.
   */
  async upload(form: AsyncIterable<UploadPart>, queryChannelId: string | undefined, session: Session): Promise<FileUploadResponse> {
    const settings = this.deps.config.get().FileSettings;
    if (!settings.EnableFileAttachments) throw new AppError('api.file.attachments.disabled.app_error', 'File attachments have been disabled on this server.', 403);
    let channelId = queryChannelId ?? '';
    const clientIds: string[] = [];
    const records: FileRecord[] = [];
    const written: string[] = [];
    let checked = false;
    let allowance: Allowance | undefined;
    let kept = false;
    try {
      for await (const part of form) {
        if (part.kind === 'field') {
          if (part.truncated) throw AppError.badRequest('api.file.upload_file.read_form_value.app_error', `The form value ${part.name} is too long.`);
          if (part.name === 'channel_id') {
            if (checked || (channelId !== '' && channelId !== part.value)) {
              throw AppError.badRequest('api.file.upload_file.multiple_channel_ids.app_error', 'Unable to upload the files: several channel ids were given.');
            }
            channelId = part.value;
          } else if (part.name === 'client_ids') {
            if (records.length > 0) throw AppError.invalidParam('client_ids');
            if (clientIds.length >= FILE_LIMITS.filesPerUpload) throw AppError.invalidParam('client_ids');
            clientIds.push(part.value);
          } else {
            throw AppError.invalidParam(part.name);
          }
          continue;
        }
        // The first file: the channel and the permission to upload there are checked before a byte is stored. The
        // fields therefore come first (as the apps send them); a file before any channel_id is a 400.
        if (!checked) {
          await this.checkUpload(channelId, session);
          checked = true;
          const limit = settings.MaxUserStorageBytes;
          if (limit > 0) allowance = { ticket: await this.quota.open(session.userId), limit };
        }
        if (allowance && allowance.ticket.left(allowance.limit) <= 0) {
          part.stream.resume();
          throw overQuota(cleanFileName(part.filename) || 'files', allowance.limit);
        }
        if (records.length >= FILE_LIMITS.filesPerUpload) {
          throw AppError.badRequest('api.file.upload_file.too_many_files.app_error', `At most ${FILE_LIMITS.filesPerUpload} files can be uploaded at once.`);
        }
        if (clientIds.length > 0 && records.length >= clientIds.length) throw AppError.invalidParam('client_ids');
        records.push(await this.store(part, channelId, session, settings.MaxFileSize, written, allowance));
      }
      if (records.length === 0) throw AppError.invalidParam('files');
      if (clientIds.length > 0 && clientIds.length !== records.length) {
        throw AppError.badRequest(
          'api.file.upload_file.incorrect_number_of_client_ids.app_error',
          `Unable to upload the files: ${clientIds.length} client ids for ${records.length} files.`,
        );
      }
      await this.deps.stores.files.insertMany(records);
      kept = true;
    } catch (err) {
      await Promise.all(written.map((path) => this.storage.delete(path).catch((e: unknown) => this.deps.onBackgroundError(e, `stored file ${path} not removed`))));
      throw err;
    } finally {
      allowance?.ticket.close(kept);
    }
    return { file_infos: records.map(toFileInfo), client_ids: clientIds };
  }

  private async checkUpload(channelId: string, session: Session): Promise<void> {
    if (!isValidId(channelId)) throw AppError.invalidParam('channel_id');
    const channel = await this.deps.stores.channels.get(channelId);
    if (!channel) throw channelNotFound();
    await this.authz.requireChannel(session, channel, 'upload_file');
    // As a post there is refused (api.post.create_post.can_not_post_to_deleted.error): a file uploaded to an
    // archived channel could never be attached.
    if (channel.delete_at !== 0) throw archivedChannel();
  }

  /** Streams one file to storage (and its thumbnail and preview, for an image): its record, not yet inserted. */
  private async store(
    part: Extract<UploadPart, { kind: 'file' }>,
    channelId: string,
    session: Session,
    maxFileSize: number,
    written: string[],
    allowance: Allowance | undefined,
  ): Promise<FileRecord> {
    const name = cleanFileName(part.filename);
    if (name === '') {
      part.stream.resume();
      throw AppError.invalidParam('files');
    }
    const id = newId();
    const now = this.deps.now();
    const day = new Date(now).toISOString().slice(0, 10).replace(/-/g, '');
    // Mattermost's layout, with names of the server's own: the uploaded name is kept in the record only.
    const dir = `${day}/teams/noteam/channels/${channelId}/users/${session.userId}/${id}`;
    const extension = extensionOf(name);
    const path = `${dir}/${/^[a-z0-9]{1,16}$/.test(extension) ? `original.${extension}` : 'original'}`;
    const head = { bytes: Buffer.alloc(0) };
    written.push(path);
    const size = await this.storage.put(path, limited(part.stream, maxFileSize, name, head, allowance));
    const raster = sniffRaster(head.bytes);
    const record: FileRecord = {
      id,
      user_id: session.userId,
      channel_id: channelId,
      post_id: '',
      create_at: now,
      update_at: now,
      delete_at: 0,
      path,
      thumbnail_path: '',
      preview_path: '',
      name,
      extension,
      size,
      mime_type: mimeTypeOf(extension) ?? (raster ? RASTER_MIME[raster] : OCTET_STREAM),
      width: 0,
      height: 0,
      has_preview_image: false,
      mini_preview: null,
    };
    if (raster) await this.addImage(record, raster, dir, written);
    return record;
  }

  /**
   * Thumbnail, preview and mini preview of an image, made now (not on first view) because the upload's answer must
   * carry the image's size and mini preview anyway, which takes reading the image; and a post with an image in a
   * busy channel would otherwise have every member ask for the same missing thumbnail at once.
   */
  private async addImage(record: FileRecord, sniffed: RasterFormat, dir: string, written: string[]): Promise<void> {
    await this.imageJobs.run(async () => {
      const input = this.storage.localPath ? this.storage.localPath(record.path) : await this.readAll(record.path);
      const facts: ImageFacts | undefined = await inspectImage(input);
      if (!facts) return; // a header that only looked like an image: an ordinary file
      if (!decodable(facts)) {
        throw AppError.badRequest(
          'api.file.upload_file.large_image_detailed.app_error',
          `${record.name} dimensions (${facts.width} by ${facts.height} pixels) exceed the limits (${FILE_LIMITS.imagePixels} pixels).`,
        );
      }
      let derived: DerivedImages;
      try {
        derived = await deriveImages(input, facts);
        const thumbnail = `${dir}/thumb.${derived.extension}`;
        const preview = `${dir}/preview.${derived.extension}`;
        written.push(thumbnail, preview);
        await this.storage.put(thumbnail, derived.thumbnail());
        await this.storage.put(preview, derived.preview());
        record.thumbnail_path = thumbnail;
        record.preview_path = preview;
      } catch (err) {
        // A corrupt image past its header: kept as an ordinary file, as Mattermost does when it cannot decode one.
        this.deps.onBackgroundError(err, `no thumbnail for ${sniffed} file ${record.id}`);
        return;
      }
      record.width = facts.width;
      record.height = facts.height;
      record.has_preview_image = !facts.animated;
      record.mini_preview = derived.miniPreview.toString('base64');
    }, AppError.serverBusy);
  }

  /** A stored file's bytes, for a storage without local paths (the file is at most MaxFileSize). */
  private async readAll(path: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.get(path)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * A live file the caller may read: its uploader, or anyone who may read the channel it was uploaded to (as current
   * Mattermost decides it). A file whose post was deleted is gone (404). A file the caller may not read is a 403, not
   * a 404: its id is 128 random bits nobody guesses, so the 403 tells nothing to someone who does not already hold
   * the id (and someone who does saw it in a channel they were in).
   */
  private async readable(fileId: string, session: Session): Promise<FileRecord> {
    const file = await this.deps.stores.files.get(fileId);
    if (!file || file.delete_at !== 0) throw fileNotFound();
    if (file.user_id === session.userId) return file;
    const channel = await this.deps.stores.channels.get(file.channel_id);
    if (!channel) throw AppError.forbidden('read_channel');
    await this.authz.requireChannel(session, channel, 'read_channel');
    return file;
  }

  async info(fileId: string, session: Session): Promise<FileInfo> {
    return toFileInfo(await this.readable(fileId, session));
  }

  async download(fileId: string, kind: DerivedKind, session: Session): Promise<FileDownload> {
    const file = await this.readable(fileId, session);
    let path = file.path;
    let contentType = file.mime_type;
    if (kind !== 'file') {
      path = kind === 'thumbnail' ? file.thumbnail_path : file.preview_path;
      if (path === '') {
        throw kind === 'thumbnail'
          ? AppError.badRequest('api.file.get_file_thumbnail.no_thumbnail.app_error', 'The file has no thumbnail.', `file_id=${file.id}`)
          : AppError.badRequest('api.file.get_file_preview.no_preview.app_error', 'The file has no preview.', `file_id=${file.id}`);
      }
      // Labelled as what they are (Mattermost labels every thumbnail and preview image/jpeg, PNG ones too).
      contentType = path.endsWith('.png') ? 'image/png' : 'image/jpeg';
    }
    const stored = await this.storage.stat(path);
    if (!stored) throw storageMissing();
    return {
      name: file.name,
      contentType,
      size: stored.size,
      lastModified: file.update_at,
      open: async (range) => {
        try {
          return await this.storage.get(path, range);
        } catch (err) {
          throw err instanceof FileNotFound ? storageMissing() : err;
        }
      },
    };
  }

  /**
   * The hourly clean-up (App.startMaintenance): uploads attached to no post for FileSettings.UnattachedRetentionHours
   * lose their record, then their bytes; deleted files (a deleted post's) kept for DeletedRetentionHours lose their
   * bytes, then their record. The order matters: an unattached file's record goes first, only if no post claimed it
   * meanwhile, so a post never lists a file without bytes; a deleted file can never come back, and its record stays
   * until its bytes are gone, so a removal that fails is tried again at the next run. One run at a time per process.
   */
  async purge(): Promise<{ unattached: number; deleted: number }> {
    const done = { unattached: 0, deleted: 0 };
    if (this.purging) return done;
    this.purging = true;
    try {
      const { files } = this.deps.stores;
      const settings = this.deps.config.get().FileSettings;
      if (settings.UnattachedRetentionHours > 0) {
        const before = this.deps.now() - settings.UnattachedRetentionHours * HOUR_MS;
        for (;;) {
          const batch = await files.unattachedBefore(before, PURGE_BATCH);
          const removed = new Set(await files.removeUnattached(batch.map((f) => f.id)));
          await this.removeStored(batch.filter((f) => removed.has(f.id)));
          done.unattached += removed.size;
          if (batch.length < PURGE_BATCH || removed.size === 0) break;
        }
      }
      if (settings.DeletedRetentionHours > 0) {
        const before = this.deps.now() - settings.DeletedRetentionHours * HOUR_MS;
        for (;;) {
          const batch = await files.deletedBefore(before, PURGE_BATCH);
          const gone = await this.removeStored(batch);
          done.deleted += await files.removeDeleted(gone.map((f) => f.id));
          if (batch.length < PURGE_BATCH || gone.length === 0) break;
        }
      }
    } finally {
      this.purging = false;
    }
    return done;
  }

  /** Removes the stored bytes of these files (original, thumbnail, preview), a few at a time; returns those removed. */
  private async removeStored(records: FileRecord[]): Promise<FileRecord[]> {
    const removed: FileRecord[] = [];
    for (let i = 0; i < records.length; i += PURGE_REMOVALS) {
      await Promise.all(
        records.slice(i, i + PURGE_REMOVALS).map(async (f) => {
          try {
            for (const path of [f.path, f.thumbnail_path, f.preview_path]) if (path !== '') await this.storage.delete(path);
            removed.push(f);
          } catch (err) {
            this.deps.onBackgroundError(err, `stored file ${f.id} not removed`);
          }
        }),
      );
    }
    return removed;
  }

  /** The files of a post the caller may read, in the post's file_ids order. */
  async forPost(postId: string, session: Session): Promise<FileInfo[]> {
    const { stores } = this.deps;
    const post = await stores.posts.get(postId);
    if (!post || post.delete_at !== 0) throw postNotFound();
    const channel = await stores.channels.get(post.channel_id);
    if (!channel) throw postNotFound();
    await this.authz.requireChannel(session, channel, 'read_channel');
    const files = await stores.files.forPosts([post.id]);
    const rank = new Map(post.file_ids.map((id, i) => [id, i]));
    files.sort((a, b) => (rank.get(a.id) ?? Infinity) - (rank.get(b.id) ?? Infinity) || a.create_at - b.create_at);
    return files.map(toFileInfo);
  }
}
