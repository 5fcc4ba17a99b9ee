/**
 * The HTTP hot path: undici Pools (keep-alive, one per origin) driven through
 * the `dispatch` API with a small legacy-style handler. It skips undici's
 * `request()` stream machinery, reads only the headers paystorm records from the
 * raw header list, and enforces per-request time-outs with one sweeping timer
 * instead of one timer per request.
 */
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';

export type { FailureKind, PickedHeaders } from '../history/exchange-record.ts';
import type { AnsweredResponse, FailureKind, PickedHeaders } from '../history/exchange-record.ts';
import { contentEncodingOf, decodeBody, sameName } from './wire.ts';

export interface RawResponse extends AnsweredResponse {
  /** Flat [name, value, ...] as received. */
  rawHeaders: Buffer[];
}

export type SendCallback = (res: RawResponse | null, failure: FailureKind | null, error: Error | null) => void;

export interface OutgoingRequest {
  origin: string;
  method: string;
  /** Path with query, starting with '/'. */
  path: string;
  /** Flat [name, value, ...]. */
  headers: string[];
  body: string | Buffer | null;
  timeoutMs: number;
}

class TimeoutError extends Error {
  readonly code = 'PAYSTORM_TIMEOUT';
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
  }
}

/** The harness closed the transport with the request still in flight (see HttpTransport.close). */
class TransportClosedError extends Error {
  readonly code = 'PAYSTORM_CLOSED';
  constructor() {
    super('paystorm closed the client with the request in flight');
  }
}

export function classifyFailure(err: unknown): FailureKind {
  const code = (err as { code?: string } | null)?.code ?? '';
  switch (code) {
    // Paystorm's own doing (closing or destroying its pools), not the service's: recorded apart from a reset.
    case 'PAYSTORM_CLOSED':
    case 'UND_ERR_CLOSED':
    case 'UND_ERR_DESTROYED':
      return 'aborted';
    case 'PAYSTORM_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'timeout';
    case 'ECONNREFUSED':
      return 'refused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'reset';
    default: {
      const cause = (err as { cause?: unknown } | null)?.cause;
      return cause && cause !== err ? classifyFailure(cause) : 'other';
    }
  }
}

function emptyPicked(): PickedHeaders {
  return { contentType: null, rateLimit: null, rateRemaining: null, rateReset: null, retryAfter: null, location: null, date: null };
}

/** Lower-case ASCII names of the recorded headers, as bytes, indexed by name length. */
const WANTED: Map<number, { name: Buffer; field: keyof PickedHeaders }[]> = new Map();
for (const [name, field] of [
  ['content-type', 'contentType'],
  ['x-ratelimit-limit', 'rateLimit'],
  ['x-ratelimit-remaining', 'rateRemaining'],
  ['x-ratelimit-reset', 'rateReset'],
  ['retry-after', 'retryAfter'],
  ['location', 'location'],
  ['date', 'date'],
] as const) {
  const list = WANTED.get(name.length) ?? [];
  list.push({ name: Buffer.from(name, 'latin1'), field });
  WANTED.set(name.length, list);
}

/**
 * Reads the recorded headers from undici's raw list, comparing names as bytes (no header object, no name strings).
 * A repeated header's values are joined with ', ' (as headersObject and Node do), never last-wins: two
 * different X-RateLimit-Remaining or Retry-After values then fail to parse and are recorded raw / null for
 * the oracle to judge, instead of as one clean value the service never sent alone.
 */
export function pickHeaders(raw: Buffer[]): PickedHeaders {
  const p = emptyPicked();
  for (let i = 0; i < raw.length; i += 2) {
    const candidates = WANTED.get(raw[i].length);
    if (candidates === undefined) continue;
    for (const w of candidates) {
      if (sameName(raw[i], w.name)) {
        const v = raw[i + 1].toString('latin1');
        const seen = p[w.field];
        p[w.field] = seen === null || seen === undefined ? v : `${seen}, ${v}`;
        break;
      }
    }
  }
  return p;
}

/** All headers, lower-cased names, repeated values joined by ', '. */
export function headersObject(raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toString('latin1').toLowerCase();
    const v = raw[i + 1].toString('latin1');
    out[k] = k in out ? `${out[k]}, ${v}` : v;
  }
  return out;
}

/** One request's handler (undici's legacy handler interface, its native path). */
class ExchangeHandler implements Dispatcher.DispatchHandler {
  status = 0;
  rawHeaders: Buffer[] = [];
  chunk: Buffer | null = null;
  chunks: Buffer[] | null = null;
  abortFn: ((err: Error) => void) | null = null;
  done = false;
  deadline: number;

  constructor(
    private readonly transport: HttpTransport,
    private readonly cb: SendCallback,
    readonly timeoutMs: number,
  ) {
    this.deadline = performance.now() + timeoutMs;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortFn = abort as (err: Error) => void;
    // Timed out while queued for a connection: answered already, stop it now.
    if (this.done) abort(new TimeoutError(this.timeoutMs));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode < 200) return true; // 1xx: the final response follows
    this.status = statusCode;
    this.rawHeaders = rawHeaders;
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.chunk === null) this.chunk = chunk;
    else (this.chunks ??= [this.chunk]).push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.done) return;
    this.done = true;
    this.transport.untrack(this);
    const raw = this.chunks ? Buffer.concat(this.chunks) : this.chunk;
    // A content-coded answer (despite `accept-encoding: identity`) is decoded first: zlib only then.
    const coding = raw === null ? null : contentEncodingOf(this.rawHeaders);
    const body = raw === null ? '' : decodeBody(raw, coding);
    this.cb({ status: this.status, picked: pickHeaders(this.rawHeaders), rawHeaders: this.rawHeaders, body }, null, null);
  }

  onError(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.transport.untrack(this);
    this.cb(null, classifyFailure(err), err);
  }

  /** Called by the sweep once the deadline has passed. */
  expire(): void {
    if (this.done) return;
    this.done = true;
    const err = new TimeoutError(this.timeoutMs);
    if (this.abortFn) this.abortFn(err);
    this.cb(null, 'timeout', err);
  }
}

export interface TransportOptions {
  /** Connections per origin (default: unlimited, one per concurrent request). */
  connections?: number | null;
  keepAliveTimeoutMs?: number;
}

export class HttpTransport {
  private readonly pools = new Map<string, Pool>();
  private readonly inflight = new Set<ExchangeHandler>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly opts: TransportOptions = {}) {}

  get inFlight(): number {
    return this.inflight.size;
  }

  pool(origin: string): Pool {
    let p = this.pools.get(origin);
    if (!p) {
      p = new Pool(origin, {
        connections: this.opts.connections ?? null,
        pipelining: 1,
        keepAliveTimeout: this.opts.keepAliveTimeoutMs ?? 10_000,
        // paystorm's own sweep enforces the per-request time-out; these are a safety net.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      this.pools.set(origin, p);
    }
    return p;
  }

  send(req: OutgoingRequest, cb: SendCallback): void {
    if (this.closed) {
      cb(null, 'aborted', new TransportClosedError());
      return;
    }
    const handler = new ExchangeHandler(this, cb, req.timeoutMs);
    this.inflight.add(handler);
    if (this.sweepTimer === null) this.startSweep();
    this.pool(req.origin).dispatch({ path: req.path, method: req.method as Dispatcher.HttpMethod, headers: req.headers, body: req.body }, handler);
  }

  untrack(h: ExchangeHandler): void {
    this.inflight.delete(h);
  }

  private startSweep(): void {
    this.sweepTimer = setInterval(() => {
      if (this.inflight.size === 0) {
        clearInterval(this.sweepTimer!);
        this.sweepTimer = null;
        return;
      }
      const now = performance.now();
      for (const h of this.inflight) {
        if (h.deadline <= now) {
          this.inflight.delete(h);
          h.expire();
        }
      }
    }, 10);
    this.sweepTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    for (const h of [...this.inflight]) h.onError(new TransportClosedError());
    await Promise.all([...this.pools.values()].map((p) => p.destroy().catch(() => undefined)));
    this.pools.clear();
  }
}
