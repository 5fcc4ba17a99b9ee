/** paystorm's API client: one undici-based client for the whole API, every exchange recorded. */
export { UndiciApiClient } from './api-client.ts';
export { ClientFactory, type ClientFactoryOptions } from './factory.ts';
export { RunStoppedError, type RequestGate } from './gate.ts';
export { carriesLivemodeTrue } from './recording.ts';
export { isRetryable, retryBackoffMs } from './retry.ts';
export { abortableSleep, roundUs, type Clock } from './timing.ts';
export * from './transport.ts';
export * from './detect.ts';
export * from './keys.ts';
export { DECODED_BODY_MAX_BYTES, PAYSTORM_VERSION, USER_AGENT, WIRE_HEADERS, WIRE_HEADER_OBJECT, contentEncodingOf, decodeBody } from './wire.ts';
