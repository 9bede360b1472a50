import type { Readable } from 'node:stream';
import { AppError } from '../model';

/** A byte range of a stored file, both ends included (as HTTP's Range has them). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where uploaded files' bytes live (FileSettings.DriverName). Paths are relative, '/'-separated, made by the server
 * from ids only; a driver refuses any other. The local directory (src/infra/local-file-storage.ts) is the one driver.
 */
export interface FileStorage {
  /**
   * Streams `body` to `path` and resolves with the bytes written. All or nothing: until the stream has ended and
   * been stored whole, nothing is visible at `path`; when `body` fails (a size limit, a client gone) the part already
   * written is removed and the promise rejects with the stream's error.
   */
  put(path: string, body: Readable): Promise<number>;
  /** The stored bytes (or a range of them); rejects with a FileNotFound when nothing is stored at `path`. */
  get(path: string, range?: ByteRange): Promise<Readable>;
  /** The stored size, or undefined when nothing is stored at `path`. */
  stat(path: string): Promise<{ size: number } | undefined>;
  exists(path: string): Promise<boolean>;
  /** Removes what is stored at `path` (nothing stored is fine). */
  delete(path: string): Promise<void>;
  /**
   * A path of the local file system holding the bytes, where the driver has one: images are decoded from it
   * directly, without reading them into memory first.
   */
  localPath?(path: string): string;
}

/** Nothing is stored at the path asked for. */
export class FileNotFound extends Error {
  constructor(readonly path: string) {
    super(`no file stored at ${path}`);
    this.name = 'FileNotFound';
  }
}

const noStorage = () => AppError.notImplemented('api.file.upload_file.storage.app_error', 'Unable to upload the file: no file storage is set up.');

/** No storage configured (an app built without one): uploads answer 501 as Mattermost's do without a driver. */
export const NO_FILE_STORAGE: FileStorage = {
  put: () => Promise.reject(noStorage()),
  get: () => Promise.reject(noStorage()),
  stat: () => Promise.resolve(undefined),
  exists: () => Promise.resolve(false),
  delete: () => Promise.resolve(),
};
