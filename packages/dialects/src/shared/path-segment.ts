/**
 * A model id that goes into a URL path (Gemini's `/v1beta/models/{model}:streamGenerateContent`)
 * must stay one path segment: a caller-chosen name like `../../../v1beta/cachedContents?x=`
 * would otherwise rewrite the request the server sends with its own key. The id must be one
 * segment of letters, digits, `.`, `_` and `-` (every published Gemini model id is), starting with a
 * letter, digit or `_` (so never `.` or `..`); it is percent-encoded all the same, so a later change of
 * the set cannot open the path again. The engine also checks the finished URL (`sealedURL`).
 */
import { ParlanceError } from '@parlance/protocol';

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,255}$/;

/**
 * The model id as one encoded URL path segment (a leading `models/` is dropped); throws a
 * ParlanceError (`invalid_request`, status 400) for an id outside the set.
 *
 * @example
 * modelPathSegment('models/gemini-2.5-flash'); // 'gemini-2.5-flash'
 * modelPathSegment('../../v1beta/cachedContents?x='); // throws invalid_request
 */
export function modelPathSegment(model: string): string {
  const id = model.startsWith('models/') ? model.slice('models/'.length) : model;
  if (!SEGMENT.test(id)) {
    throw new ParlanceError(
      'invalid_request',
      `The model id ${JSON.stringify(model.slice(0, 80))} cannot be part of a URL path: use letters, digits, ".", "_" and "-"`,
      { status: 400, retryable: false },
    );
  }
  return encodeURIComponent(id);
}
