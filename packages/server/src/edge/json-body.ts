/**
 * The body parsed once at the edge, strictly (`parseRequestJson`): refused when it nests deeper
 * than the limit (checked in one pass over the text before parsing: a body nested 10,000 deep
 * parses fine, then overflows the stack of whatever walks it), is not JSON, or is JSON without
 * one meaning (overflowing numbers, `-0`, lone surrogates, duplicate keys). Routes read the value with `jsonOf(c)`. Runs after
 * Hono's `bodyLimit`, so the text it reads is bounded.
 */
import { ParlanceError } from '@parlance/protocol';
import type { Context, MiddlewareHandler } from 'hono';
import { parseRequestJson } from '../strict-json.ts';
import { hasBody } from './json-content-type.ts';
import type { Refuse } from './origin.ts';

const JSON_BODY = 'parlance.json';

/** Parses the body (when there is one) into the context: 400 `invalid_request` when too deep or not JSON. */
export function jsonBody(maxDepth: number, refuse: Refuse): MiddlewareHandler {
  return async function json(c, next) {
    if (hasBody(c.req.raw)) {
      const text = await c.req.text();
      if (text !== '') {
        let value: unknown;
        try {
          value = parseRequestJson(text, maxDepth);
        } catch (error) {
          return refuse(c, ParlanceError.from(error, 'invalid_request'));
        }
        c.set(JSON_BODY as never, value as never);
      }
    }
    await next();
  };
}

/** The body the edge parsed (undefined when the request had none). */
export function jsonOf(c: Context): unknown {
  return c.get(JSON_BODY as never);
}
