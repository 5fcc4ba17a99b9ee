/**
 * The API as scenarios call it (ApiClient of src/spec/scenario.ts), over undici.
 * Every exchange, retries included, becomes one history record handed to the
 * factory's sink. Secrets live only in the factory's private store: records
 * carry the key's label, card numbers only as last four / outcome / brand.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  API_PATHS,
  HISTORY_VERSION,
  HPP_FORM_FIELDS,
  LIMITS,
  REFUND_PATHS,
  THREE_DS_RESULT_PARAM,
  cardBrand,
  directCreateBody,
  hostedCreateBody,
  isTerminal,
  type ApiClient,
  type CallOptions,
  type CanonicalPayment,
  type CreateOptions,
  type ExchangeRecord,
  type ExchangeResult,
  type KeyHandle,
  type ListParams,
  type Operation,
  type PaymentInput,
  type Presentation,
  type RawRequest,
  type Sent,
  type ThreeDsResult,
} from '../spec/index.ts';
import { failureRecord, parseDateHeader, parseRateHeaders, parseRetryAfter, responseRecord, type ExchangeMeta, type ExchangeOffload } from './exchange.ts';
import { LeakScanner } from './leaks.ts';
import { HttpTransport, headersObject, type FailureKind, type RawResponse } from './transport.ts';

/** Any run clock: monotonic run ms and epoch ms. */
export interface Clock {
  now(): number;
  wall(): number;
}

/** A key as the engine holds it: the handle scenarios see, and the secret they never do. */
export interface KeySecret {
  handle: KeyHandle;
  secret: string;
}

/** The run's request budget: asked before every request. */
export interface RequestGate {
  /** True when one more request may be sent. */
  admit(): boolean;
  /** Why the run stopped sending (when admit() said no). */
  readonly stopReason: string;
}

/** Thrown by a client call once the run has stopped sending (cap hit, interrupted). Not a scenario failure. */
export class RunStoppedError extends Error {
  constructor(readonly reason: string) {
    super(`run stopped: ${reason}`);
    this.name = 'RunStoppedError';
  }
}

export interface ClientFactoryOptions {
  baseUrl: string;
  keys: readonly KeySecret[];
  presentation: Presentation;
  clock: Clock;
  /** Receives every exchange record (normally HistoryWriter.write). */
  sink: (record: ExchangeRecord) => void;
  /** Default per-request time-out (ms). */
  timeoutMs?: number;
  /** Scales polling and retry back-off (embedded target); 1 for a real deployment. */
  timeScale?: number;
  /** Scenario name stamped on records (changed with setScenario). */
  scenario?: string;
  /** Once aborted, clients send nothing more and sleeps end early. */
  signal?: AbortSignal;
  gate?: RequestGate;
  /** Connections per origin (default unlimited). */
  connections?: number | null;
  /**
   * Hand answered exchanges over raw to be built and written elsewhere (the
   * history writer's worker thread) instead of building records here; a record
   * a scenario reads is still built here, on demand, with the same seq.
   */
  offload?: ExchangeOffload;
}

/** Times are kept to the microsecond: finer digits are noise, and shorter numbers serialize faster. */
export function roundUs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Retry back-off for attempt n (0-based): 1 s doubling to 30 s, scaled, at least 20 ms. */
export function retryBackoffMs(attempt: number, timeScale: number): number {
  const base = Math.min(LIMITS.retryBackoffMaxMs, LIMITS.retryBackoffStartMs * 2 ** attempt);
  return Math.max(20, base * timeScale);
}

/** Sleeps `ms`, ending early (resolving) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One exchange's outcome. Its history record is built after the caller has
 * been answered (see ClientFactory.flushDeferred), so a load loop sends its next
 * request while the record of the last one is still being written; reading
 * `record`, `body` or `payment` builds it (and every earlier pending one) first.
 */
class Result implements ExchangeResult {
  private headerCache: Record<string, string> | null = null;
  private built: ExchangeRecord | null = null;
  private parsedBody: unknown = null;
  private parsedPayment: CanonicalPayment | null = null;
  private error: unknown = null;
  /** Seq of a record handed over raw (offload), built here only if read; 0 when not handed over. */
  private handedSeq = 0;

  constructor(
    private readonly f: ClientFactory,
    private meta: ExchangeMeta | null,
    private readonly tEnd: number,
    private raw: RawResponse | null,
    private readonly failure: FailureKind | null,
    readonly status: number,
  ) {}

  /** Builds and writes the record (once); called in completion order by the factory. */
  build(): void {
    if (this.built || this.error || this.handedSeq) return;
    const off = this.f.offload;
    if (off) {
      // Offload: the worker builds and writes it; keep what is needed to build it here if read.
      try {
        const raw = this.raw;
        const meta = this.meta!;
        this.handedSeq = off.writeCapture({ meta, tEnd: this.tEnd, status: this.status, picked: raw ? raw.picked : null, body: raw ? raw.body : '', failure: raw ? null : (this.failure ?? 'other') }, (seq) => {
          // A listener may read the view at once: the record must know its seq before.
          this.handedSeq = seq;
          return raw === null ? failureRecord(meta, this.tEnd, this.failure ?? 'other', seq) : (new RecordView(this, meta, this.tEnd, raw, seq) as unknown as ExchangeRecord);
        });
      } catch (err) {
        this.error = err;
        this.meta = null;
      }
      return;
    }
    try {
      if (this.raw === null) {
        this.built = failureRecord(this.meta!, this.tEnd, this.failure ?? 'other');
      } else {
        const parsed = responseRecord(this.meta!, this.tEnd, this.raw, this.f.scanner);
        this.built = parsed.record;
        this.parsedBody = parsed.body;
        this.parsedPayment = parsed.payment;
      }
      this.f.sink(this.built);
    } catch (err) {
      this.error = err;
      this.built = null;
    }
    this.meta = null;
  }

  /** The error building or writing the record raised, if any. */
  get failedWith(): unknown {
    return this.error === null ? undefined : this.error;
  }

  private ensure(): void {
    if (!this.built && !this.error && !this.handedSeq) this.f.flushDeferred();
    if (this.handedSeq && !this.built && !this.error) this.buildLocal();
    if (this.error) throw this.error;
  }

  /** The record of an exchange handed over raw, built here (same inputs, same record) because a scenario reads it. */
  private buildLocal(): void {
    if (this.raw === null) {
      this.built = failureRecord(this.meta!, this.tEnd, this.failure ?? 'other');
    } else {
      const parsed = responseRecord(this.meta!, this.tEnd, this.raw, this.f.scanner);
      this.built = parsed.record;
      this.parsedBody = parsed.body;
      this.parsedPayment = parsed.payment;
    }
    this.built.seq = this.handedSeq;
    this.meta = null;
  }

  get record(): ExchangeRecord {
    this.ensure();
    return this.built!;
  }
  get body(): unknown {
    this.ensure();
    return this.parsedBody;
  }
  get payment(): CanonicalPayment | null {
    this.ensure();
    return this.parsedPayment;
  }
  /** Built on first use: the hot path never needs the full header map. */
  get headers(): Record<string, string> {
    return (this.headerCache ??= this.raw ? headersObject(this.raw.rawHeaders) : {});
  }
}

/**
 * What live listeners get for an exchange whose record the history writer's
 * worker builds: the fields known without the body are plain properties; the
 * body-derived ones (json, error, payment, refund, list, shape problems, leaks,
 * snippet) build the record here, once, when first read (shared with the
 * Result). Reads like the record the worker writes; `toJSON` gives that record.
 */
class RecordView {
  readonly v = HISTORY_VERSION;
  readonly kind = 'exchange' as const;
  readonly seq: number;
  readonly scenario: string;
  readonly group?: string;
  readonly op: Operation;
  readonly key: string;
  readonly idemKey?: string;
  readonly bodyDigest?: string;
  readonly sent: Sent;
  readonly attempt?: number;
  readonly tIntended: number;
  readonly tStart: number;
  readonly tEnd: number;
  readonly wall: number;
  readonly status: number;
  readonly contentType: string | null;
  readonly rate: ExchangeRecord['rate'];
  readonly retryAfter: number | null;
  readonly date?: number;
  readonly location?: string;
  readonly failure = null;
  readonly #result: Result;
  readonly #body: string;

  constructor(result: Result, meta: ExchangeMeta, tEnd: number, raw: RawResponse, seq: number) {
    this.#result = result;
    this.#body = raw.body;
    this.seq = seq;
    this.scenario = meta.scenario;
    if (meta.group !== undefined) this.group = meta.group;
    this.op = meta.op;
    this.key = meta.key;
    if (meta.idemKey !== undefined) this.idemKey = meta.idemKey;
    if (meta.bodyDigest !== undefined) this.bodyDigest = meta.bodyDigest;
    this.sent = meta.sent;
    if (meta.attempt !== undefined) this.attempt = meta.attempt;
    this.tIntended = meta.tIntended;
    this.tStart = meta.tStart;
    this.tEnd = tEnd;
    this.wall = meta.wall;
    this.status = raw.status;
    const p = raw.picked;
    this.contentType = p.contentType;
    this.rate = parseRateHeaders(p);
    const date = parseDateHeader(p.date);
    if (date !== undefined) this.date = date;
    this.retryAfter = parseRetryAfter(p.retryAfter, meta.wall, date);
    if (p.location !== null) this.location = p.location;
  }

  get json(): boolean {
    return this.#result.record.json;
  }
  get error(): ExchangeRecord['error'] {
    return this.#result.record.error;
  }
  get payment(): ExchangeRecord['payment'] {
    return this.#result.record.payment;
  }
  get refund(): ExchangeRecord['refund'] {
    return this.#result.record.refund;
  }
  get list(): ExchangeRecord['list'] {
    return this.#result.record.list;
  }
  get shapeProblems(): ExchangeRecord['shapeProblems'] {
    return this.#result.record.shapeProblems;
  }
  get leaks(): ExchangeRecord['leaks'] {
    return this.#result.record.leaks;
  }
  get bodySnippet(): ExchangeRecord['bodySnippet'] {
    return this.#result.record.bodySnippet;
  }
  toJSON(): ExchangeRecord {
    return this.#result.record;
  }
  /** False when the raw body cannot hold a `livemode` of true (no record needs building to know). */
  mayCarryLivemodeTrue(): boolean {
    return LIVEMODE_TRUE.test(this.#body);
  }
}

/**
 * `"livemode": true` as it appears in JSON: a key of that name with the literal true. Inside a
 * string value the quotes would be escaped, so text such as a description cannot match.
 */
const LIVEMODE_TRUE = /"livemode"\s*:\s*true/;

/**
 * Whether an exchange's response carried livemode true: on its payment, or on any payment of
 * a list page. For a record built on the history worker (offload) the raw body is looked at
 * first, so the check builds the record here only when the body names livemode true.
 */
export function carriesLivemodeTrue(r: ExchangeRecord): boolean {
  if (r instanceof RecordView && !r.mayCarryLivemodeTrue()) return false;
  return r.payment?.livemode === true || r.list?.livemodes.includes(true) === true;
}

/** Card details other than the number (TEST-2); the CVC only as its length. */
function cardMetaOf(card: NonNullable<PaymentInput['card']>): NonNullable<Sent['cardMeta']> {
  return { expMonth: card.exp_month, expYear: card.exp_year, cvcLength: String(card.cvc).length, holderName: card.holder_name };
}

function digest(body: string | Buffer): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}

function stripUndefined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

interface SendSpec {
  op: Operation;
  method: string;
  origin: string;
  path: string;
  /** Headers besides Idempotency-Key. */
  headers: string[];
  body: string | null;
  sent: Sent;
  /** Whether this request carries an Idempotency-Key (API POSTs). */
  idempotent: boolean;
}

export class ClientFactory {
  readonly handles: readonly KeyHandle[];
  readonly scanner: LeakScanner;
  readonly transport: HttpTransport;
  readonly baseUrl: string;
  readonly origin: string;
  /** Path prefix of the base URL (a target mounted under a path). */
  readonly basePath: string;
  presentation: Presentation;
  scenario: string;
  readonly timeoutMs: number;
  readonly timeScale: number;
  readonly clock: Clock;
  readonly sink: (record: ExchangeRecord) => void;
  readonly signal: AbortSignal | undefined;
  readonly gate: RequestGate | undefined;
  readonly offload: ExchangeOffload | undefined;
  readonly #secrets: string[] = [];
  readonly #clients = new Map<number, UndiciApiClient>();
  readonly #idemNonce = randomBytes(5).toString('hex');
  #idemCounter = 0;
  #pendingIntended: number | undefined;
  /** Exchanges answered whose records are not built yet, in completion order. */
  #deferred: Result[] = [];
  #flushScheduled = false;
  #sinkErrorReported = false;

  constructor(opts: ClientFactoryOptions) {
    const u = new URL(opts.baseUrl);
    this.baseUrl = opts.baseUrl;
    this.origin = u.origin;
    this.basePath = u.pathname.replace(/\/+$/, '');
    this.presentation = opts.presentation;
    this.scenario = opts.scenario ?? '';
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.timeScale = opts.timeScale ?? 1;
    this.clock = opts.clock;
    this.sink = opts.sink;
    this.signal = opts.signal;
    this.gate = opts.gate;
    this.offload = opts.offload;
    this.scanner = new LeakScanner();
    this.transport = new HttpTransport({ connections: opts.connections ?? null });
    const handles: KeyHandle[] = [];
    for (const k of opts.keys) {
      this.#secrets[k.handle.index] = k.secret;
      this.scanner.addKey(k.secret, k.handle.label);
      this.offload?.addScanKey(k.secret, k.handle.label);
      handles.push(k.handle);
    }
    this.handles = handles;
  }

  /**
   * A throwaway key an auth probe sends: the target must not echo it either (SEC-2), so the
   * leak scanners learn it like the run's own keys.
   */
  probeKey(secret: string, label: string): string {
    this.scanner.addKey(secret, label);
    this.offload?.addScanKey(secret, label);
    return secret;
  }

  /** Remembers a card number the run sends, here and where records are built. */
  addCard(number: string): void {
    if (this.scanner.addCard(number)) this.offload?.addScanCard(number);
  }

  setScenario(name: string): void {
    this.scenario = name;
  }

  /** The client of one key (one per key, shared). */
  client(handle: KeyHandle): ApiClient {
    let c = this.#clients.get(handle.index);
    if (!c) {
      const secret = this.#secrets[handle.index];
      if (secret === undefined) throw new Error(`no key with handle ${handle.label}`);
      c = new UndiciApiClient(this, handle, secret);
      this.#clients.set(handle.index, c);
    }
    return c;
  }

  /** The Authorization value of a key, for the engine's own senders (the autocannon burst); never recorded. */
  authorizationFor(handle: KeyHandle): string {
    const secret = this.#secrets[handle.index];
    if (secret === undefined) throw new Error(`no key with handle ${handle.label}`);
    return `Bearer ${secret}`;
  }

  /** A fresh Idempotency-Key, unique across runs (random run nonce + counter). */
  newIdempotencyKey(): string {
    return `ps_${this.#idemNonce}_${(++this.#idemCounter).toString(36)}`;
  }

  /**
   * Open-model executors announce an iteration's intended start here just before
   * calling it; the first request that iteration makes (synchronously, before
   * its first await) takes it as its `tIntended`, so late starts are measured
   * from when they were due even when the scenario does not pass `tIntended`.
   */
  setIntended(t: number | undefined): void {
    this.#pendingIntended = t;
  }

  takeIntended(): number | undefined {
    const t = this.#pendingIntended;
    this.#pendingIntended = undefined;
    return t;
  }

  /** Queues an answered exchange; its record is built on a coming turn of the event loop (or when read). */
  defer(result: Result): void {
    this.#deferred.push(result);
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      // Two hops: undici writes the next request on a connection from a setImmediate queued
      // as a response completes (pipelining 1); building records in the following turn's
      // check phase lets every such write go out first.
      setImmediate(this.#flushNextTurn);
    }
  }

  readonly #flushNextTurn = (): void => {
    setImmediate(this.#flushNow);
  };

  readonly #flushNow = (): void => {
    this.flushDeferred();
  };

  /** Builds and writes every pending record, in completion order. The engine calls it before the end record. */
  flushDeferred(): void {
    this.#flushScheduled = false;
    const queue = this.#deferred;
    if (queue.length === 0) return;
    this.#deferred = [];
    for (const r of queue) r.build();
    for (const r of queue) {
      const err = r.failedWith;
      if (err !== undefined && !this.#sinkErrorReported) {
        // The sink refused a record (history closed): say so once; reading that result rethrows it.
        this.#sinkErrorReported = true;
        process.stderr.write(`paystorm: an exchange record could not be written: ${(err as Error)?.message ?? String(err)}\n`);
      }
    }
  }

  async close(): Promise<void> {
    await this.transport.close();
    this.flushDeferred();
  }
}

export class UndiciApiClient implements ApiClient {
  readonly #auth: string;
  readonly #getHeaders: string[];

  constructor(
    private readonly f: ClientFactory,
    readonly key: KeyHandle,
    secret: string,
  ) {
    this.#auth = `Bearer ${secret}`;
    this.#getHeaders = ['authorization', this.#auth, 'accept', 'application/json'];
  }

  private apiPath(p: string): string {
    return this.f.basePath + p;
  }

  private postHeaders(): string[] {
    return ['authorization', this.#auth, 'accept', 'application/json', 'content-type', 'application/json'];
  }

  create(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult> {
    const shape = opts?.shape ?? this.f.presentation;
    return this.createLike('create', API_PATHS.payments, directCreateBody(input, shape), input, shape, opts);
  }

  createHosted(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult> {
    return this.createLike('create_hpp', API_PATHS.hosted, hostedCreateBody(input), input, 'A', opts);
  }

  private createLike(op: Operation, path: string, bodyObj: Record<string, unknown>, input: PaymentInput, shape: 'A' | 'B', opts?: CreateOptions) {
    if (input.card) this.f.addCard(input.card.number);
    const sent: Sent = stripUndefined({
      amount: input.amount,
      currency: input.currency,
      description: input.description,
      metadata: input.metadata,
      merchantReference: input.merchantReference,
      returnUrl: input.returnUrl,
      cardLast4: input.card ? input.card.number.slice(-4) : undefined,
      cardBrand: input.card ? cardBrand(input.card.number) : undefined,
      cardOutcome: opts?.cardOutcome,
      cardMeta: input.card ? cardMetaOf(input.card) : undefined,
      inputShape: shape,
    });
    return this.send(
      { op, method: 'POST', origin: this.f.origin, path: this.apiPath(path), headers: this.postHeaders(), body: JSON.stringify(bodyObj), sent, idempotent: true },
      opts,
    );
  }

  retrieve(paymentId: string, opts?: CallOptions): Promise<ExchangeResult> {
    return this.send(
      { op: 'retrieve', method: 'GET', origin: this.f.origin, path: this.apiPath(API_PATHS.payment(paymentId)), headers: this.#getHeaders, body: null, sent: { paymentId }, idempotent: false },
      opts,
    );
  }

  list(params: ListParams = {}, opts?: CallOptions): Promise<ExchangeResult> {
    const q = new URLSearchParams();
    for (const k of ['limit', 'starting_after', 'status', 'created[gte]', 'created[lt]'] as const) {
      const v = params[k];
      if (v !== undefined) q.set(k, String(v));
    }
    const qs = q.toString();
    const sent: Sent = {
      list: stripUndefined({
        limit: params.limit,
        startingAfter: params.starting_after,
        status: params.status,
        createdGte: params['created[gte]'],
        createdLt: params['created[lt]'],
      }),
    };
    return this.send(
      { op: 'list', method: 'GET', origin: this.f.origin, path: this.apiPath(API_PATHS.payments) + (qs ? `?${qs}` : ''), headers: this.#getHeaders, body: null, sent, idempotent: false },
      opts,
    );
  }

  refund(paymentId: string, body: { amount?: number }, opts?: CallOptions & { path?: 'payment' | 'refunds' }): Promise<ExchangeResult> {
    const topLevel = opts?.path === 'refunds';
    const payload = topLevel ? stripUndefined({ payment_id: paymentId, amount: body.amount }) : stripUndefined({ amount: body.amount });
    return this.send(
      {
        op: topLevel ? 'refund_create' : 'refund',
        method: 'POST',
        origin: this.f.origin,
        path: this.apiPath(topLevel ? REFUND_PATHS.topLevel : REFUND_PATHS.paymentScoped(paymentId)),
        headers: this.postHeaders(),
        body: JSON.stringify(payload),
        sent: stripUndefined({ paymentId, amount: body.amount }),
        idempotent: true,
      },
      opts,
    );
  }

  complete3ds(redirectUrl: string, result: ThreeDsResult, opts?: CallOptions): Promise<ExchangeResult> {
    const url = new URL(redirectUrl, this.f.baseUrl);
    url.searchParams.set(THREE_DS_RESULT_PARAM, result);
    // The customer's browser follows this link: no API key is sent.
    return this.send(
      {
        op: 'complete_3ds',
        method: 'GET',
        origin: url.origin,
        path: url.pathname + url.search,
        headers: ['accept', 'text/html,application/json'],
        body: null,
        sent: stripUndefined({ method: 'GET', path: url.pathname, threeDsResult: result, paymentId: opts?.paymentId }),
        idempotent: false,
      },
      opts,
    );
  }

  submitHosted(redirectUrl: string, card: NonNullable<PaymentInput['card']>, opts?: CreateOptions): Promise<ExchangeResult> {
    const url = new URL(redirectUrl, this.f.baseUrl);
    this.f.addCard(card.number);
    const form = new URLSearchParams();
    for (const k of HPP_FORM_FIELDS) form.set(k, String(card[k]));
    return this.send(
      {
        op: 'submit_hpp',
        method: 'POST',
        origin: url.origin,
        path: url.pathname + url.search,
        headers: ['accept', 'text/html,application/json', 'content-type', 'application/x-www-form-urlencoded'],
        body: form.toString(),
        sent: stripUndefined({ method: 'POST', path: url.pathname, cardLast4: card.number.slice(-4), cardBrand: cardBrand(card.number), cardOutcome: opts?.cardOutcome, cardMeta: cardMetaOf(card), paymentId: opts?.paymentId }),
        idempotent: false,
      },
      opts,
    );
  }

  raw(req: RawRequest, opts?: CallOptions & { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] }): Promise<ExchangeResult> {
    const auth = req.auth ?? 'ok';
    const headers: string[] = [];
    const given = new Set<string>();
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      headers.push(k, v);
      given.add(k.toLowerCase());
    }
    if (!given.has('authorization')) {
      const value = this.authVariant(auth);
      if (value !== null) headers.push('authorization', value);
    }
    let body: string | null = null;
    if (req.body !== undefined) {
      body = typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
      if (!given.has('content-type')) headers.push('content-type', 'application/json');
    }
    if (!given.has('accept')) headers.push('accept', 'application/json');
    const url = new URL(req.path.startsWith('/') ? this.f.baseUrl.replace(/\/+$/, '') + req.path : req.path);
    return this.send(
      {
        op: opts?.op ?? 'raw',
        method: req.method,
        origin: url.origin,
        path: url.pathname + url.search,
        headers,
        body,
        sent: { method: req.method, path: url.pathname + url.search, auth, ...(opts?.sent ?? {}) },
        // An explicit Idempotency-Key header is the probe's own; otherwise POSTs get one unless omitted.
        idempotent: req.method === 'POST' && !given.has('idempotency-key'),
      },
      opts,
    );
  }

  /** The Authorization value for a probe's auth variant; the key itself only for 'ok'. */
  private authVariant(auth: NonNullable<RawRequest['auth']>): string | null {
    switch (auth) {
      case 'ok':
        return this.#auth;
      case 'missing':
        return null;
      case 'malformed':
        return 'Bearer';
      case 'basic':
        // HTTP Basic with the key as user name, as some payment APIs accept.
        return `Basic ${Buffer.from(`${this.#auth.slice(7)}:`).toString('base64')}`;
      case 'basic-raw':
        // The key under a non-Bearer scheme: a server that only splits off the first word accepts it.
        return `Basic ${this.#auth.slice(7)}`;
      case 'bad-prefix':
        return `Bearer ${this.f.probeKey(`xyz_test_sk_${randomBytes(12).toString('hex')}`, 'probe key (bad prefix)')}`;
      case 'unknown-key':
        return `Bearer ${this.f.probeKey(`${this.key.prefix}${randomBytes(12).toString('hex')}`, 'probe key (unknown)')}`;
    }
  }

  async pollUntilSettled(paymentId: string, opts: CallOptions & { maxWaitMs?: number; until?: (p: CanonicalPayment) => boolean } = {}): Promise<CanonicalPayment | null> {
    const f = this.f;
    const deadline = f.clock.now() + (opts.maxWaitMs ?? 60_000 * f.timeScale);
    const done = opts.until ?? ((p: CanonicalPayment) => isTerminal(p.status));
    // Polling guidance: 1-3 s (scaled); start at the low end and widen.
    let interval: number = LIMITS.pollIntervalMinMs;
    let last: CanonicalPayment | null = null;
    const { maxWaitMs: _m, until: _u, ...callOpts } = opts;
    for (;;) {
      if (f.signal?.aborted) return last;
      let r: ExchangeResult;
      try {
        r = await this.retrieve(paymentId, callOpts);
      } catch (err) {
        if (err instanceof RunStoppedError) return last;
        throw err;
      }
      if (r.payment) {
        last = r.payment;
        if (done(r.payment)) return r.payment;
      }
      const left = deadline - f.clock.now();
      if (left <= 0) return last;
      await abortableSleep(Math.min(left, Math.max(20, interval * f.timeScale)), f.signal);
      interval = Math.min(LIMITS.pollIntervalMaxMs, interval * 1.5);
    }
  }

  /** Sends with the client's retry policy: same Idempotency-Key on every attempt (FT-3). */
  private send(spec: SendSpec, opts: CallOptions | undefined): Promise<ExchangeResult> {
    const f = this.f;
    let idemKey: string | undefined;
    if (spec.idempotent && !opts?.omitIdemKey) idemKey = opts?.idemKey ?? f.newIdempotencyKey();
    if (spec.idempotent) {
      if (opts?.omitIdemKey) spec.sent.idemVariant = 'missing';
      else if (idemKey!.length > LIMITS.idempotencyKeyMaxLength) spec.sent.idemVariant = 'oversized';
    }
    const bodyDigest = spec.body !== null ? digest(spec.body) : undefined;
    const tIntended = opts?.tIntended ?? f.takeIntended();
    const retries = opts?.retries ?? 0;
    // No retry policy (the load path): one promise, no async wrapper.
    if (retries <= 0) return this.once(spec, idemKey, bodyDigest, tIntended, undefined, opts);
    return this.sendWithRetries(spec, idemKey, bodyDigest, tIntended, retries, opts);
  }

  private async sendWithRetries(spec: SendSpec, idemKey: string | undefined, bodyDigest: string | undefined, tIntended: number | undefined, retries: number, opts: CallOptions | undefined): Promise<ExchangeResult> {
    const f = this.f;
    for (let attempt = 0; ; attempt++) {
      const res = await this.once(spec, idemKey, bodyDigest, attempt === 0 ? tIntended : undefined, attempt, opts);
      if (attempt >= retries || !isRetryable(res.record)) return res;
      await abortableSleep(retryBackoffMs(attempt, f.timeScale), f.signal);
      if (f.signal?.aborted) return res;
    }
  }

  private once(spec: SendSpec, idemKey: string | undefined, bodyDigest: string | undefined, tIntended: number | undefined, attempt: number | undefined, opts: CallOptions | undefined): Promise<ExchangeResult> {
    const f = this.f;
    if (f.signal?.aborted) return Promise.reject(new RunStoppedError(String(f.signal.reason ?? 'aborted')));
    if (f.gate && !f.gate.admit()) return Promise.reject(new RunStoppedError(f.gate.stopReason));
    const headers = idemKey === undefined ? spec.headers : [...spec.headers, 'idempotency-key', idemKey];
    const tStart = roundUs(f.clock.now());
    const meta: ExchangeMeta = {
      scenario: f.scenario,
      op: spec.op,
      key: this.key.label,
      sent: attempt ? { ...spec.sent } : spec.sent,
      tIntended: tIntended !== undefined && tIntended < tStart ? roundUs(tIntended) : tStart,
      tStart,
      wall: roundUs(f.clock.wall()),
    };
    if (opts?.group !== undefined) meta.group = opts.group;
    if (idemKey !== undefined) meta.idemKey = idemKey;
    if (bodyDigest !== undefined) meta.bodyDigest = bodyDigest;
    if (attempt !== undefined) meta.attempt = attempt;
    return new Promise((resolve) => {
      f.transport.send(
        { origin: spec.origin, method: spec.method, path: spec.path, headers, body: spec.body, timeoutMs: opts?.timeoutMs ?? f.timeoutMs },
        (res: RawResponse | null, failure: FailureKind | null) => {
          const result = new Result(f, meta, roundUs(f.clock.now()), res, failure, res === null ? 0 : res.status);
          f.defer(result);
          resolve(result);
        },
      );
    });
  }
}

/** The spec's client rule: retry on api_error and 503 (and when no answer came); never on 429 or other 4xx. */
export function isRetryable(r: ExchangeRecord): boolean {
  if (r.failure !== null) return true;
  if (r.status === 503 || r.status === 500) return true;
  return r.error?.type === 'api_error';
}
