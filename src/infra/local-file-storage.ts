import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, rmdir, stat, type FileHandle } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileNotFound, type ByteRange, type FileStorage } from '../app/file-storage';

// Segments the server makes paths of: ids, dates, fixed names with an extension. Nothing else reaches the disk.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * FileSettings.DriverName "local": files under FileSettings.Directory. A file is written to a temporary name beside
 * its place and renamed there once complete, so a reader never sees part of a file, and a failed write leaves
 * nothing behind (the temporary file and the directories made for it are removed).
 */
export class LocalFileStorage implements FileStorage {
  private readonly root: string;

  constructor(directory: string) {
    this.root = resolve(directory);
  }

  /** The absolute path of a storage path, refusing anything that is not plain segments under the root. */
  localPath(path: string): string {
    const segments = path.split('/');
    if (isAbsolute(path) || segments.some((s) => !SEGMENT.test(s) || s === '.' || s === '..')) {
      throw new Error(`invalid storage path ${JSON.stringify(path)}`);
    }
    const full = join(this.root, ...segments);
    if (!full.startsWith(this.root + sep)) throw new Error(`storage path outside the root: ${path}`);
    return full;
  }

  async put(path: string, body: Readable): Promise<number> {
    const full = this.localPath(path);
    const temporary = `${full}.${randomBytes(8).toString('hex')}.part`;
    try {
      const handle = await this.create(temporary);
      await pipeline(body, handle.createWriteStream());
      await rename(temporary, full);
    } catch (err) {
      body.destroy();
      await rm(temporary, { force: true });
      await this.prune(dirname(full));
      throw err;
    }
    return (await stat(full)).size;
  }

  /**
   * Opens a new file, making its directories. A failed upload beside it may be removing the directories it leaves
   * empty at that moment (prune): then the directories are made again.
   */
  private async create(file: string): Promise<FileHandle> {
    for (let attempt = 1; ; attempt++) {
      await mkdir(dirname(file), { recursive: true });
      try {
        return await open(file, 'wx');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt === 3) throw err;
      }
    }
  }

  async get(path: string, range?: ByteRange): Promise<Readable> {
    const full = this.localPath(path);
    if (!(await this.stat(path))) throw new FileNotFound(path);
    return createReadStream(full, range ? { start: range.start, end: range.end } : {});
  }

  async stat(path: string): Promise<{ size: number } | undefined> {
    try {
      const s = await stat(this.localPath(path));
      return s.isFile() ? { size: s.size } : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async exists(path: string): Promise<boolean> {
    return (await this.stat(path)) !== undefined;
  }

  async delete(path: string): Promise<void> {
    const full = this.localPath(path);
    await rm(full, { force: true });
    await this.prune(dirname(full));
  }

  /** Removes directories left empty, from `dir` up to (not including) the root. */
  private async prune(dir: string): Promise<void> {
    for (let d = dir; d.startsWith(this.root + sep); d = dirname(d)) {
      try {
        await rmdir(d);
      } catch {
        return; // not empty (or already gone): the directories above are in use too
      }
    }
  }
}
