export { decodeResponse, type DecodeResponseOptions } from './decode-response.ts';
export { classifyError, httpError, readErrorBody, type ErrorBodyParser, type ProviderErrorInfo } from './http-error.ts';
export { envSecrets, REDACTED, redact, redactForms, secretForms } from './redact.ts';
export { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetryOptions, type RetryOptions } from './retry.ts';
export { sleep, type Sleep } from './sleep.ts';
export {
  createTransport,
  type FailedOpen,
  type OpenResult,
  type OpenedStream,
  type RetryInfo,
  type TimeoutOptions,
  type Transport,
  type ProviderTransportOptions,
  type TransportRequest,
} from './transport.ts';
