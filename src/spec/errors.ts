/** Error types, codes and decline codes of the spec's "Errors" section. */
export const ERROR_TYPES = [
  'api_error',
  'authentication_error',
  'card_error',
  'idempotency_error',
  'invalid_request_error',
  'rate_limit_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export interface ErrorCodeInfo {
  code: string;
  type: ErrorType;
  http: number;
}

/** The error-code table: code -> type and HTTP status (ERR-2). */
export const ERROR_CODES: Readonly<Record<string, ErrorCodeInfo>> = Object.freeze({
  parameter_missing: { code: 'parameter_missing', type: 'invalid_request_error', http: 400 },
  parameter_invalid: { code: 'parameter_invalid', type: 'invalid_request_error', http: 400 },
  invalid_request_body: { code: 'invalid_request_body', type: 'invalid_request_error', http: 400 },
  invalid_api_key: { code: 'invalid_api_key', type: 'authentication_error', http: 401 },
  not_permitted: { code: 'not_permitted', type: 'authentication_error', http: 403 },
  resource_missing: { code: 'resource_missing', type: 'invalid_request_error', http: 404 },
  idempotency_key_reused: { code: 'idempotency_key_reused', type: 'idempotency_error', http: 409 },
  idempotency_key_in_use: { code: 'idempotency_key_in_use', type: 'idempotency_error', http: 409 },
  duplicate_request: { code: 'duplicate_request', type: 'idempotency_error', http: 409 },
  card_declined: { code: 'card_declined', type: 'card_error', http: 422 },
  action_not_allowed: { code: 'action_not_allowed', type: 'invalid_request_error', http: 422 },
  rate_limit_exceeded: { code: 'rate_limit_exceeded', type: 'rate_limit_error', http: 429 },
  internal_error: { code: 'internal_error', type: 'api_error', http: 500 },
  service_unavailable: { code: 'service_unavailable', type: 'api_error', http: 503 },
});
export type ErrorCode = keyof typeof ERROR_CODES;

/** Both 409 codes the spec allows for "same key, different body" (IDEM-4). */
export const DIFFERENT_BODY_409_CODES: readonly string[] = ['idempotency_key_reused', 'idempotency_key_in_use'];
export const IN_FLIGHT_409_CODE = 'idempotency_key_in_use';

/** 5xx responses the spec allows (ERR-4). */
export const ALLOWED_5XX: Readonly<Record<number, string>> = { 500: 'internal_error', 503: 'service_unavailable' };

/** The three 401 messages of the Authentication section (AUTH-1..3). */
export const AUTH_FAILURES = {
  malformed: 'Missing or malformed Authorization header, or a non-Bearer scheme.',
  badPrefix: 'Invalid API key format: the key does not start with a known test or live prefix.',
  unknown: 'API key not recognised, revoked, or the validation backend is unreachable.',
} as const;

export const DECLINE_CODES = [
  'generic_decline',
  'do_not_honor',
  'insufficient_funds',
  'expired_card',
  'invalid_number',
  'lost_card',
  'stolen_card',
  'card_velocity_exceeded',
  'three_d_secure_failed',
  'three_d_secure_timeout',
  'three_d_secure_not_supported',
  'three_d_secure_error',
] as const;
export type DeclineCode = (typeof DECLINE_CODES)[number];
/** The decline code of a 3DS challenge the customer did not complete in time ("Customer did not complete in time"). */
export const THREE_DS_TIMEOUT_CODE: DeclineCode = 'three_d_secure_timeout';

export const REQUEST_ID_PREFIX = 'req_';
/** Refund validation messages may carry a sub-code: `Refund validation failed [<sub_code>]: ...` (REF-4). */
export const REFUND_SUBCODE_PATTERN = /^Refund validation failed \[([a-z0-9_]+)\]: .+/;

export interface ErrorBody {
  type: string;
  code: string | null;
  message: string;
  param: string | null;
  decline_code: string | null;
  doc_url: string | null;
  request_id: string;
}

/** Reads `{error: {...}}`; fields that are absent stay undefined so ERR-1 can name them. */
export function readErrorBody(body: unknown): Partial<ErrorBody> | null {
  if (typeof body !== 'object' || body === null) return null;
  const e = (body as Record<string, unknown>).error;
  if (typeof e !== 'object' || e === null) return null;
  return e as Partial<ErrorBody>;
}
export const ERROR_BODY_FIELDS = ['type', 'code', 'message', 'param', 'decline_code', 'doc_url', 'request_id'] as const;
