/**
 * Attachments in the demo: the composer's attach button, drag-and-drop and paste, its previews
 * (image thumbnails, other files as chips with name and size) and upload progress; and the files of
 * a sent message in the thread. Sending goes through `useChat`'s `send({ text, files })`, which
 * checks each file against the model and uploads it once (the thread keeps a signed reference).
 */
import type { UploadProgress } from '@parlance/client';
import type { FilePart, Part } from '@parlance/protocol';
import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { PaperclipIcon } from './icons.tsx';
import { thumbnailOf } from './thumbnails.ts';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The files waiting in the composer, and the handlers that add them (drop, paste, the button). */
export function useComposerFiles() {
  const [files, setFiles] = useState<File[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [dragging, setDragging] = useState(false);
  const add = (list: FileList | readonly File[] | null | undefined) => {
    const added = Array.from(list ?? []);
    if (added.length === 0) return;
    setError(undefined);
    setFiles((current) => [...current, ...added]);
  };
  return {
    files,
    error,
    dragging,
    add,
    remove: (index: number) => setFiles((current) => current.filter((_, i) => i !== index)),
    clear: () => {
      setFiles([]);
      setError(undefined);
    },
    /** The send was refused (a type the model does not read, a file too large): the files come back with the reason. */
    fail: (message: string, back: File[]) => {
      setFiles(back);
      setError(message);
    },
    dropProps: {
      onDragOver: (event: DragEvent) => {
        if (!event.dataTransfer.types.includes('Files')) return;
        event.preventDefault();
        setDragging(true);
      },
      onDragLeave: () => setDragging(false),
      onDrop: (event: DragEvent) => {
        if (!event.dataTransfer.files.length) return;
        event.preventDefault();
        setDragging(false);
        add(event.dataTransfer.files);
      },
    },
    onPaste: (event: ClipboardEvent) => {
      if (event.clipboardData.files.length === 0) return;
      event.preventDefault();
      add(event.clipboardData.files);
    },
  };
}

/** The paperclip: a hidden file input behind a button. */
export function AttachButton({ onFiles, disabled }: { onFiles: (files: FileList | null) => void; disabled?: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="attach-input"
        accept="image/*,application/pdf,text/*,audio/*"
        onChange={(e) => {
          onFiles(e.currentTarget.files);
          e.currentTarget.value = '';
        }}
      />
      <button type="button" className="attach" aria-label="Attach files" title="Attach files (or drop or paste them)" disabled={disabled} onClick={() => input.current?.click()}>
        <PaperclipIcon />
      </button>
    </>
  );
}

function ObjectURLImage({ file }: { file: File }) {
  const url = useMemo(() => URL.createObjectURL(file), [file]);
  useEffect(() => () => URL.revokeObjectURL(url), [url]);
  return <img src={url} alt={file.name} />;
}

/** The composer's previews, each with a remove button; the upload progress while sending. */
export function ComposerFiles({ files, uploads, error, onRemove }: { files: readonly File[]; uploads: UploadProgress[] | undefined; error: string | undefined; onRemove: (index: number) => void }) {
  if (files.length === 0 && !uploads?.length && !error) return null;
  return (
    <div className="composer-files" data-testid="composer-files">
      {files.map((file, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the list only changes by the user's adds and removes, shown in order
        <div className={file.type.startsWith('image/') ? 'attachment thumb' : 'attachment chip'} key={i} data-testid="composer-file">
          {file.type.startsWith('image/') ? <ObjectURLImage file={file} /> : <span className="name">{file.name}</span>}
          <span className="size">{formatBytes(file.size)}</span>
          <button type="button" aria-label={`Remove ${file.name}`} onClick={() => onRemove(i)}>
            ×
          </button>
        </div>
      ))}
      {uploads?.map((u) => (
        <div className="upload" key={u.index} role="progressbar" aria-label={`Uploading ${u.name}`} aria-valuenow={Math.round((100 * u.loaded) / Math.max(1, u.size))}>
          {u.name}: {Math.round((100 * u.loaded) / Math.max(1, u.size))}%
        </div>
      ))}
      {error && (
        <div className="error" role="alert" data-testid="attach-error">
          {error}
        </div>
      )}
    </div>
  );
}

function sourceOf(part: FilePart): string | undefined {
  if (part.ref) return thumbnailOf(part.ref.sha256);
  if (part.data !== undefined) return `data:${part.mediaType};base64,${part.data}`;
  return part.url;
}

/** The files of a sent message: images as thumbnails (when this browser has one), others as chips with name and size. */
export function MessageFiles({ parts, onRemove }: { parts: readonly Part[]; onRemove?: (file: FilePart) => void }) {
  const files = parts.filter((p): p is FilePart => p.type === 'file');
  if (files.length === 0) return null;
  return (
    <div className="message-files">
      {files.map((part, i) => {
        const name = part.filename ?? part.mediaType;
        const size = part.ref ? formatBytes(part.ref.size) : part.data !== undefined ? formatBytes(Math.floor((part.data.length * 3) / 4)) : '';
        const image = part.mediaType.startsWith('image/') ? sourceOf(part) : undefined;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: a sent message's files never change
          <div className={image ? 'attachment thumb' : 'attachment chip'} key={i} data-testid="message-file" title={`${name} (${part.mediaType})`}>
            {image ? <img src={image} alt={name} /> : <span className="name">{name}</span>}
            <span className="size">{size}</span>
            {onRemove && (
              <button type="button" aria-label={`Remove ${name}`} onClick={() => onRemove(part)}>
                ×
              </button>
            )}
          </div>
        );
      })}
    </div>
  );
}
