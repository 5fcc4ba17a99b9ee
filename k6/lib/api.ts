/**
 * The HTTP client of the k6 scripts (k6/http). Every call carries `Authorization:
 * Bearer`, POSTs an `Idempotency-Key`, and the tag `op` (paystorm's operation names,
 * src/spec/operations.ts; the scripts keep no `url` or `name` tag, src/history/k6-tags.ts, so
 * payment ids make no tag values). Every response goes through `observe`, which runs the
 * checks that hold for any authenticated response (RL-4, RL-7, ERR-*, SEC-2) and feeds
 * `rate_limited`.
 *
 * Client handling rules of the spec: api_error/503 (and no answer) are retried with
 * exponential backoff from 1 s, with the SAME Idempotency-Key (FT-3); a 429 waits
 * Retry-After once. The rate-limit script turns both off.
 */
import http from 'k6/http';
import type { ObjectBatchRequest, Params, RefinedResponse, ResponseType } from 'k6/http';
import { sleep } from 'k6';
import { API_PATHS, type Operation } from '../../src/spec/operations.ts';
import { LIMITS, RATE_HEADERS } from '../../src/spec/limits.ts';
import { ERROR_CODES, ERROR_TYPES, ALLOWED_5XX, REQUEST_ID_PREFIX, readErrorBody } from '../../src/spec/errors.ts';
import type { KeyConfig } from './config.ts';
import { newIdempotencyKey } from './ids.ts';
import { answerChecks, expect, flushChecks } from './checks.ts';
import { rateLimited } from './metrics.ts';
import { recordExchange, watchKey } from './record.ts';

// paystorm counts "no response or a 5xx" as failed (src/spec/metrics.ts): 4xx answers,
// including 409, 422 and 429, are expected protocol answers, not failures.
http.setResponseCallback(http.expectedStatuses({ min: 200, max: 499 }));

export interface ApiResult {
  op: Operation;
  method: string;
  /** 0 when there was no HTTP answer. */
  status: number;
  /** Lower-case header names (k6 reports Go-canonical names such as X-Ratelimit-Limit). */
  headers: Record<string, string>;
  body: string;
  /** Parsed JSON body, or undefined. */
  json: unknown;
  /** From send until the answer was in hand (connection time included), ms. */
  durationMs: number;
  error: string;
  idemKey: string | null;
  /** Date.now() just before the (last) attempt was sent. */
  sentAt: number;
}

/**
 * When the answer was in hand (epoch ms): the send time plus k6's timings **including** the
 * connection's: `timings.duration` is sending + waiting + receiving only, and blocked,
 * connecting and tls_handshaking come before it, so sentAt + duration alone can end the span
 * before the server handled the request. Without timings (no answer), when the call returned.
 * Not simply Date.now() after the call: at millisecond resolution that equals the next
 * request's send time, and the oracle would take two sequential requests for overlapping.
 */
export function endOf(res: { timings?: { duration?: number; blocked?: number; connecting?: number; tls_handshaking?: number } } | undefined, sentAt: number, returnedAt: number): number {
  const t = res && res.timings;
  if (!t || typeof t.duration !== 'number') return returnedAt;
  return sentAt + (t.blocked || 0) + (t.connecting || 0) + (t.tls_handshaking || 0) + t.duration;
}

export interface CallOptions {
  /** POST only: reuse this key; `null` sends no Idempotency-Key header; default a fresh key. */
  idemKey?: string | null;
  /** JSON-encoded body. */
  body?: unknown;
  /** Body sent as-is (e.g. not JSON). */
  rawBody?: string;
  query?: Record<string, string | number>;
  /** Retries on no answer/500/503 (default 2 for POSTs with a key, 1 for GETs). */
  retries?: number;
  /** Wait Retry-After once on a 429 and resend (default true). */
  retry429?: boolean;
}

interface Prepared {
  method: string;
  url: string;
  body: string | null;
  params: Params;
  op: Operation;
  idemKey: string | null;
}

export function lowerHeaders(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const k of Object.keys(h)) out[k.toLowerCase()] = h[k];
  return out;
}

function parseJson(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function queryString(q: Record<string, string | number> | undefined): string {
  if (!q) return '';
  const parts = Object.keys(q).map((k) => `${encodeURIComponent(k)}=${encodeURIComponent(String(q[k]))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

export class Api {
  constructor(
    readonly target: string,
    readonly key: KeyConfig,
    readonly timeout = '30s',
  ) {
    watchKey(key);
  }

  private prepare(method: string, path: string, op: Operation, opts: CallOptions): Prepared {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.key.secret}`, Accept: 'application/json' };
    let body: string | null = null;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== null) headers['Content-Type'] = 'application/json';
    let idemKey: string | null = null;
    if (method === 'POST' && opts.idemKey !== null) {
      idemKey = opts.idemKey ?? newIdempotencyKey(op);
      headers['Idempotency-Key'] = idemKey;
    }
    return {
      method,
      url: `${this.target}${path}${queryString(opts.query)}`,
      body,
      params: { headers, tags: { op }, timeout: this.timeout, redirects: 0 },
      op,
      idemKey,
    };
  }

  private toResult(p: Prepared, res: RefinedResponse<ResponseType | undefined>, sentAt: number, endAt: number, attempt?: number, group?: string): ApiResult {
    const body = typeof res.body === 'string' ? res.body : '';
    const r: ApiResult = {
      op: p.op,
      method: p.method,
      status: res.status,
      headers: lowerHeaders(res.headers),
      body,
      json: parseJson(body),
      durationMs: endAt - sentAt,
      error: res.error || '',
      idemKey: p.idemKey,
      sentAt,
    };
    observe(r, this.key);
    // The exchange as a paystorm history record, for `paystorm check` / `merge` (record.ts).
    recordExchange({ op: p.op, key: this.key, method: p.method, url: p.url, body: p.body, idemKey: p.idemKey, attempt, group, sentAt, endAt, status: r.status, headers: r.headers, responseBody: body, error: r.error });
    return r;
  }

  /** One logical call: sends, then retries per the client handling rules. */
  call(method: 'GET' | 'POST', path: string, op: Operation, opts: CallOptions = {}): ApiResult {
    const p = this.prepare(method, path, op, opts);
    const retries = opts.retries ?? (method === 'POST' ? (p.idemKey ? 2 : 0) : 1);
    let waited429 = opts.retry429 === false;
    let backoffS = LIMITS.retryBackoffStartMs / 1000;
    for (let attempt = 0; ; attempt++) {
      flushChecks();
      const sentAt = Date.now();
      const res = http.request(p.method, p.url, p.body, p.params);
      const r = this.toResult(p, res, sentAt, endOf(res, sentAt, Date.now()), p.method === 'POST' && p.idemKey ? attempt : undefined);
      if (r.status === 429 && !waited429) {
        waited429 = true;
        const ra = Number(r.headers[RATE_HEADERS.retryAfter]);
        flushChecks();
        sleep(Math.min(60, Number.isFinite(ra) && ra >= 0 ? ra : 1) + 0.1);
        continue;
      }
      const retriable = r.status === 0 || r.status === 500 || r.status === 503;
      if (!retriable || attempt >= retries) return r;
      flushChecks();
      sleep(backoffS);
      backoffS = Math.min(LIMITS.retryBackoffMaxMs / 1000, backoffS * 2);
    }
  }

  /** Several requests at once (k6 runs a batch in parallel); no retries. */
  batch(calls: { method: 'GET' | 'POST'; path: string; op: Operation; opts?: CallOptions }[]): ApiResult[] {
    const prepared = calls.map((c) => this.prepare(c.method, c.path, c.op, c.opts ?? {}));
    const reqs: ObjectBatchRequest[] = prepared.map((p) => ({ method: p.method, url: p.url, body: p.body, params: p.params }));
    flushChecks();
    const sentAt = Date.now();
    const res = http.batch(reqs);
    const returnedAt = Date.now();
    // One group per batch: the oracle judges parallel same-key requests together.
    const group = `k6-batch-${sentAt}-${Math.floor(Math.random() * 1e9).toString(36)}`;
    return prepared.map((p, i) => this.toResult(p, res[i], sentAt, endOf(res[i], sentAt, returnedAt), undefined, group));
  }

  createDirect(body: Record<string, unknown>, opts: CallOptions = {}): ApiResult {
    return this.call('POST', API_PATHS.payments, 'create', { ...opts, body });
  }
  createHosted(body: Record<string, unknown>, opts: CallOptions = {}): ApiResult {
    return this.call('POST', API_PATHS.hosted, 'create_hpp', { ...opts, body });
  }
  retrieve(id: string, opts: CallOptions = {}): ApiResult {
    return this.call('GET', API_PATHS.payment(id), 'retrieve', opts);
  }
  list(query: Record<string, string | number>, opts: CallOptions = {}): ApiResult {
    return this.call('GET', API_PATHS.payments, 'list', { ...opts, query });
  }
  /** `path` 'payment': POST /v1/payments/{id}/refund {amount}; 'refunds': POST /v1/refunds {payment_id, amount}. */
  refund(paymentId: string, amount: number | undefined, path: 'payment' | 'refunds', opts: CallOptions = {}): ApiResult {
    if (path === 'refunds') {
      const body: Record<string, unknown> = { payment_id: paymentId };
      if (amount !== undefined) body.amount = amount;
      return this.call('POST', API_PATHS.refunds, 'refund_create', { ...opts, body });
    }
    return this.call('POST', API_PATHS.refund(paymentId), 'refund', { ...opts, body: amount === undefined ? {} : { amount } });
  }
}

export function header(r: ApiResult, name: string): string | undefined {
  return r.headers[name.toLowerCase()];
}

export function hasRateHeaders(r: ApiResult): boolean {
  return header(r, RATE_HEADERS.limit) !== undefined && header(r, RATE_HEADERS.remaining) !== undefined && header(r, RATE_HEADERS.reset) !== undefined;
}

/**
 * Checks that hold for every response to an authenticated /v1 call, whatever the
 * scenario: rate headers (RL-4, AUTH-4), the 429 form (RL-7), error bodies (ERR-1..4),
 * JSON (ERR-5) and that no key is echoed (SEC-2).
 */
export function observe(r: ApiResult, key: KeyConfig): void {
  // The checks on this answer (the flow's included) are written as one when folding (checks.ts).
  answerChecks(r.op);
  if (r.status === 0) return; // no answer: http_req_failed counts it
  rateLimited.add(r.status === 429);
  if (r.status === 401) {
    expect('AUTH-4: a 401 carries no X-RateLimit-* header', !Object.keys(r.headers).some((h) => h.startsWith('x-ratelimit-')));
  } else {
    expect('RL-4: X-RateLimit-Limit, -Remaining and -Reset on every authenticated response', hasRateHeaders(r));
  }
  if (r.body !== '') {
    expect('ERR-5: responses are JSON with Content-Type application/json', (header(r, 'content-type') ?? '').toLowerCase().startsWith('application/json') && r.json !== undefined);
  }
  expect('SEC-2: no response echoes the API key', r.body.indexOf(key.secret) < 0);
  if (r.status >= 400) {
    const e = readErrorBody(r.json);
    const full =
      e !== null &&
      typeof e.type === 'string' &&
      'code' in e &&
      typeof e.message === 'string' &&
      'param' in e &&
      'decline_code' in e &&
      'doc_url' in e &&
      typeof e.request_id === 'string' &&
      e.request_id.indexOf(REQUEST_ID_PREFIX) === 0;
    expect('ERR-1: an error body has type, code, message, param, decline_code, doc_url and a req_ request_id', full);
    if (e) {
      const known = typeof e.code === 'string' ? ERROR_CODES[e.code] : undefined;
      expect(
        'ERR-2: error type is one of the six, and code, type and HTTP status agree',
        (ERROR_TYPES as readonly string[]).indexOf(String(e.type)) >= 0 && (known === undefined || (known.type === e.type && known.http === r.status)),
      );
      if (e.type !== 'card_error') expect('ERR-3: decline_code is null outside card_error', e.decline_code === null || e.decline_code === undefined);
      else expect('ERR-3: a card_error has code card_declined', e.code === 'card_declined');
    }
    if (r.status >= 500) {
      expect('ERR-4: a 5xx is 500 internal_error or 503 service_unavailable, type api_error', ALLOWED_5XX[r.status] !== undefined && e !== null && e.code === ALLOWED_5XX[r.status] && e.type === 'api_error');
    }
  }
  if (r.status === 429) {
    const e = readErrorBody(r.json);
    expect('RL-7: a 429 has code rate_limit_exceeded, type rate_limit_error', e !== null && e.code === 'rate_limit_exceeded' && e.type === 'rate_limit_error');
    expect('RL-7: a 429 carries Retry-After in seconds', /^\d+$/.test((header(r, RATE_HEADERS.retryAfter) ?? '').trim()));
    expect('RL-7: a 429 has X-RateLimit-Remaining 0', header(r, RATE_HEADERS.remaining) === '0');
  }
}
