import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { attachFiles, removeUpload } from '../actions/files';
import { extensionLabel, formatSize } from '../files';
import { draftKey } from '../state/files-search-state';
import { useStore } from '../state/use-store';
import { AttachIcon, CloseIcon } from './icons';
import '../styles/files-search.css';

/** The composer's attachments: the attach button, the list of files being uploaded, paste and drop of files. */

/** The files a paste or a drop carries (none for plain text). */
export function filesOf(data: DataTransfer | null): File[] {
  if (!data) return [];
  if (data.files && data.files.length) return Array.from(data.files);
  const files: File[] = [];
  for (const item of Array.from(data.items ?? [])) {
    if (item.kind === 'file') {
      const f = item.getAsFile();
      if (f) files.push(f);
    }
  }
  return files;
}

export function AttachButton({ channelId, rootId = '' }: { channelId: string; rootId?: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" class="composer__attach" aria-label="Attach files" title="Attach files" onClick={() => input.current?.click()}>
        <AttachIcon size={18} />
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        // Never shown (the button opens it), but named all the same, for whatever reads the form.
        aria-label="Files to attach"
        tabIndex={-1}
        data-testid="file-input"
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = '';
          if (files.length) attachFiles(channelId, rootId, files);
        }}
      />
    </>
  );
}

export function UploadList({ channelId, rootId = '' }: { channelId: string; rootId?: string }) {
  const uploads = useStore((s) => s.uploads[draftKey(channelId, rootId)]);
  if (!uploads?.length) return null;
  return (
    <ul class="upload-list" aria-label="Attachments">
      {uploads.map((u) => (
        <li key={u.clientId} class={`upload${u.error ? ' upload--failed' : ''}`}>
          <span class="upload__icon" aria-hidden="true">
            {extensionLabel(u.name)}
          </span>
          <span class="upload__body">
            <span class="upload__name" title={u.name}>
              {u.name}
            </span>
            {u.error ? (
              <span class="upload__error" role="alert">
                {u.error}
              </span>
            ) : u.info ? (
              <span class="upload__meta">{formatSize(u.size)}</span>
            ) : (
              <span class="upload__progress">
                <progress max={100} value={Math.round(u.progress * 100)} aria-label={`Uploading ${u.name}`} />
                <span class="upload__meta">{Math.round(u.progress * 100)}%</span>
              </span>
            )}
          </span>
          <button type="button" class="icon-button upload__remove" aria-label={`Remove ${u.name}`} title="Remove" onClick={() => removeUpload(channelId, rootId, u.clientId)}>
            <CloseIcon size={16} />
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * Drag-and-drop of files onto an area (the channel, the thread panel): the handlers to spread on it, and whether a
 * drag of files is over it (then an overlay says what a drop does).
 */
type DragHandler = (e: DragEvent) => void;

export function useFileDrop(channelId: string, rootId = ''): { dragging: boolean; handlers: { onDragEnter: DragHandler; onDragOver: DragHandler; onDragLeave: DragHandler; onDrop: DragHandler } } {
  const [dragging, setDragging] = useState(false);
  const depth = useRef(0);
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer?.types ?? []).includes('Files');
  return {
    dragging,
    handlers: {
      onDragEnter: (e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        depth.current++;
        setDragging(true);
      },
      onDragOver: (e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      },
      onDragLeave: () => {
        depth.current = Math.max(0, depth.current - 1);
        if (depth.current === 0) setDragging(false);
      },
      onDrop: (e) => {
        const files = filesOf(e.dataTransfer);
        depth.current = 0;
        setDragging(false);
        if (!files.length) return;
        e.preventDefault();
        attachFiles(channelId, rootId, files);
      },
    },
  };
}

export function DropOverlay() {
  return (
    <div class="drop-overlay" aria-hidden="true">
      <AttachIcon size={32} />
      <span>Drop a file to upload it.</span>
    </div>
  );
}

/** The channel's page (the `main` landmark), taking files dropped anywhere on it for the channel's composer. */
export function ChannelDropArea({ channelId, children }: { channelId: string; children: ComponentChildren }) {
  const { dragging, handlers } = useFileDrop(channelId);
  return (
    <main class={`center${dragging ? ' center--dropping' : ''}`} id="main" {...handlers}>
      {children}
      {dragging && <DropOverlay />}
    </main>
  );
}
