import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { extensionLabel, fileUrl, formatSize, hasThumbnail, previewUrl, thumbnailUrl, type FileInfo } from '../files';
import { ChevronLeftIcon, ChevronRightIcon, CloseIcon, DownloadIcon } from './icons';
import '../styles/files-search.css';

/**
 * A post's files (its `metadata.files`): images as thumbnails (GetFileThumbnail) that open the preview, other files as
 * a card with name, size and a download link (GetFile with `?download=1`).
 */

function filesOfPost(metadata: unknown): FileInfo[] {
  const files = (metadata as { files?: unknown } | undefined)?.files;
  return Array.isArray(files) ? (files as FileInfo[]) : [];
}

export function FileCard({ file }: { file: FileInfo }) {
  return (
    <div class="file-card">
      <span class="file-card__icon" aria-hidden="true">
        {extensionLabel(file.name)}
      </span>
      <span class="file-card__body">
        <a class="file-card__name" href={fileUrl(file.id)} target="_blank" rel="noopener noreferrer" title={file.name}>
          {file.name}
        </a>
        <span class="file-card__meta">
          {extensionLabel(file.name)} {formatSize(file.size)}
        </span>
      </span>
      <a class="icon-button file-card__download" href={fileUrl(file.id, true)} download={file.name} aria-label={`Download ${file.name}`} title="Download">
        <DownloadIcon size={18} />
      </a>
    </div>
  );
}

export function PostFiles({ metadata }: { metadata: unknown }) {
  const files = filesOfPost(metadata);
  const [open, setOpen] = useState<number | undefined>(undefined);
  if (!files.length) return null;
  const images = files.filter(hasThumbnail);
  const others = files.filter((f) => !hasThumbnail(f));
  return (
    <div class="post-files">
      {images.length > 0 && (
        <div class="post-files__images">
          {images.map((f) => (
            <button key={f.id} type="button" class="file-thumb" aria-label={`Open ${f.name}`} title={f.name} onClick={() => setOpen(files.indexOf(f))}>
              <img src={thumbnailUrl(f.id)} alt="" loading="lazy" />
            </button>
          ))}
        </div>
      )}
      {others.map((f) => (
        <FileCard key={f.id} file={f} />
      ))}
      {open !== undefined && files[open] && <FilePreview files={files} index={open} onMove={setOpen} onClose={() => setOpen(undefined)} />}
    </div>
  );
}

/** The preview of a post's files: Escape closes it, the arrow keys move between the files. */
export function FilePreview({ files, index, onMove, onClose }: { files: FileInfo[]; index: number; onMove: (i: number) => void; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const file = files[index];
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    ref.current?.showModal();
    return () => opener?.focus?.();
  }, []);
  const move = (step: number) => onMove((index + step + files.length) % files.length);
  const several = files.length > 1;
  return (
    <dialog
      ref={ref}
      class="file-preview"
      aria-labelledby={`${id}-title`}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onKeyDown={(e) => {
        if (!several) return;
        if (e.key === 'ArrowLeft') {
          e.preventDefault();
          move(-1);
        } else if (e.key === 'ArrowRight') {
          e.preventDefault();
          move(1);
        }
      }}
      onClick={(e) => {
        // A click on the backdrop (the dialog itself, outside its content) closes it.
        if (e.target === ref.current) onClose();
      }}
    >
      <header class="file-preview__header">
        <h2 id={`${id}-title`} class="file-preview__title" title={file.name}>
          {file.name}
        </h2>
        <span class="file-preview__meta">
          {several ? `File ${index + 1} of ${files.length} · ` : ''}
          {formatSize(file.size)}
        </span>
        <a class="btn btn--secondary btn--small" href={fileUrl(file.id, true)} download={file.name}>
          <DownloadIcon size={16} /> Download
        </a>
        <button type="button" class="icon-button file-preview__close" aria-label="Close preview" title="Close" onClick={onClose}>
          <CloseIcon size={20} />
        </button>
      </header>
      <div class="file-preview__body">
        {several && (
          <button type="button" class="icon-button file-preview__nav" aria-label="Previous file" title="Previous file" onClick={() => move(-1)}>
            <ChevronLeftIcon size={28} />
          </button>
        )}
        <div class="file-preview__content">
          {hasThumbnail(file) ? <img key={file.id} src={previewUrl(file.id)} alt={file.name} /> : <FileCard file={file} />}
        </div>
        {several && (
          <button type="button" class="icon-button file-preview__nav" aria-label="Next file" title="Next file" onClick={() => move(1)}>
            <ChevronRightIcon size={28} />
          </button>
        )}
      </div>
    </dialog>
  );
}
