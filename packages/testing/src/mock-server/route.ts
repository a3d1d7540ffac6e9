/**
 * Which requests a mock provider answers: the dialect's own path for any model
 * (`getDialect(id).path(model)`), under any base path, so `https://host/v1` and
 * `http://127.0.0.1:port/anything/v1` both work. Gemini names the method in the path:
 * `:streamGenerateContent?alt=sse` streams, `:generateContent` answers with one body.
 */
import type { Dialect } from '@parlance/dialects';

const MODEL = '__parlance_model__';
const GEMINI_STREAM = ':streamGenerateContent';

export interface RouteMatch {
  /** The model named in the path (Gemini puts it there), if any. */
  model?: string;
  /** Whether the path itself says streaming or not (Gemini); undefined when the body decides. */
  stream?: boolean;
}

export interface Route {
  match(url: URL): RouteMatch | undefined;
  /** The path for a given model, for messages and for callers building URLs. */
  example(model: string): string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function pathPattern(pathPart: string): RegExp {
  return new RegExp(
    `${pathPart
      .split(MODEL)
      .map((piece) => escapeRegExp(piece))
      .join('([^/]+)')
      // Gemini answers under /v1 as under /v1beta (@google/genai 3.x calls /v1 by default).
      .replace('/v1beta/', '/v1(?:beta)?/')}$`,
  );
}

export function routeFor(dialect: Dialect): Route {
  const template = dialect.path(MODEL, { stream: true });
  const [pathPart = '', queryPart = ''] = template.split('?', 2);
  const streaming = pathPattern(pathPart);
  // Gemini's non-streaming method sits beside the streaming one, without `alt=sse`.
  const single = pathPart.includes(GEMINI_STREAM) ? pathPattern(pathPart.replace(GEMINI_STREAM, ':generateContent')) : undefined;
  // Template query values that hold the model (none today) would make this brittle; require only fixed ones.
  const query = [...new URLSearchParams(queryPart)].filter(([, value]) => !value.includes(MODEL));
  const exec = (pattern: RegExp, url: URL) => pattern.exec(url.pathname) ?? pattern.exec(decodeURIComponent(url.pathname));
  const matched = (found: RegExpExecArray, stream: boolean | undefined): RouteMatch => {
    const out: RouteMatch = {};
    if (found[1] !== undefined) out.model = decodeURIComponent(found[1]);
    if (stream !== undefined) out.stream = stream;
    return out;
  };
  return {
    match(url) {
      const found = exec(streaming, url);
      if (found) {
        for (const [key, value] of query) if (url.searchParams.get(key) !== value) return undefined;
        return matched(found, single ? true : undefined);
      }
      const one = single ? exec(single, url) : null;
      return one ? matched(one, false) : undefined;
    },
    // Built with the placeholder (a dialect refuses `<model>` in a path), then shown with the given name.
    example: (model) => dialect.path(MODEL, { stream: true }).replace(MODEL, model),
  };
}
