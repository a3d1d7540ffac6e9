/**
 * File references (`FileRef`, answered by `POST /files`) are signed with the same keys as the
 * thread's tool parts, and issued to one principal: the text starts with `file` (so it never
 * verifies as a call, a result or a pause) and the principal's id (null without principals), then
 * covers the id, media type, size and SHA-256. Not the thread: a file is uploaded before the
 * message that holds it is sent, and may be attached to several threads of its owner.
 */
import { type FilePart, type FileRef, ParlanceError } from '@parlance/protocol';
import { canonicalJson } from './canonical-json.ts';

/**
 * The fields of a reference the signature covers (what `ThreadTrust.signFile` takes).
 *
 * @example
 * const ref = await trust.signFile({ id, mediaType: 'image/png', size: bytes.length, sha256 } satisfies UnsignedFileRef, { principal: user.id });
 */
export type UnsignedFileRef = Omit<FileRef, 'signature'>;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** What a reference's signature covers, for `principal` (null without principals). */
export function fileRefText(principal: string | null, ref: UnsignedFileRef): string {
  return canonicalJson(['file', principal, ref.id, ref.mediaType, ref.size, ref.sha256]);
}

/**
 * Why a file part's reference cannot be the server's, before any signature is checked (undefined
 * when its shape is sound): a size that is not a whole number, a hash that is not 64 hex digits, or
 * a part whose media type differs from the reference's (the bytes would be sent as another type).
 */
export function fileRefProblem(part: FilePart & { ref: FileRef }): string | undefined {
  const { ref } = part;
  if (!Number.isSafeInteger(ref.size) || ref.size < 0) return 'its size is not a whole number of bytes';
  if (!SHA256_HEX.test(ref.sha256)) return 'its sha256 is not 64 lowercase hex digits';
  if (part.mediaType !== ref.mediaType) return `the part says ${part.mediaType} but the file is ${ref.mediaType}`;
  return undefined;
}

/** The 403 a reference that is not this server's (for this principal) gets. */
export function refusedFileRef(path: (string | number)[], ref: FileRef, why: string): ParlanceError {
  return new ParlanceError('permission', `The file "${ref.id}" ${why}`, { status: 403, path, retryable: false });
}
