/**
 * A dialect encodes a file part from its bytes (`data`) or its `url`. A reference to a file the
 * server stored (`ref`, from `POST /files`) carries neither: the engine resolves it before it
 * encodes a request (its `files` option). One that reaches a dialect unresolved is refused here,
 * with the part's path, instead of being sent as an empty block.
 */
import { type FilePart, type InlineFilePart, ParlanceError } from '@parlance/protocol';

/**
 * The part itself when it holds `data` or `url`; throws `invalid_request` for an unresolved reference.
 *
 * @example
 * const file = inlineFile(part, ['messages', 0, 'parts', 1]);
 * const source = file.url ?? `data:${file.mediaType};base64,${file.data}`;
 */
export function inlineFile(part: FilePart, path: (string | number)[]): InlineFilePart {
  if (part.ref === undefined) return part;
  throw new ParlanceError('invalid_request', `The file ${part.ref.id} is a reference to a stored file: the server resolves it before encoding (the engine's \`files\` option)`, {
    path,
    retryable: false,
  });
}
