import { readCookie } from '../api';
import { MAX_FILES_PER_POST, formatSize, type FileInfo } from '../files';
import { uploadFile, type UploadHandle } from '../file-upload';
import { appStore } from '../state/app-store';
import { draftKey, type Upload } from '../state/files-search-state';

/**
 * Attachments of a composer's next message: each file uploaded at once (UploadFile), with its progress, removable
 * (an upload running is cancelled) until the message is sent with their `file_ids`.
 */

/** Running uploads, by client id: the only thing kept outside the state (an XMLHttpRequest is not state). */
const running = new Map<string, UploadHandle>();
let seq = 0;

function setUploads(key: string, fn: (list: Upload[]) => Upload[]): void {
  appStore.set((s) => {
    const next = fn(s.uploads[key] ?? []);
    const uploads = { ...s.uploads };
    if (next.length) uploads[key] = next;
    else delete uploads[key];
    return { uploads };
  });
}

function patchUpload(key: string, clientId: string, patch: Partial<Upload>): void {
  setUploads(key, (list) => list.map((u) => (u.clientId === clientId ? { ...u, ...patch } : u)));
}

/**
 * Starts uploading files for a composer. Returns what could not be attached (more than the server takes per post),
 * or '' when all were.
 */
export function attachFiles(channelId: string, rootId: string, files: File[]): string {
  const key = draftKey(channelId, rootId);
  const s = appStore.get();
  const held = s.uploads[key]?.length ?? 0;
  const room = Math.max(0, MAX_FILES_PER_POST - held);
  const taken = files.slice(0, room);
  const maxSize = Number(s.config.MaxFileSize) || undefined;
  const csrf = readCookie('MMCSRF');
  for (const file of taken) {
    const clientId = `${Date.now().toString(36)}-${++seq}`;
    const tooBig = maxSize !== undefined && file.size > maxSize;
    setUploads(key, (list) => [
      ...list,
      { clientId, name: file.name || 'pasted-file', size: file.size, type: file.type, progress: 0, error: tooBig ? `${file.name} is too large: files may be at most ${formatSize(maxSize)}.` : undefined },
    ]);
    if (tooBig) continue;
    const handle = uploadFile(channelId, file, clientId, csrf, (progress) => patchUpload(key, clientId, { progress }), maxSize);
    running.set(clientId, handle);
    handle.done.then(
      (info) => patchUpload(key, clientId, { info, progress: 1 }),
      (err: Error) => {
        // A removed upload is gone already; any other failure stays listed with its reason.
        if (running.has(clientId)) patchUpload(key, clientId, { error: err.message });
      },
    ).finally(() => running.delete(clientId));
  }
  return files.length > taken.length ? `You can attach at most ${MAX_FILES_PER_POST} files to a message.` : '';
}

export function removeUpload(channelId: string, rootId: string, clientId: string): void {
  const handle = running.get(clientId);
  running.delete(clientId);
  handle?.abort();
  setUploads(draftKey(channelId, rootId), (list) => list.filter((u) => u.clientId !== clientId));
}

/** The uploaded files of a composer, for the message about to be sent (and the composer's list cleared). */
export function takeUploads(channelId: string, rootId: string): FileInfo[] {
  const key = draftKey(channelId, rootId);
  const infos = (appStore.get().uploads[key] ?? []).flatMap((u) => (u.info ? [u.info] : []));
  setUploads(key, () => []);
  return infos;
}
