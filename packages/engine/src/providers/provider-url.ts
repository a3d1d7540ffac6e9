/**
 * Every URL a provider builds from caller data (a model id, a deployment or file name) is checked
 * twice: the id against a character set before it is used (`checkModelId`), and the finished URL
 * against the configured base (`sealedURL`): same origin, and a path that is exactly the base's
 * path followed by what the provider meant to append, with no dot segments removed, no `\`
 * turned into `/`, no query or fragment split off. An id like `../../../v1beta/cachedContents?x=`
 * would otherwise send the server's own key to another endpoint and hand its answer to the caller.
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * What a model id may hold: letters, digits and `. _ - : / @ +` (`ollama:llama3.2:3b`,
 * `openrouter:deepseek/deepseek-r1:free`, `accounts/fireworks/models/x`, Vertex's `claude@2024`),
 * at most 256 characters, and no empty, `.` or `..` segment between slashes.
 */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,255}$/;

function refuse(message: string): ParlanceError {
  return new ParlanceError('invalid_request', message, { status: 400, retryable: false });
}

/**
 * Throws a ParlanceError (`invalid_request`, 400) unless `modelId` is a plausible model id: what a
 * caller can name through `resolveModel('provider:<id>')` or a gateway's `allowProviderModels`.
 *
 * @example
 * checkModelId('llama3.2:3b'); // ok
 * checkModelId('../../v1beta/cachedContents?x='); // throws invalid_request
 */
export function checkModelId(modelId: string): void {
  const shown = JSON.stringify(modelId.slice(0, 80));
  if (!MODEL_ID.test(modelId)) {
    throw refuse(`The model id ${shown} is not valid: use letters, digits and ". _ - : / @ +" (at most 256 characters)`);
  }
  if (modelId.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw refuse(`The model id ${shown} is not valid: no empty, "." or ".." part between slashes`);
  }
}

/**
 * `baseURL + path`, checked: throws a ParlanceError (`invalid_request`, 400) unless the URL the
 * runtime will fetch has the base's origin and exactly the path and query that were appended
 * (`path` must already have its caller-chosen parts encoded).
 *
 * @example
 * sealedURL('https://generativelanguage.googleapis.com', '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
 * sealedURL('https://api.example.com/v1', '/models/../../admin'); // throws invalid_request
 */
export function sealedURL(baseURL: string, path: string): string {
  if (!path.startsWith('/')) throw refuse(`The request path ${JSON.stringify(path.slice(0, 80))} must start with "/"`);
  const joined = baseURL.replace(/\/+$/, '') + path;
  let base: URL;
  let url: URL;
  try {
    base = new URL(baseURL);
    url = new URL(joined);
  } catch {
    throw refuse(`The provider URL for ${JSON.stringify(path.slice(0, 80))} is not a valid URL`);
  }
  const expected = base.pathname.replace(/\/+$/, '') + path;
  if (url.origin !== base.origin || url.username !== base.username || url.password !== base.password || url.hash !== '' || url.pathname + url.search !== expected) {
    throw refuse(`The request path ${JSON.stringify(path.slice(0, 80))} leaves the provider's base URL: refused`);
  }
  return joined;
}
