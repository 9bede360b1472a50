import { Readable } from 'node:stream';
import sharp from 'sharp';
import { newId } from '../lib/ids';
import { defaultAvatar } from '../lib/avatar';
import { AppError, FILE_LIMITS, type Session, type UserRecord, type Versioned } from '../model';
import { Authz } from './authz';
import type { Deps } from './deps';
import { FileNotFound, NO_FILE_STORAGE, type FileStorage } from './file-storage';
import type { UploadPart } from './files';
import { decodable, inspectImage } from './images';
import type { Realtime } from './realtime';

/** Mattermost's profile pictures: 128×128 PNGs. */
const SIZE = 128;
/** The formats a picture may be sent in (Mattermost decodes these). */
const ACCEPTED = new Set(['png', 'jpeg', 'gif']);
/** An uploaded picture changes URL (last_picture_update) when it changes: caches may keep it a day, as Mattermost's. */
const UPLOADED_MAX_AGE = 86400;
/** The generated picture follows the username, which can change without a new URL: kept briefly. */
const DEFAULT_MAX_AGE = 300;

export const profileImagePath = (userId: string) => `users/${userId}/profile.png`;

/** A profile picture to serve: its bytes (built only when the client's copy is stale) and how long caches keep it. */
export interface ProfileImage {
  image: Versioned<Buffer>;
  maxAge: number;
}

const tooLarge = () => new AppError('api.user.upload_profile_user.too_large.app_error', 'Unable to upload profile image. File is too large.', 413);
const noStorage = () => AppError.notImplemented('api.user.upload_profile_user.storage.app_error', 'Unable to upload file. Image storage is not configured.');
const badImage = () => AppError.badRequest('api.user.upload_profile_user.check_image_limits.app_error', 'The image is not a picture, or its dimensions exceed the limits.');
const undecodable = () => AppError.badRequest('api.user.upload_profile_user.decode.app_error', 'Could not decode profile image: send a PNG, JPEG or GIF.');
const userNotFound = () => AppError.notFound('app.user.missing_account.const', 'Unable to find the user.');

/** Ids of the form reader's failures, as Mattermost names them for a profile picture. */
const FORM_FAILURES: Record<string, () => AppError> = {
  'api.file.upload_file.read_request.app_error': () => AppError.badRequest('api.user.upload_profile_user.parse.app_error', 'Could not parse multipart form.'),
  'api.context.request_body_too_large.app_error': tooLarge,
};

/** The bytes of `source`, failing with a 413 past `limit`: a picture is never stored beyond it. */
function limited(source: Readable, limit: number): Readable {
  async function* pass() {
    let size = 0;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge();
      yield chunk;
    }
  }
  return Readable.from(pass(), { objectMode: false });
}

/**
 * Users' uploaded profile pictures (SetProfileImage, SetDefaultProfileImage) in the server's file storage, and the
 * picture GetProfileImage serves: the uploaded one, else the generated default.
 */
export class ProfileImagesService {
  private readonly authz: Authz;

  constructor(
    private readonly deps: Deps,
    private readonly storage: FileStorage,
    private readonly realtime: Realtime,
  ) {
    this.authz = new Authz(deps);
  }

  /** Mattermost's SessionHasPermissionToUserOrBot, then its file-storage check. */
  private async target(userId: string, session: Session): Promise<UserRecord | undefined> {
    if (userId !== session.userId) this.authz.requireSystem(session, 'edit_other_users');
    if (this.storage === NO_FILE_STORAGE) throw noStorage();
    return this.deps.stores.users.get(userId);
  }

  async get(userId: string): Promise<ProfileImage> {
    const user = await this.deps.stores.users.get(userId);
    if (!user) throw userNotFound();
    const path = profileImagePath(user.id);
    if (user.last_picture_update > 0 && (await this.storage.exists(path))) {
      return { image: { etag: String(user.last_picture_update), build: () => this.read(path, user) }, maxAge: UPLOADED_MAX_AGE };
    }
    const avatar = defaultAvatar(user.id, user.username);
    return { image: { etag: `${user.last_picture_update}.${avatar.key}`, build: async () => avatar.png }, maxAge: DEFAULT_MAX_AGE };
  }

  /** The stored picture; removed since it was looked at (a reset meanwhile): the default. */
  private async read(path: string, user: UserRecord): Promise<Buffer> {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of await this.storage.get(path)) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      if (err instanceof FileNotFound) return defaultAvatar(user.id, user.username).png;
      throw err;
    }
  }

  /**
   * Sets the picture from the form's first `image` file. The form is opened only once the caller may (so a refused
   * upload is not read); the file is streamed to storage (never held in memory whole), read from there for its
   * header and decoding, and replaced by the 128×128 PNG.
   */
  async set(userId: string, openForm: () => AsyncIterableIterator<UploadPart>, session: Session): Promise<void> {
    const user = await this.target(userId, session);
    // Mattermost's answer for an unknown user here (after it parsed the form; before, here: nothing is read).
    if (!user) throw AppError.badRequest('api.context.invalid_url_param.app_error', 'Invalid or missing user_id parameter in request URL.');
    const form = openForm();
    const { stores } = this.deps;
    const upload = `users/${user.id}/upload-${newId()}`;
    let stored = false;
    try {
      stored = await this.receive(form, upload);
      if (!stored) throw AppError.badRequest('api.user.upload_profile_user.no_file.app_error', 'No file under "image" in request.');
      const png = await this.squarePng(upload);
      await this.storage.put(profileImagePath(user.id), Readable.from([png]));
    } finally {
      if (stored) await this.storage.delete(upload).catch((err: unknown) => this.deps.onBackgroundError(err, 'profile image upload clean-up'));
    }
    const now = this.deps.now();
    const fields = { last_picture_update: Math.max(now, user.last_picture_update + 1), update_at: Math.max(now, user.update_at + 1) };
    await stores.users.update(user.id, fields);
    this.realtime.userUpdated({ ...user, ...fields });
  }

  /** Streams the first `image` file of the form to `path`; false when the form has none. */
  private async receive(form: AsyncIterableIterator<UploadPart>, path: string): Promise<boolean> {
    const maxBytes = this.deps.config.get().FileSettings.MaxFileSize;
    try {
      for await (const part of form) {
        if (part.kind !== 'file') continue;
        if (part.name !== 'image') {
          part.stream.resume();
          continue;
        }
        await this.storage.put(path, limited(part.stream, maxBytes));
        return true;
      }
      return false;
    } catch (err) {
      const mapped = err instanceof AppError ? FORM_FAILURES[err.id] : undefined;
      throw mapped ? mapped() : err;
    }
  }

  /** Mattermost's AdjustImage: upright, the centred square, 128×128, as a PNG. */
  private async squarePng(path: string): Promise<Buffer> {
    const input = this.storage.localPath ? this.storage.localPath(path) : await this.readAll(path);
    const facts = await inspectImage(input);
    if (!facts || !decodable(facts)) throw badImage();
    if (!ACCEPTED.has(facts.format)) throw undecodable();
    try {
      return await sharp(input, { limitInputPixels: FILE_LIMITS.imagePixels }).rotate().resize(SIZE, SIZE, { fit: 'cover', position: 'centre' }).png().toBuffer();
    } catch {
      throw undecodable();
    }
  }

  private async readAll(path: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.storage.get(path)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /**
   * Back to the generated picture: the upload is removed and last_picture_update becomes the reset's time negated,
   * as Mattermost's ResetLastPictureUpdate does (a new cache-busting value that says "no upload").
   */
  async reset(userId: string, session: Session): Promise<void> {
    const user = await this.target(userId, session);
    if (!user) throw userNotFound();
    await this.storage.delete(profileImagePath(user.id));
    const now = this.deps.now();
    const fields = { last_picture_update: -now, update_at: Math.max(now, user.update_at + 1) };
    await this.deps.stores.users.update(user.id, fields);
    this.realtime.userUpdated({ ...user, ...fields });
  }
}
