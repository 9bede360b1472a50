import { formatSize, type FileInfo } from './files';

/** The upload of a post's file (UploadFile) through XMLHttpRequest, whose upload progress fetch() does not report. */

export interface UploadHandle {
  done: Promise<FileInfo>;
  abort(): void;
}

export class UploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

/** What to say of a failed upload: the server's own message, or why nothing was answered. */
function uploadErrorText(xhr: XMLHttpRequest, name: string, maxSize?: number): string {
  let message = '';
  try {
    const body = JSON.parse(xhr.responseText) as { message?: unknown };
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not an AppError body (a proxy's page, nothing at all).
  }
  if (xhr.status === 413 && !message) return `${name} is too large${maxSize ? `: files may be at most ${formatSize(maxSize)}` : ''}.`;
  if (xhr.status === 0) return 'The server cannot be reached. Check your connection and try again.';
  return message || `The upload of ${name} failed (HTTP ${xhr.status}).`;
}

/**
 * Uploads one file to a channel (UploadFile, multipart: the fields first, then the file), reporting progress from 0
 * to 1. The session is the cookie; the CSRF token goes in its header as api.ts sends it.
 */
export function uploadFile(channelId: string, file: File, clientId: string, csrfToken: string, onProgress: (fraction: number) => void, maxSize?: number): UploadHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<FileInfo>((resolve, reject) => {
    xhr.open('POST', '/api/v4/files');
    xhr.withCredentials = true;
    xhr.setRequestHeader('X-Requested-With', 'XMLHttpRequest');
    if (csrfToken) xhr.setRequestHeader('X-CSRF-Token', csrfToken);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(Math.min(1, e.loaded / e.total));
    };
    xhr.onload = () => {
      if (xhr.status === 201) {
        try {
          const body = JSON.parse(xhr.responseText) as { file_infos?: FileInfo[] };
          const info = body.file_infos?.[0];
          if (info) {
            onProgress(1);
            return resolve(info);
          }
        } catch {
          // Fall through to the error below.
        }
      }
      reject(new UploadError(xhr.status, uploadErrorText(xhr, file.name, maxSize)));
    };
    xhr.onerror = () => reject(new UploadError(0, uploadErrorText(xhr, file.name, maxSize)));
    xhr.onabort = () => reject(new UploadError(-1, 'Upload cancelled.'));
    const form = new FormData();
    form.append('channel_id', channelId);
    form.append('client_ids', clientId);
    form.append('files', file, file.name);
    xhr.send(form);
  });
  done.catch(() => undefined);
  return { done, abort: () => xhr.abort() };
}
