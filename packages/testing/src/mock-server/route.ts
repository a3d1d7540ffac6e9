/**
 * Which requests a mock provider answers: the dialect's own path for any model
 * (`getDialect(id).path(model)`), under any base path, so `https://host/v1` and
 * `http://127.0.0.1:port/anything/v1` both work.
 */
import type { Dialect } from '@parlance/dialects';

const MODEL = '__parlance_model__';

export interface RouteMatch {
  /** The model named in the path (Gemini puts it there), if any. */
  model?: string;
}

export interface Route {
  match(url: URL): RouteMatch | undefined;
  /** The path for a given model, for messages and for callers building URLs. */
  example(model: string): string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function routeFor(dialect: Dialect): Route {
  const template = dialect.path(MODEL, { stream: true });
  const [pathPart = '', queryPart = ''] = template.split('?', 2);
  const pattern = new RegExp(
    `${pathPart
      .split(MODEL)
      .map((piece) => escapeRegExp(piece))
      .join('([^/]+)')}$`,
  );
  // Template query values that hold the model (none today) would make this brittle; require only fixed ones.
  const query = [...new URLSearchParams(queryPart)].filter(([, value]) => !value.includes(MODEL));
  return {
    match(url) {
      const found = pattern.exec(url.pathname) ?? pattern.exec(decodeURIComponent(url.pathname));
      if (!found) return undefined;
      for (const [key, value] of query) if (url.searchParams.get(key) !== value) return undefined;
      const model = found[1];
      return model === undefined ? {} : { model: decodeURIComponent(model) };
    },
    example: (model) => dialect.path(model, { stream: true }),
  };
}
