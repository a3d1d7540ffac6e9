/**
 * Streamed function-call arguments (Vertex AI `streamFunctionCallArguments`): instead of
 * one `args` object, a call arrives as `partialArgs` entries, each a JSONPath and one
 * value (`stringValue` | `numberValue` | `boolValue` | `nullValue`); a string with
 * `willContinue: true` goes on in the next entry for the same path.
 * https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content#PartialArg
 *
 * The builder keeps the arguments as an object (the authoritative `input`) and, while the
 * paths arrive in document order (as recorded), also writes them out as JSON text so the
 * call can stream `tool-call-delta` fragments that concatenate to that same JSON. If a path
 * arrives out of order the text stops (fragments so far stay a valid prefix) and the
 * object alone carries the result.
 */

export type PathSegment = string | number;

export interface PartialArg {
  jsonPath?: unknown;
  stringValue?: unknown;
  numberValue?: unknown;
  boolValue?: unknown;
  nullValue?: unknown;
  willContinue?: unknown;
}

/** Parses `$.a.b[0]['c d']` into segments; undefined for anything else. */
export function parseJsonPath(path: string): PathSegment[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const segments: PathSegment[] = [];
  let i = 1;
  while (i < path.length) {
    const ch = path[i];
    if (ch === '.') {
      const match = /^[^.[\]]+/.exec(path.slice(i + 1));
      if (!match) return undefined;
      segments.push(match[0]);
      i += 1 + match[0].length;
    } else if (ch === '[') {
      const rest = path.slice(i);
      const index = /^\[(\d+)\]/.exec(rest);
      const quoted = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
      if (index) {
        segments.push(Number(index[1]));
        i += index[0].length;
      } else if (quoted) {
        segments.push((quoted[1] ?? quoted[2] ?? '').replace(/\\(.)/g, '$1'));
        i += quoted[0].length;
      } else return undefined;
    } else return undefined;
  }
  return segments;
}

interface Frame {
  isArray: boolean;
  count: number;
  keys: Set<PathSegment>;
  segment?: PathSegment;
}

export interface ArgsBuilder {
  /** Applies one entry; returns the JSON text it adds ('' if none), or an error message. */
  apply(arg: PartialArg): { ok: true; text: string } | { ok: false; message: string };
  /** Closes the JSON text; returns the closing fragment ('' if nothing was written). */
  finish(): string;
  /** The arguments received so far. */
  readonly value: Record<string, unknown>;
}

/**
 * The body of a JSON string literal. Most fragments need no escaping, so they are returned
 * as they are rather than through JSON.stringify and a slice (two allocations per fragment
 * on the hot path of a long streamed argument). Lone surrogates, which JSON.stringify
 * escapes, take the slow path with the rest.
 */
function escapeString(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s).slice(1, -1);
  }
  return s;
}

export function createArgsBuilder(): ArgsBuilder {
  const root: Record<string, unknown> = {};
  // A string still being continued (previous entry for the same path said willContinue).
  let continuing: string | undefined;
  // The JSON text writer.
  let inOrder = true;
  let started = false;
  let stringOpen = false;
  const stack: Frame[] = [];
  // The last path parsed: a continued string repeats its path in every entry.
  let lastPath: string | undefined;
  let lastSegments: PathSegment[] = [];

  function setValue(segments: PathSegment[], value: unknown, append: boolean) {
    let node: Record<string | number, unknown> = root;
    for (let i = 0; i < segments.length - 1; i++) {
      const key = segments[i]!;
      let next = node[key];
      if (typeof next !== 'object' || next === null) {
        next = typeof segments[i + 1] === 'number' ? [] : {};
        node[key] = next;
      }
      node = next as Record<string | number, unknown>;
    }
    const leaf = segments[segments.length - 1]!;
    node[leaf] = append && typeof node[leaf] === 'string' ? node[leaf] + (value as string) : value;
  }

  /** Opens `key` in the innermost frame, or reports that the paths left document order. */
  function enter(key: PathSegment): string | undefined {
    const top = stack[stack.length - 1]!;
    if (top.isArray ? key !== top.count : typeof key !== 'string' || top.keys.has(key)) return undefined;
    top.keys.add(key);
    const text = (top.count > 0 ? ',' : '') + (top.isArray ? '' : `${JSON.stringify(key)}:`);
    top.count++;
    return text;
  }

  function write(segments: PathSegment[], value: unknown, append: boolean, more: boolean): string {
    if (!inOrder) return '';
    let text = '';
    if (append) {
      text = escapeString(value as string);
      if (!more) {
        text += '"';
        stringOpen = false;
      }
      return text;
    }
    if (stringOpen) {
      text += '"';
      stringOpen = false;
    }
    if (!started) {
      started = true;
      stack.push({ isArray: false, count: 0, keys: new Set() });
      text += '{';
    }
    const parents = segments.slice(0, -1);
    let shared = 0;
    while (shared < parents.length && shared + 1 < stack.length && stack[shared + 1]!.segment === parents[shared]) shared++;
    while (stack.length > shared + 1) text += stack.pop()!.isArray ? ']' : '}';
    for (let i = shared; i <= parents.length; i++) {
      const key = i < parents.length ? parents[i]! : segments[segments.length - 1]!;
      const entered = enter(key);
      if (entered === undefined) {
        inOrder = false;
        return text;
      }
      text += entered;
      if (i < parents.length) {
        const isArray = typeof segments[i + 1] === 'number';
        stack.push({ isArray, count: 0, keys: new Set(), segment: key });
        text += isArray ? '[' : '{';
      }
    }
    if (typeof value === 'string') {
      text += `"${escapeString(value)}`;
      if (more) stringOpen = true;
      else text += '"';
    } else {
      text += JSON.stringify(value) ?? 'null';
    }
    return text;
  }

  return {
    get value() {
      return root;
    },
    apply(arg) {
      if (typeof arg.jsonPath !== 'string') return { ok: false, message: 'a partial argument without a jsonPath' };
      const segments = arg.jsonPath === lastPath ? lastSegments : parseJsonPath(arg.jsonPath);
      if (!segments || segments.length === 0) return { ok: false, message: `an unsupported argument path "${arg.jsonPath}"` };
      lastPath = arg.jsonPath;
      lastSegments = segments;
      let value: unknown;
      if (typeof arg.stringValue === 'string') value = arg.stringValue;
      else if (typeof arg.numberValue === 'number') value = arg.numberValue;
      else if (typeof arg.boolValue === 'boolean') value = arg.boolValue;
      else if ('nullValue' in arg) value = null;
      else return { ok: true, text: '' };
      const key = arg.jsonPath;
      const append = typeof value === 'string' && continuing === key;
      const more = typeof value === 'string' && arg.willContinue === true;
      continuing = more ? key : undefined;
      setValue(segments, value, append);
      return { ok: true, text: write(segments, value, append, more) };
    },
    finish() {
      if (!started || !inOrder) return '';
      let text = stringOpen ? '"' : '';
      stringOpen = false;
      while (stack.length) text += stack.pop()!.isArray ? ']' : '}';
      inOrder = false;
      return text;
    },
  };
}
