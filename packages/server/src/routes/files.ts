/**
 * `POST /files`: stores one file and answers its signed reference (`FileUploadResponseBody`, 201).
 * Past the bytes edge (Origin, `authorize`, rate limit, `application/octet-stream`, the size
 * limit): the media type header is checked against `files.accept`, the bytes are hashed (SHA-256)
 * and stored under a new id, and the reference is signed for the caller's principal with the
 * thread-signing keys, so `POST /chat` refuses it from anyone else, edited or unsigned.
 */
import { FILE_TYPE_HEADER, type FileRef, type FileUploadResponseBody, ParlanceError } from '@parlance/protocol';
import { Hono } from 'hono';
import { errorResponse, refusal } from '../error-response.ts';
import { principalOf } from '../edge/caller.ts';
import { blobStoreFor } from '../files/blob-source.ts';
import { runtimeBindings } from '../runtime-env.ts';
import { DEFAULT_FILE_TYPES, acceptsType, type FileStoreOptions } from '../files/file-options.ts';
import type { ServerContext } from '../server-context.ts';
import type { Principal } from '../server-options.ts';

/** A media type as RFC 9110 writes one (`type/subtype`, tokens), without parameters. */
const MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,64}\/[A-Za-z0-9!#$&^_.+-]{1,128}$/;

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The `POST /files` route of an app with a file store. */
export function filesRoutes(ctx: ServerContext, files: FileStoreOptions): Hono<any, any, any> {
  const app = new Hono();
  const accept = files.accept ?? DEFAULT_FILE_TYPES;

  app.post('/files', ctx.filesEdge, async (c) => {
    const principal = principalOf<Principal | undefined>(c);
    const mediaType = (c.req.header(FILE_TYPE_HEADER) ?? '').trim().toLowerCase();
    if (!MEDIA_TYPE.test(mediaType)) {
      return errorResponse(400, 'invalid_request', `Name the file's media type in the ${FILE_TYPE_HEADER} header (e.g. image/png)`, [{ path: ['headers', FILE_TYPE_HEADER], message: 'not a media type' }]);
    }
    if (!acceptsType(accept, mediaType)) {
      return errorResponse(415, 'invalid_request', `This server does not take ${mediaType} files (it takes ${accept.join(', ')})`, [{ path: ['headers', FILE_TYPE_HEADER], message: 'not accepted' }]);
    }
    const env = ctx.env(c);
    // Read whole: the edge's body limit (the file limit) bounds it, declared or streamed.
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (bytes.length === 0) return errorResponse(400, 'invalid_request', 'The file is empty');
    const id = ctx.generateId('file');
    const sha256 = await sha256Hex(bytes);
    try {
      await blobStoreFor(files, env, runtimeBindings(c, env)).put(id, bytes, { mediaType });
    } catch (error) {
      ctx.reportError(error, { request: c.req.raw });
      return refusal(new ParlanceError('store_unavailable', 'The file could not be stored; try again', { status: 503 }));
    }
    const fields = { id, mediaType, size: bytes.length, sha256 };
    const trust = ctx.trustFor(env);
    // Without a key (development only: `checkConfig` requires one otherwise) references are unsigned and trusted as they come.
    const file: FileRef = trust ? await trust.signFile(fields, { principal: principal?.id }) : { ...fields, signature: '' };
    const body: FileUploadResponseBody = { file };
    return c.json(body, 201);
  });

  return app;
}
