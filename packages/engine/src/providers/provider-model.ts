/**
 * One provider model as a LanguageModel: check and adjust the request against the
 * catalog, encode it with the dialect, send it through the transport, decode the
 * stream, add provenance and cost. The stream never throws: whatever fails becomes
 * an `error` event and a `finish`, after everything that had already arrived.
 */
import type { ClientDialect } from '@parlance/dialects';
import {
  ParlanceError,
  errorEvent,
  mergeUsage,
  type Event,
  type ModelCallOptions,
  type ModelRequest,
  type Provenance,
  type ReadyIterator,
  heldQueue,
  takeReady,
  type Usage,
} from '@parlance/protocol';
import { computeCost } from '../catalog/model-info.ts';
import { decodeResponse, decodeWholeResponse } from '../transport/decode-response.ts';
import { redact } from '../transport/redact.ts';
import { createTransport } from '../transport/transport.ts';
import { authHeaders, resolveApiKey, resolveBaseURL } from './auth.ts';
import { kitDialect, kitModelInfo, type ProviderKit } from './provider-kit.ts';
import { adjustRequest, checkInput } from './prepare-request.ts';
import { checkModelId, sealedURL } from './provider-url.ts';
import { modelFileUploads } from './file-apis.ts';
import type { ModelContext, ProviderDefinition, ProviderModel, ProviderSettings } from './types.ts';


function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** `kit`: the dialects and catalog tables the model may use (./provider-kit.ts). */
export function createProviderModel(definition: ProviderDefinition, modelId: string, settings: ProviderSettings, kit: ProviderKit): ProviderModel {
  // A model id may come from a caller (a gateway's `allowProviderModels`): refused here when it could bend a URL.
  checkModelId(modelId);
  const provider = definition.id;
  const name = definition.name ?? definition.id;
  const dialectId = settings.dialect ?? definition.dialectFor?.(modelId) ?? definition.dialect;
  // A cloud's own wire (Bedrock Converse) names itself; a registered dialect keeps its id.
  const wireId = definition.wire ? definition.wire(modelId, kitDialect(kit, dialectId, name), settings).id : dialectId;
  const info = kitModelInfo(kit, definition, modelId);
  const transport = settings.transport ?? createTransport(settings);
  const provenance: Provenance = { provider, model: modelId, dialect: wireId };

  /**
   * A hand-written iterator, not an async generator: a generator costs a resumption and promises per
   * event, and cannot pass on the decoder's `takeReady()` (the protocol's ready-iterator.ts), which
   * hands the rest of a decoded batch to the run loop without a promise per event.
   */
  function run(request: Omit<ModelRequest, 'model'>, options: ModelCallOptions): ReadyIterator<Event> {
    const secrets: string[] = [];
    let started = false;
    let finished = false;
    let usage: Usage = {};
    // Settings left out so the provider accepts the request: reported right after message-start.
    const warnings: Event[] = [];
    const onWarning = (warning: { setting: string; message: string }) => {
      warnings.push({ type: 'warning', setting: warning.setting, message: warning.message });
    };

    const withCost = (report: Usage, cumulative: Usage): Usage => {
      if (report.cost !== undefined) return report;
      const cost = computeCost(info.pricing, cumulative);
      return cost === undefined ? report : { ...report, cost };
    };

    const finalize = (event: Event): Event => {
      switch (event.type) {
        case 'message-start':
          started = true;
          return { ...event, model: event.model ?? modelId, provenance: event.provenance ?? provenance };
        case 'usage':
          usage = mergeUsage(usage, event.usage);
          return { ...event, usage: withCost(event.usage, usage) };
        case 'finish': {
          finished = true;
          const total = mergeUsage(usage, event.usage);
          return { ...event, usage: withCost(event.usage, total) };
        }
        case 'error':
          return secrets.length ? { ...event, message: redact(event.message, secrets) } : event;
        default:
          return event;
      }
    };

    /** Opens the call: everything up to the decoded stream (what throws here ends the response as a failure). */
    const open = async (): Promise<AsyncIterator<Event>> => {
    // The decoder never reads `id`, so a cloud's own wire id is safe to pass as a ClientDialect.
    const dialect = (definition.wire ? definition.wire(modelId, kitDialect(kit, dialectId, name), settings) : kitDialect(kit, dialectId, name)) as ClientDialect;
    checkInput(request, info);
    const adjusted = adjustRequest(request, info, { requiresMaxOutputTokens: definition.requiresMaxOutputTokens, onWarning });
    const userHeaders = { ...lowerKeys(definition.headers), ...lowerKeys(settings.headers), ...lowerKeys(options.headers) };
    const authHeader = definition.auth === 'none' ? undefined : (definition.auth.header ?? 'authorization').toLowerCase();
    // A caller who sets the auth header themselves (a proxy token) needs no key.
    const key =
      authHeader && userHeaders[authHeader] === undefined ? await resolveApiKey(definition.auth, settings, name) : undefined;
    if (key) secrets.push(key);
    // A credential set through `headers` (a proxy token) is as secret as a key.
    secrets.push(...headerSecrets(userHeaders, authHeader));
    const context: ModelContext = { provider, modelId, dialect: dialectId, info, request: { ...adjusted, model: modelId } };
    // One JSON body when the caller asked for one and the dialect can read it (a gateway's non-streamed caller).
    // A cloud's own wire streams: its paths (Bedrock's invoke-with-response-stream, ...) name the stream.
    const whole = options.stream === false && dialect.replayBody !== undefined && definition.wire === undefined;
    const encodeOptions = definition.acceptsReasoning ? { onWarning, reasoningFields: definition.acceptsReasoning } : { onWarning };
    let body = dialect.encodeRequest(context.request, whole ? { ...encodeOptions, stream: false } : encodeOptions);
    if (definition.modifyBody) body = definition.modifyBody(body, context);
    // Headers the body needs (Anthropic's beta flags), joined with any the caller set.
    for (const [header, value] of Object.entries(lowerKeys(dialect.requestHeaders?.(body)))) {
      const given = userHeaders[header];
      userHeaders[header] = given === undefined || given.split(',').map((v) => v.trim()).includes(value) ? (given ?? value) : `${given},${value}`;
    }
    const baseURL = resolveBaseURL(definition, settings);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: whole ? 'application/json' : dialect.framing === 'sse' ? 'text/event-stream' : 'application/x-ndjson',
      ...authHeaders(definition.auth, key),
      ...userHeaders,
    };
    const url = sealedURL(baseURL, dialect.path(modelId, { stream: !whole }));
    const text = JSON.stringify(body);
    if (definition.authorize) {
      // Signed last, over exactly what is sent (SigV4 covers the URL, these headers and the body).
      const signed = lowerKeys(await definition.authorize({ method: 'POST', url, headers: { ...headers }, body: text }, settings));
      for (const [header, value] of Object.entries(signed)) {
        headers[header] = value;
        secrets.push(...headerSecrets({ [header]: value }, header));
      }
    }
    const opened = await transport.open({
      url,
      headers,
      body: text,
      signal: options.signal,
      providerName: name,
      parseError: definition.parseError,
      secrets,
    });
    if (!opened.ok) throw opened.error;
    const decoderOptions =
      typeof definition.decoderOptions === 'function' ? definition.decoderOptions(modelId) : definition.decoderOptions;
    const { onBody, onBytes } = options;
    // The caller takes this attempt's text from its bytes: its decoder may skip text deltas unparsed
    // (not when the provider's own `modifyEvents` reads the events).
    const relayed = onBytes !== undefined && options.relayDialect === wireId && !definition.modifyEvents;
    // One `from` per call: a gateway tells this attempt's bytes from an earlier attempt's (a fallback).
    const from = { ...provenance };
    let events: AsyncIterable<Event> = whole
      ? decodeWholeResponse(dialect, opened, { signal: options.signal, decoderOptions, onBody: onBody && ((json) => onBody(json, provenance)) })
      : decodeResponse(dialect, opened, { signal: options.signal, decoderOptions: relayed ? { ...decoderOptions, textDeltas: false } : decoderOptions, onChunk: onBytes && ((chunk: Uint8Array) => onBytes(chunk, from)) });
    if (definition.modifyEvents) events = definition.modifyEvents(events, context);
    return events[Symbol.asyncIterator]();
    };

    /** Events decided and not yet handed out (the warnings after the start, a failure's ending). */
    const held = heldQueue<Event>();
    const out = held.items;
    let source: AsyncIterator<Event> | undefined;
    /** Nothing more comes from the source: `out` drains, then the stream is done. */
    let ended = false;
    /** The reader stopped (`return()`). */
    let closed = false;
    const shift = held.take;
    /** One event of the source, finalized; the warnings right after the start. */
    const accept = (event: Event) => {
      const wasStarted = started;
      out.push(finalize(event));
      if (!wasStarted && started) out.push(...warnings.splice(0));
    };
    /** Whatever failed (the call, the stream, the model's contract) ends the response: after what arrived. */
    const fail = (thrown: unknown) => {
      ended = true;
      if (finished) return;
      const error = ParlanceError.from(thrown);
      if (!started) out.push(finalize({ type: 'message-start' }));
      out.push(...warnings.splice(0));
      out.push(
        errorEvent({
          code: error.code,
          message: redact(error.message, secrets),
          retryable: error.retryable,
          ...(error.status === undefined ? {} : { status: error.status }),
          ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
        }),
      );
      out.push(finalize({ type: 'finish', finishReason: error.code === 'aborted' ? 'cancelled' : 'error', usage: {} }));
    };
    const done: IteratorReturnResult<undefined> = { done: true, value: undefined };
    const pull = async (): Promise<IteratorResult<Event>> => {
      for (;;) {
        const held = shift();
        if (held !== undefined) return { done: false, value: held };
        if (ended || closed) return done;
        try {
          if (!source) {
            source = await open();
            if (closed) {
              ended = true;
              void Promise.resolve(source.return?.()).catch(() => {});
            }
            continue;
          }
          const next = await source.next();
          if (closed) return done;
          if (next.done || finished) {
            // Past the finish nothing more is read: the source is released.
            ended = true;
            if (!next.done) await source.return?.();
            out.push(...warnings.splice(0));
            continue;
          }
          accept(next.value);
        } catch (thrown) {
          fail(thrown);
        }
      }
    };
    const iterator: ReadyIterator<Event> = {
      next: () => {
        const held = shift();
        return held !== undefined ? Promise.resolve({ done: false, value: held }) : pull();
      },
      takeReady: () => {
        const held = shift();
        if (held !== undefined || !source || ended || closed || finished) return held;
        const event = takeReady(source);
        if (event === undefined) return undefined;
        accept(event);
        return shift();
      },
      async return() {
        closed = true;
        held.clear();
        if (source && !ended) {
          ended = true;
          try {
            await source.return?.();
          } catch {
            // The reader stopped: a source that fails to close has nothing left to say.
          }
        }
        return done;
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  const model: ProviderModel = {
    provider,
    modelId,
    dialect: wireId,
    info,
    stream: (request, options = {}) => run(request, options),
    endpoint: () => resolveBaseURL(definition, settings),
    toJSON: () => ({ provider, modelId, dialect: wireId }),
  };
  // A cloud's own wire (Azure, Bedrock, Vertex) has no Files API of the provider's shape.
  const { files } = definition;
  if (files && !definition.wire) Object.assign(model, { files: modelFileUploads({ ...definition, files }, settings, transport, dialectId) });
  return model;
}

/** Credential-looking header values (and the token after an auth scheme such as `Bearer`). */
export function headerSecrets(headers: Record<string, string | undefined>, authHeader: string | undefined): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!value || (name !== authHeader && !/auth|key|token|secret|cookie|session|password|credential|signature/i.test(name))) continue;
    out.push(value);
    const scheme = /^[A-Za-z]+ +(\S{6,})$/.exec(value);
    if (scheme) out.push(scheme[1]!);
  }
  return out;
}
