/**
 * Thumbnails of the images this browser attached, kept in localStorage by the bytes' SHA-256 (the
 * `sha256` of the server's file reference), so the thread shows them after a reload: the thread
 * itself holds only references, and the server's files are not readable back by URL. At most
 * `MAX_THUMBNAILS` are kept (the oldest dropped), each a small JPEG data URL (~5 KB).
 */
const KEY = 'parlance-demo:thumbnails';
export const MAX_THUMBNAILS = 200;
const SIZE = 160;

type Thumbnails = Record<string, string>;

function read(): Thumbnails {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Thumbnails;
  } catch {
    return {};
  }
}

export function thumbnailOf(sha256: string): string | undefined {
  return read()[sha256];
}

export async function sha256Hex(blob: Blob): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await blob.arrayBuffer()));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function thumbnail(file: Blob): Promise<string | undefined> {
  try {
    const bitmap = await createImageBitmap(file);
    const scale = Math.min(1, SIZE / Math.max(bitmap.width, bitmap.height));
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(bitmap.width * scale));
    canvas.height = Math.max(1, Math.round(bitmap.height * scale));
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    return canvas.toDataURL('image/jpeg', 0.7);
  } catch {
    return undefined;
  }
}

/** Saves a thumbnail of each image among `files` (before they are sent, so the thread can show them at once). */
export async function rememberThumbnails(files: readonly File[]): Promise<void> {
  const made = await Promise.all(files.filter((f) => f.type.startsWith('image/')).map(async (f) => [await sha256Hex(f), await thumbnail(f)] as const));
  const all = read();
  for (const [hash, url] of made) if (url) all[hash] = url;
  const keys = Object.keys(all);
  for (const key of keys.slice(0, Math.max(0, keys.length - MAX_THUMBNAILS))) delete all[key];
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    // Storage full: the thread still works, the thumbnails show as chips.
  }
}
