/**
 * A dialect encodes a file part from its bytes (`data`) or its `url`. A reference to a file the
 * server stored (`ref`, from `POST /files`) carries neither: the engine resolves it before it
 * encodes a request (its `files` option). One that reaches a dialect unresolved is refused here,
 * with the part's path, instead of being sent as an empty block.
 *
 * A file the engine uploaded to the provider's own Files API (OpenAI, Anthropic) arrives with its
 * provider file id in `providerState[dialect].fileId` (and the file's resource URL in `url`): the
 * dialect then sends the id (`providerFileId`), never the URL.
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

/**
 * The id of the provider's own copy of the file (its Files API), when the engine uploaded it for this dialect.
 *
 * @example
 * const id = providerFileId(part, 'openai_responses'); // 'file-abc123' or undefined
 */
export function providerFileId(part: InlineFilePart, dialect: string): string | undefined {
  const state = part.providerState?.[dialect] as { fileId?: unknown } | undefined;
  return typeof state?.fileId === 'string' && state.fileId !== '' ? state.fileId : undefined;
}
