/**
 * The reference Card Payment Service: node:http with a small router, in-memory
 * stores, rate limiting and idempotency per the spec, a sandbox processor
 * reached over HTTP, and webhooks. `startReferenceService` is the entry point.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { LIMITS, LIST_PARAMS, type PaymentStatus, luhnValid } from '../spec/index.ts';
import { KeyRing, type ApiKey } from './auth.ts';
import { bugFlags, type BugFlags } from './bugs.ts';
import { ErrorWriter, type ApiResult } from './errors.ts';
import { type HeaderList, JSON_TYPE, nextRequestId, parseQuery, readBody, send } from './http.ts';
import { IdempotencyStore, canonicalJson } from './idempotency.ts';
import { Lifecycle, maskCard, withBudget } from './lifecycle.ts';
import { type ServiceClock, serviceClock } from './clock.ts';
import type { PaymentRecord, RefundRecord } from './model.ts';
import { touch } from './model.ts';
import { type ServiceOptions, resolveOptions, scaledDelays, type Delays } from './options.ts';
import { Presenter } from './present.ts';
import { type RunningProcessor, startProcessor } from './processor.ts';
import { RateLimiter } from './rate-limit.ts';
import { SandboxPages } from './sandbox-pages.ts';
import { Scheduler } from './scheduler.ts';
import { PaymentStore } from './store.ts';
import { UpstreamClient, type UpstreamResult } from './upstream.ts';
import { type ParsedCreate, type ValidateOptions, isExpired, validateDirectCreate, validateHostedCreate, validationOptions } from './validate.ts';
import { WebhookDispatcher } from './webhooks.ts';

export interface RunningService {
  url: string;
  port: number;
  upstreamUrl: string;
  /** The processor the service started itself (absent when upstreamUrl was given). */
  processor?: { url: string; port: number; close(): Promise<void> };
  options: ServiceOptions;
  close(): Promise<void>;
}

type Op = 'payment_create' | 'hosted_create' | 'refund_create';
type Json = Record<string, unknown>;

const PAYMENTS = '/v1/payments';
const PAYMENT_PREFIX = '/v1/payments/';
const REFUND_SUFFIX = '/refund';
const IDEM_SWEEP_MS = 10 * 60_000;

export async function startReferenceService(partial: Partial<ServiceOptions> = {}): Promise<RunningService> {
  const options = resolveOptions(partial);
  const bugs = bugFlags(options.bugs);
  let processor: RunningProcessor | undefined;
  let upstreamUrl = options.upstreamUrl;
  if (!upstreamUrl) {
    processor = await startProcessor({ host: options.host, port: options.upstreamPort, timeScale: options.timeScale, cards: options.cards });
    upstreamUrl = processor.url;
  }
  const service = new ReferenceService(options, bugs, upstreamUrl.replace(/\/+$/, ''));
  try {
    const port = await service.listen();
    return {
      url: `http://${options.host}:${port}`,
      port,
      upstreamUrl,
      processor,
      options,
      close: async () => {
        await service.close();
        await processor?.close();
      },
    };
  } catch (err) {
    await service.close();
    await processor?.close();
    throw err;
  }
}

class ReferenceService {
  private readonly server: Server;
  private readonly scheduler = new Scheduler();
  private readonly keys: KeyRing;
  private readonly limiter: RateLimiter;
  private readonly idem: IdempotencyStore;
  private readonly store: PaymentStore;
  private readonly presenter: Presenter;
  private readonly errors: ErrorWriter;
  private readonly upstream: UpstreamClient;
  private readonly webhooks: WebhookDispatcher;
  private readonly lifecycle: Lifecycle;
  private readonly pages: SandboxPages;
  /** Validation choices of the conforming variants (lenient types, own input shape, return_url at 3DS). */
  private readonly validation: ValidateOptions;
  private readonly delays: Delays;
  private readonly clock: ServiceClock;
  /** performance.now() at construction: the slow-leak option's delay grows from here. */
  private readonly startedAt = performance.now();
  /** Seeded idem-ghost-duplicate bug only: the first request's pending answer per idempotency entry. */
  private readonly ghostFirsts = new Map<string, Promise<ApiResult>>();
  /** Seeded rl-per-worker-counter bug only: the worker each connection is served by. */
  private readonly workers = new WeakMap<object, number>();
  private nextWorker = 0;
  /** pay-valid-create-refused: valid creates seen, to refuse every fifth. */
  private validCreates = 0;

  constructor(
    private readonly options: ServiceOptions,
    private readonly bugs: BugFlags,
    upstreamUrl: string,
  ) {
    this.delays = scaledDelays(options.timeScale);
    this.clock = serviceClock(options.clockOffsetMs);
    if (options.challengeExpiryMs !== null && options.challengeExpiryMs !== undefined) this.delays.challengeExpiryMs = Math.max(1, options.challengeExpiryMs);
    if (options.webhookRetryBaseMs !== null && options.webhookRetryBaseMs !== undefined) this.delays.webhookRetryBaseMs = Math.max(1, options.webhookRetryBaseMs);
    this.keys = new KeyRing(options.keys, bugs['auth-accepts-basic']);
    this.limiter = new RateLimiter(options.rateLimit, options.windowMs, bugs);
    this.idem = new IdempotencyStore(bugs);
    this.store = new PaymentStore(bugs, this.clock);
    this.presenter = new Presenter(options.presentation, bugs);
    this.errors = new ErrorWriter(bugs);
    // sm-processor-unreachable: a deployment pointed at a dead processor address (loopback port 9, nothing listens).
    this.upstream = new UpstreamClient(bugs['sm-processor-unreachable'] ? 'http://127.0.0.1:9' : upstreamUrl, this.delays.upstreamTimeoutMs);
    this.webhooks = new WebhookDispatcher(options.webhookUrls, options.webhookSecret, options.webhookTimeoutMs, this.delays, this.scheduler, bugs, this.clock);
    this.lifecycle = new Lifecycle(this.store, this.presenter, this.webhooks, this.upstream, this.scheduler, this.delays, bugs, options.cards, this.clock);
    this.lifecycle.returnUrlAtChallenge = options.returnUrlAt3ds;
    this.lifecycle.refundEventMinimal = options.refundEvent === 'minimal';
    this.webhooks.duplicates = options.webhookDuplicates;
    this.validation = validationOptions(options);
    this.pages = new SandboxPages(this.store, this.lifecycle, bugs);
    this.server = createServer((req, res) => this.onRequest(req, res));
    this.server.keepAliveTimeout = 30_000;
    const sweep = () => {
      this.idem.sweep();
      this.scheduler.after(IDEM_SWEEP_MS, sweep);
    };
    this.scheduler.after(IDEM_SWEEP_MS, sweep);
  }

  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        const port = (this.server.address() as AddressInfo).port;
        this.lifecycle.baseUrl = `http://${this.options.host}:${port}`;
        resolve(port);
      });
    });
  }

  async close(): Promise<void> {
    this.scheduler.close();
    await new Promise<void>((done) => {
      if (!this.server.listening) return done();
      this.server.close(() => done());
      this.server.closeAllConnections();
    });
    await this.webhooks.close();
    await this.upstream.close();
  }

  // ------------------------------------------------------------ routing

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    // Node writes Date from the machine's clock; a service clock set apart writes its own.
    if (this.clock.offsetMs !== 0) res.setHeader('date', this.clock.httpDate());
    const url = req.url ?? '/';
    const qi = url.indexOf('?');
    const path = qi < 0 ? url : url.slice(0, qi);
    const qs = qi < 0 ? '' : url.slice(qi + 1);
    if (path.startsWith('/v1/')) {
      this.api(req, res, path, qs).catch((err) => this.crash(res, err));
      return;
    }
    if (path.startsWith('/sandbox/')) {
      this.pages.handle(req, res, path, qs).catch((err) => this.crash(res, err));
      return;
    }
    if (path === '/health' && req.method === 'GET') return send(res, 200, '{"ok":true}', JSON_TYPE);
    const rid = nextRequestId();
    this.write(res, this.errors.make(rid, 'resource_missing', `Unrecognized request URL (${req.method} ${path}).`), { 'request-id': rid });
  }

  private crash(res: ServerResponse, err: unknown): void {
    process.stderr.write(`reference service: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    if (res.headersSent) return void res.destroy();
    const rid = nextRequestId();
    this.write(res, this.errors.make(rid, 'internal_error', 'An internal error occurred.'), { 'request-id': rid });
  }

  private write(res: ServerResponse, r: ApiResult, headers: HeaderList): void {
    send(res, r.status, r.body, r.contentType, headers);
  }

  private async api(req: IncomingMessage, res: ServerResponse, path: string, qs: string): Promise<void> {
    const rid = nextRequestId();
    const auth = this.keys.authenticate(req.headers.authorization);
    if (!auth.ok) {
      const h: HeaderList = { 'request-id': rid };
      if (this.bugs['auth-ratelimit-headers-on-401']) {
        h['x-ratelimit-limit'] = this.options.rateLimit;
        h['x-ratelimit-remaining'] = this.options.rateLimit;
        h['x-ratelimit-reset'] = Math.ceil((this.clock.now() + this.options.windowMs) / 1000);
      }
      return this.write(res, this.authFailure(rid, auth.reason, auth.presented), h);
    }
    const key = auth.key;
    let counterKey = this.bugs['rl-shared-merchant-counter'] ? key.merchant : key.key;
    // rl-per-worker-counter: in-memory counters per worker of a (simulated) cluster, one worker per connection in turn.
    if (this.bugs['rl-per-worker-counter']) counterKey += `\u0000worker${this.workerOf(req)}`;
    const rate = this.limiter.take(counterKey, this.clock.now());
    const rh: HeaderList = { 'x-ratelimit-limit': rate.limit, 'x-ratelimit-remaining': rate.remaining, 'x-ratelimit-reset': rate.reset, 'request-id': rid };
    if (!rate.allowed) {
      if (!this.bugs['rl-no-retry-after']) rh['retry-after'] = this.bugs['rl-retry-after-zero'] ? 0 : rate.retryAfter;
      return this.write(res, this.errors.make(rid, 'rate_limit_exceeded', `Too many requests: the limit is ${rate.limit} per window for this API key.`), rh);
    }
    try {
      await this.route(req, res, key, path, qs, rid, rh);
    } catch (err) {
      process.stderr.write(`reference service: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
      if (res.headersSent) return void res.destroy();
      this.respond(res, this.errors.make(rid, 'internal_error', 'An internal error occurred.'), rh);
    }
  }

  /** The answer to a failed authentication: 401 invalid_api_key, unless a seeded AUTH/FT-5 bug answers otherwise. */
  private authFailure(rid: string, reason: 'malformed' | 'badPrefix' | 'unknown', presented?: string): ApiResult {
    // ft-auth-503-during-outage: the "validation backend unreachable" path follows the processor's health.
    if (this.bugs['ft-auth-503-during-outage'] && this.lifecycle.backlog > 0) {
      return this.errors.make(rid, 'service_unavailable', 'Authentication is temporarily unavailable; retry later.');
    }
    if (reason === 'badPrefix' && this.bugs['auth-bad-prefix-400']) return this.errors.make(rid, 'parameter_invalid', 'Invalid API key format in the Authorization header.', 'Authorization');
    if (reason === 'unknown' && this.bugs['auth-unknown-key-403']) return this.errors.make(rid, 'not_permitted', 'This API key is not permitted to perform this request.');
    return this.errors.unauthorized(rid, reason, presented);
  }

  /** rl-per-worker-counter only: the worker of a four-worker cluster that serves this connection (round robin by connection). */
  private workerOf(req: IncomingMessage): number {
    let w = this.workers.get(req.socket);
    if (w === undefined) this.workers.set(req.socket, (w = this.nextWorker++ % 4));
    return w;
  }

  private async route(req: IncomingMessage, res: ServerResponse, key: ApiKey, path: string, qs: string, rid: string, rh: HeaderList): Promise<void> {
    const method = req.method;
    if (method === 'GET') {
      if (path === PAYMENTS) return this.respond(res, this.list(key, qs, rid), rh);
      if (path.startsWith(PAYMENT_PREFIX) && path.indexOf('/', PAYMENT_PREFIX.length) < 0) return this.retrieve(res, key, path.slice(PAYMENT_PREFIX.length), rid, rh);
    } else if (method === 'POST') {
      if (path === PAYMENTS) return this.post(req, res, key, rid, rh, 'payment_create');
      if (path === '/v1/payments/hpp') return this.post(req, res, key, rid, rh, 'hosted_create');
      // A refund path the service does not serve (options.refundPaths) falls through to 404 / 405.
      const refundPaths = this.options.refundPaths;
      if (path === '/v1/refunds' && refundPaths !== 'payment') return this.post(req, res, key, rid, rh, 'refund_create');
      if (path.startsWith(PAYMENT_PREFIX) && path.endsWith(REFUND_SUFFIX)) {
        const id = path.slice(PAYMENT_PREFIX.length, path.length - REFUND_SUFFIX.length);
        if (id && !id.includes('/') && refundPaths === 'refunds') {
          return this.respond(res, { ...this.errors.make(rid, 'resource_missing', `Method not allowed (${method} ${path}).`), status: 405 }, rh);
        }
        if (id && !id.includes('/')) return this.post(req, res, key, rid, rh, 'refund_create', safeDecode(id));
      }
    }
    this.respond(res, this.errors.make(rid, 'resource_missing', `Unrecognized request URL (${method} ${path}).`), rh);
  }

  /** Writes an API result with the rate headers (which the RL-4 bug drops from 4xx). */
  private respond(res: ServerResponse, r: ApiResult, rh: HeaderList, extra?: HeaderList): void {
    let h = rh;
    if (this.bugs['rl-headers-missing-on-4xx'] && r.status >= 400 && r.status < 500) h = { 'request-id': rh['request-id'] };
    send(res, r.status, r.body, r.contentType, extra ? { ...h, ...extra } : h);
  }

  private visible(key: ApiKey, p: PaymentRecord | undefined): p is PaymentRecord {
    if (!p) return false;
    if (this.bugs['sec-cross-merchant-read']) return p.mode === key.mode;
    if (this.bugs['auth-live-sees-test']) return p.merchant === key.merchant;
    return p.partition === key.partition;
  }

  // ------------------------------------------------------------ GET

  private retrieve(res: ServerResponse, key: ApiKey, rawId: string, rid: string, rh: HeaderList): void {
    const id = safeDecode(rawId);
    const p = this.store.get(id);
    // Seeded PAY-17 bug: an id nothing has is treated as an invalid parameter.
    if (!p && this.bugs['pay-unknown-id-400']) return this.respond(res, this.errors.make(rid, 'parameter_invalid', `Invalid id: '${id}' is not a payment id.`, 'id'), rh);
    if (!this.visible(key, p)) return this.respond(res, this.errors.make(rid, 'resource_missing', `No such payment: '${id}'.`, 'id'), rh);
    const body = this.presenter.paymentJson(p);
    rh['content-type'] = JSON_TYPE;
    rh['content-length'] = Buffer.byteLength(body);
    res.writeHead(200, rh);
    res.end(body);
  }

  private list(key: ApiKey, qs: string, rid: string): ApiResult {
    const q = parseQuery(qs);
    const bad = (param: string, message: string) => this.errors.make(rid, 'parameter_invalid', message, param);
    const sizes = LIST_PARAMS.limit;
    let limit: number = sizes.default;
    if (q.has('limit')) {
      const s = q.get('limit')!;
      if (!/^-?\d+$/.test(s)) return bad('limit', `Invalid limit: expected an integer from ${sizes.min} to ${sizes.max}.`);
      limit = Number(s);
      if (limit < sizes.min || limit > sizes.max) {
        if (!this.bugs['list-limit-unchecked']) return bad('limit', `Invalid limit: expected an integer from ${sizes.min} to ${sizes.max}.`);
        limit = Math.min(sizes.max, Math.max(sizes.min, limit));
      }
    }
    let status: PaymentStatus | undefined;
    if (q.has('status')) {
      const s = q.get('status')!;
      const allowed = LIST_PARAMS.status.values;
      if (!(allowed as readonly string[]).includes(s)) {
        if (!this.bugs['list-unknown-status-ignored']) return bad('status', `Invalid status: expected one of ${allowed.join(', ')}.`);
      } else status = s as PaymentStatus;
    }
    const bounds: Record<Extract<keyof typeof LIST_PARAMS, `created[${string}]`>, number | undefined> = { 'created[gte]': undefined, 'created[lt]': undefined };
    for (const name of Object.keys(bounds) as (keyof typeof bounds)[]) {
      if (!q.has(name)) continue;
      const s = q.get(name)!;
      if (!/^-?\d+$/.test(s)) return bad(name, `Invalid ${name}: expected Unix seconds.`);
      bounds[name] = Number(s);
    }
    let cursor: PaymentRecord | undefined;
    if (q.has('starting_after')) {
      const id = q.get('starting_after')!;
      const p = this.store.get(id);
      const sameScope = p && (this.bugs['list-leaks-live'] ? p.merchant === key.merchant : p.partition === key.partition);
      if (sameScope) cursor = p;
      else if (!this.bugs['list-unknown-cursor-ok']) return bad('starting_after', `Invalid starting_after: no payment '${id}' exists for this API key.`);
    }
    // short-list-pages variant: a page holds at most half of limit (at least 1); has_more still says whether more match.
    const pageSize = this.options.shortListPages ? Math.max(1, Math.floor(limit / 2)) : limit;
    const page = this.store.list(key.merchant, key.mode, { limit: pageSize, cursor, status, createdGte: bounds['created[gte]'], createdLt: bounds['created[lt]'] });
    let body = '{"object":"list","data":[';
    for (let i = 0; i < page.data.length; i++) body += (i ? ',' : '') + this.presenter.paymentJson(page.data[i]);
    body += `],"has_more":${page.hasMore},"url":"${this.bugs['list-url-doubled-prefix'] ? `/v1${PAYMENTS}` : PAYMENTS}"}`;
    return { status: 200, body, contentType: JSON_TYPE };
  }

  // ------------------------------------------------------------ POST

  private async post(req: IncomingMessage, res: ServerResponse, key: ApiKey, rid: string, rh: HeaderList, op: Op, pathPaymentId?: string): Promise<void> {
    if (op === 'payment_create' && !key.directApi) {
      return this.respond(res, this.errors.make(rid, 'not_permitted', 'This API key is not permitted to use the Direct API (POST /v1/payments).'), rh);
    }
    const header = req.headers['idempotency-key'];
    const idemKey = Array.isArray(header) ? header[0] : header;
    if (!idemKey && !this.bugs['idem-missing-key-accepted']) {
      return this.respond(res, this.errors.make(rid, 'parameter_missing', 'Missing required header: Idempotency-Key.', 'Idempotency-Key'), rh);
    }
    if (idemKey && idemKey.length > LIMITS.idempotencyKeyMaxLength && !this.bugs['idem-no-length-limit']) {
      return this.respond(res, this.errors.make(rid, 'parameter_invalid', `Invalid Idempotency-Key: at most ${LIMITS.idempotencyKeyMaxLength} characters.`, 'Idempotency-Key'), rh);
    }
    const buf = await readBody(req);
    if (buf === null) return this.respond(res, this.errors.make(rid, 'invalid_request_body', 'The request body is too large.'), rh);
    const text = buf.toString('utf8');
    let body: Json;
    if (text.trim() === '' && op === 'refund_create') body = {};
    else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        if (this.bugs['pay-bad-json-parameter-invalid']) return this.respond(res, this.errors.make(rid, 'parameter_invalid', 'Invalid request: the body could not be read.'), rh);
        return this.respond(res, this.errors.make(rid, 'invalid_request_body', 'The request body is not valid JSON.'), rh);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return this.respond(res, this.errors.make(rid, 'invalid_request_body', 'The request body must be a JSON object.'), rh);
      }
      body = parsed as Json;
    }
    const exec = () => this.execute(op, key, body, rid, pathPaymentId);
    if (!idemKey) return this.respond(res, await exec(), rh);

    // Both refund paths are one operation: the fingerprint is the refund request itself.
    const fingerprint = op === 'refund_create' ? canonicalJson({ payment_id: pathPaymentId ?? body.payment_id, amount: body.amount }) : canonicalJson(body);
    let scope: string = op;
    if (this.bugs['idem-shared-operation-scope']) scope = 'post';
    if (op === 'refund_create' && this.bugs['ref-scope-per-path']) scope = pathPaymentId !== undefined ? 'refund_by_path' : 'refund_top_level';
    const storeKey = `${this.bugs['idem-global-scope'] ? '' : key.key}\u0000${scope}\u0000${idemKey}`;
    const verdict = this.idem.begin(storeKey, fingerprint);
    if (verdict.kind === 'replay') {
      // Seeded IDEM-3 bug: a payment create runs again before the cached answer is replayed.
      if (this.bugs['idem-replay-reexecutes'] && op !== 'refund_create') await exec();
      return this.respond(res, verdict, rh, { 'idempotent-replayed': 'true' });
    }
    if (verdict.kind === 'different_body') {
      return this.respond(res, this.errors.make(rid, this.options.differentBodyCode, 'This Idempotency-Key was already used with a different request body.', 'Idempotency-Key'), rh);
    }
    if (verdict.kind === 'in_flight') {
      const first = this.bugs['idem-ghost-duplicate'] ? this.ghostFirsts.get(storeKey) : undefined;
      if (first) {
        // Seeded IDEM-6 bug: create anyway, but answer with the first request's response.
        await exec();
        return this.respond(res, await first, rh, { 'idempotent-replayed': 'true' });
      }
      if (this.bugs['idem-in-flight-reused-code']) return this.respond(res, this.errors.make(rid, 'idempotency_key_reused', 'This Idempotency-Key was already used.', 'Idempotency-Key'), rh);
      return this.respond(res, this.errors.make(rid, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still in flight; retry later.', 'Idempotency-Key'), rh);
    }
    let result: ApiResult;
    try {
      const running = exec();
      if (this.bugs['idem-ghost-duplicate']) this.ghostFirsts.set(storeKey, Promise.resolve(running));
      result = await running;
    } catch (err) {
      this.idem.release(storeKey);
      throw err;
    } finally {
      if (this.bugs['idem-ghost-duplicate']) setTimeout(() => this.ghostFirsts.delete(storeKey), 1000).unref();
    }
    this.idem.finish(storeKey, fingerprint, result.status, result.body, result.contentType);
    this.respond(res, result, rh);
  }

  private execute(op: Op, key: ApiKey, body: Json, rid: string, pathPaymentId?: string): Promise<ApiResult> | ApiResult {
    if (op === 'payment_create') return this.create(key, body, rid);
    if (op === 'hosted_create') return this.createHosted(key, body, rid);
    return this.refund(key, body, rid, pathPaymentId);
  }

  private newPayment(key: ApiKey, input: ParsedCreate, hosted: boolean): PaymentRecord {
    const createdMs = this.store.nextCreatedMs();
    const uuid = randomUUID();
    return {
      // pay-id-not-uuid: B ids in A's form (hyphens stripped).
      id: this.options.presentation === 'B' && !this.bugs['pay-id-not-uuid'] ? `pay_${uuid}` : `pay_${uuid.replace(/-/g, '')}`,
      seq: this.store.nextSeq(),
      merchant: key.merchant,
      mode: key.mode,
      partition: key.partition,
      hosted,
      // processing-status-a variant: an outcome not yet known is PROCESSING (B shows it as pending).
      status: hosted ? 'pending' : (this.options.unknownOutcomeStatus ?? 'pending'),
      amount: input.amount,
      currency: input.currency,
      created: Math.floor(createdMs / 1000),
      createdMs,
      description: input.description,
      metadata: input.metadata,
      merchantReference: input.merchantReference,
      returnUrl: input.returnUrl,
      customer: input.customer,
      card: null,
      cardSecret: null,
      nextAction: null,
      hostedPageUrl: null,
      failureCode: null,
      declineMessage: null,
      providerReference: null,
      succeededAt: null,
      failedAt: null,
      refundedAt: null,
      refunds: [],
      refundedAmount: 0,
      reservedAmount: 0,
      listIndex: -1,
      version: 0,
      cachedJson: null,
      cachedVersion: -1,
      processorErrors: 0,
      upstreamAttempts: 0,
      firstAttemptMs: 0,
      waitingOnUpstream: false,
      threeDsPassed: false,
      cancelExpiry: null,
      deleted: false,
    };
  }

  /** Seeded PAY-1 bug: the currency cache is reloaded, and read empty, on every fifth valid create. */
  private currencyTableEmpty(): boolean {
    return this.bugs['pay-valid-create-refused'] && ++this.validCreates % 5 === 0;
  }

  private cardDeclined(rid: string, declineCode: string, message: string): ApiResult {
    return this.errors.make(rid, 'card_declined', message, 'card', declineCode);
  }

  private async create(key: ApiKey, body: Json, rid: string): Promise<ApiResult> {
    const slowMs = (this.options.slowCreateMs ?? 0) + ((this.options.slowCreateGrowthMsPerMin ?? 0) * (performance.now() - this.startedAt)) / 60_000;
    if (slowMs > 0) await new Promise((r) => setTimeout(r, slowMs));
    const v = validateDirectCreate(body, this.bugs, this.options.cards, this.validation);
    if (!v.ok) return this.errors.make(rid, 'parameter_invalid', v.message, v.param);
    if (this.currencyTableEmpty()) return this.errors.make(rid, 'parameter_invalid', 'Invalid currency: expected an ISO 4217 code.', 'currency');
    const input = v.value;
    const card = input.card!;
    const testOutcome = this.lifecycle.testOutcomeOf(card.number);
    if (key.mode === 'live' && testOutcome && !this.bugs['auth-live-accepts-test-card']) {
      return this.cardDeclined(rid, 'generic_decline', 'Your card was declined: a live API key cannot be used with a test card.');
    }
    if (!luhnValid(card.number)) return this.cardDeclined(rid, 'invalid_number', 'Your card was declined: the card number is invalid.');
    if (isExpired(card)) return this.cardDeclined(rid, 'expired_card', 'Your card was declined: the card has expired.');
    if (this.bugs['test-decline-422'] && (testOutcome === 'do_not_honor' || testOutcome === 'insufficient_funds')) {
      return this.cardDeclined(rid, testOutcome, 'Your card was declined.');
    }
    if ((this.bugs['idem-dedupes-merchant-reference'] || this.bugs['idem-refuses-reused-merchant-reference']) && input.merchantReference !== null) {
      const earlier = this.store.byMerchantReference(key.partition, input.merchantReference);
      if (earlier && !earlier.deleted) {
        if (this.bugs['idem-refuses-reused-merchant-reference']) return this.errors.make(rid, 'action_not_allowed', `A payment with merchant_reference ${input.merchantReference} already exists.`);
        return { status: 201, body: this.presenter.paymentJson(earlier), contentType: JSON_TYPE };
      }
    }
    if (this.lifecycle.backlog >= this.options.upstreamBacklogLimit) {
      return this.errors.make(rid, 'service_unavailable', 'The payment processor is temporarily unavailable; retry with the same Idempotency-Key.');
    }
    const p = this.newPayment(key, input, false);
    p.card = maskCard(card);
    p.cardSecret = card;
    this.store.add(p);
    this.lifecycle.emitCreatedPending(p);
    const first = this.lifecycle.callAuthorization(p, false);
    // sync-create-outcome variants: wait long enough for the 3DS challenge to be known, with room for a busy host (bounded).
    const sync = this.options.syncCreateOutcome;
    const budgetMs = sync ? 2 * this.delays.challengeAppearMs + this.delays.createWaitMs : this.delays.createWaitMs;
    const early = await withBudget(first, budgetMs, this.scheduler);
    // Seeded PAY-7 bug: a decline known within the wait is answered as an HTTP error (402), the payment discarded.
    if (early && this.bugs['pay-decline-402'] && early.kind === 'ok' && early.body.outcome === 'declined') {
      this.store.drop(p);
      return { ...this.cardDeclined(rid, String(early.body.decline_code ?? 'generic_decline'), 'Your card was declined.'), status: 402 };
    }
    // Seeded FT-4 bug: a first processor call that failed escapes the handler as an exception (500), the payment discarded.
    if (early && this.bugs['ft-500-on-upstream-error'] && early.kind === 'unreachable') {
      this.store.drop(p);
      return this.errors.make(rid, 'internal_error', 'An internal error occurred.');
    }
    // Seeded FT-3 bug: the first processor call failed, so the client is told 503, yet the stored payment is kept and retried.
    if (early?.kind === 'unreachable' && this.bugs['ft-503-after-store']) {
      this.lifecycle.applyAuthorization(p, early, false);
      return this.errors.make(rid, 'service_unavailable', 'The payment processor is temporarily unavailable; retry with the same Idempotency-Key.');
    }
    // Presentation A may answer the outcome; B answers pending unless 3DS is already known.
    // return-url-at-3ds: a challenge without return_url fails the payment, which B's create response may not show.
    const failsAtChallenge = this.options.returnUrlAt3ds && p.returnUrl === null;
    const applyNow = sync
      ? // Only a known outcome other than a decline: test-mode decline cards answer pending, then fail.
        early !== undefined && ((isChallenge(early) && !failsAtChallenge) || (this.options.presentation === 'A' && isApproved(early)))
      : early !== undefined && (this.options.presentation === 'A' || (isChallenge(early) && !failsAtChallenge));
    if (applyNow && early) this.lifecycle.applyAuthorization(p, early, false);
    // Seeded PAY-6 bug: presentation B also answers an approval known within the wait (succeeded).
    if (!applyNow && early && this.bugs['pay-create-answers-outcome'] && early.kind === 'ok' && early.body.outcome === 'approved') this.lifecycle.applyAuthorization(p, early, false);
    const json = this.createAnswer(p);
    if (!applyNow) void first.then((r) => this.lifecycle.applyAuthorization(p, r, false));
    return { status: 201, body: json, contentType: JSON_TYPE };
  }

  /** A create's answer: the payment as GET returns it (the seeded AUTH-5 bug says livemode false there). */
  private createAnswer(p: PaymentRecord): string {
    const json = this.presenter.paymentJson(p);
    return this.bugs['auth-create-livemode-false'] ? json.replace('"livemode":true', '"livemode":false') : json;
  }

  private createHosted(key: ApiKey, body: Json, rid: string): ApiResult {
    const v = validateHostedCreate(body, this.bugs, this.validation);
    if (!v.ok) return this.errors.make(rid, 'parameter_invalid', v.message, v.param);
    if (this.currencyTableEmpty()) return this.errors.make(rid, 'parameter_invalid', 'Invalid currency: expected an ISO 4217 code.', 'currency');
    const p = this.newPayment(key, v.value, true);
    this.lifecycle.openHostedPage(p);
    this.store.add(p);
    return { status: 201, body: this.createAnswer(p), contentType: JSON_TYPE };
  }

  private async refund(key: ApiKey, body: Json, rid: string, pathPaymentId?: string): Promise<ApiResult> {
    let paymentId = pathPaymentId;
    if (paymentId === undefined) {
      if (body.payment_id === undefined || body.payment_id === null) return this.errors.make(rid, 'parameter_invalid', 'Missing required parameter: payment_id.', 'payment_id');
      if (typeof body.payment_id !== 'string') return this.errors.make(rid, 'parameter_invalid', 'Invalid payment_id: expected a payment id string.', 'payment_id');
      paymentId = body.payment_id;
    }
    let amount = body.amount;
    // Seeded REF-4 bug: `amount || remaining` with a lenient parse: 0, a string or a fraction refunds what is left.
    if (this.bugs['ref-accepts-bad-amount'] && amount !== undefined && !(Number.isSafeInteger(amount) && (amount as number) >= 1)) amount = undefined;
    if (amount !== undefined && amount !== null && (!Number.isSafeInteger(amount) || (amount as number) < 1)) {
      return this.errors.make(rid, 'parameter_invalid', 'Invalid amount: expected an integer of at least 1 (minor units).', 'amount');
    }
    const p = this.store.get(paymentId);
    // Seeded SEC-1 bug: looked up by mode only; the merchant is asserted only after the refund was handled (as if the owner had asked).
    if (this.bugs['sec-cross-merchant-refund-500'] && p && p.mode === key.mode && p.merchant !== key.merchant) {
      await this.refund({ ...key, merchant: p.merchant, partition: p.partition }, body, rid, pathPaymentId);
      return this.errors.make(rid, 'internal_error', 'An internal error occurred.');
    }
    if (!this.visible(key, p)) return this.errors.make(rid, 'resource_missing', `No such payment: '${paymentId}'.`, pathPaymentId !== undefined ? 'id' : 'payment_id');
    if (p.status !== 'succeeded' && !this.bugs['ref-allows-unsucceeded']) {
      return this.errors.make(rid, 'action_not_allowed', `Refund validation failed [payment_not_succeeded]: the payment is ${p.status}; only succeeded payments can be refunded.`);
    }
    const remaining = p.amount - p.reservedAmount;
    const wanted = (amount as number | undefined) ?? remaining;
    if (wanted > remaining || wanted < 1) {
      const message =
        remaining <= 0
          ? 'Refund validation failed [already_refunded]: the payment has no refundable amount left.'
          : `Refund validation failed [amount_exceeds_refundable]: ${wanted} exceeds the refundable amount ${remaining}.`;
      if (this.bugs['ref-wrong-code']) return this.errors.make(rid, 'parameter_invalid', message, 'amount');
      return this.errors.make(rid, 'action_not_allowed', message, 'amount');
    }
    const r: RefundRecord = { id: `re_${randomUUID().replace(/-/g, '')}`, paymentId: p.id, amount: wanted, status: 'pending', created: this.clock.seconds(), attempts: 0, firstAttemptMs: 0 };
    if (this.bugs['ref-no-lock']) {
      // Seeded REF-3 bug: submit first, record after, with nothing held in between.
      const res = await this.lifecycle.callRefund(p, r);
      this.attachRefund(p, r);
      void Promise.resolve().then(() => this.lifecycle.applyRefund(p, r, res as UpstreamResult));
      return { status: 201, body: this.refundAnswer(p, r), contentType: JSON_TYPE };
    }
    this.attachRefund(p, r);
    const json = this.refundAnswer(p, r);
    if (!this.bugs['ref-stuck-pending']) this.lifecycle.startRefund(p, r);
    return { status: 201, body: json, contentType: JSON_TYPE };
  }

  /** The refund call's body (not shown by the spec): a Refund, the Payment, or a minimal object (options.refundResponse). */
  private refundAnswer(p: PaymentRecord, r: RefundRecord): string {
    if (this.options.refundResponse === 'payment') return this.presenter.paymentJson(p);
    if (this.options.refundResponse === 'minimal') return JSON.stringify({ id: r.id, status: r.status, payment_id: p.id });
    return JSON.stringify(this.presenter.refund(r));
  }

  private attachRefund(p: PaymentRecord, r: RefundRecord): void {
    p.refunds.push(r);
    p.reservedAmount += r.amount;
    touch(p);
  }
}

function isChallenge(r: UpstreamResult): boolean {
  return r.kind === 'ok' && r.body.outcome === 'challenge';
}

function isApproved(r: UpstreamResult): boolean {
  return r.kind === 'ok' && r.body.outcome === 'approved';
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
