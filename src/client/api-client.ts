/**
 * The API as scenarios call it (ApiClient of src/spec/scenario.ts), over undici: one client
 * per key, sending with the spec's retry policy. Every exchange, retries included, becomes one
 * history record (recording.ts); what a call sends is built in request.ts, polling is in
 * polling.ts, the factory that holds the secrets in factory.ts. Records carry the key's label,
 * card numbers only as last four / outcome / brand.
 */
import { randomBytes } from 'node:crypto';
import { API_PATHS, LIMITS, directCreateBody, hostedCreateBody, type ApiClient, type CallOptions, type CanonicalPayment, type CreateOptions, type ExchangeResult, type KeyHandle, type ListParams, type PaymentInput, type Presentation, type RawRequest, type RetrieveOptions, type ThreeDsResult } from '../spec/index.ts';
import { type ExchangeRecord } from '../history/index.ts';
import type { ExchangeMeta } from '../history/exchange-record.ts';
import { RunStoppedError, type RequestGate } from './gate.ts';
import { pollUntilSettled, type PollContext, type PollOptions } from './polling.ts';
import { Result, type Recorder } from './recording.ts';
import { complete3dsRequest, createRequest, digest, listRequest, rawRequest, refundRequest, retrieveRequest, submitHostedRequest, type RequestTarget, type SendSpec } from './request.ts';
import { isRetryable, retryBackoffMs } from './retry.ts';
import { abortableSleep, roundUs } from './timing.ts';
import type { FailureKind, HttpTransport, RawResponse } from './transport.ts';
import { WIRE_HEADERS } from './wire.ts';

/** What a client needs of its factory (factory.ts): the run's settings, transport, and where results are recorded. */
export interface ClientContext extends Recorder, RequestTarget, PollContext {
  readonly presentation: Presentation;
  readonly scenario: string;
  readonly timeoutMs: number;
  readonly gate: RequestGate | undefined;
  readonly transport: HttpTransport;
  /** Remembers a card number the run sends (leak scanning). */
  addCard(number: string): void;
  /** Teaches the leak scanners a probe's throwaway key; returns it. */
  probeKey(secret: string, label: string): string;
  newIdempotencyKey(): string;
  /** The intended start an open-model executor announced for this iteration, once. */
  takeIntended(): number | undefined;
  /** Queues an answered exchange for recording. */
  defer(result: Result): void;
}

export class UndiciApiClient implements ApiClient {
  readonly #auth: string;
  readonly #getHeaders: string[];
  readonly #postHeaders: string[];

  constructor(
    private readonly f: ClientContext,
    readonly key: KeyHandle,
    secret: string,
  ) {
    this.#auth = `Bearer ${secret}`;
    // Built once per client: User-Agent and Accept-Encoding: identity (wire.ts) on every call.
    this.#getHeaders = ['authorization', this.#auth, 'accept', 'application/json', ...WIRE_HEADERS];
    this.#postHeaders = ['authorization', this.#auth, 'accept', 'application/json', 'content-type', 'application/json', ...WIRE_HEADERS];
  }

  private postHeaders(): string[] {
    return this.#postHeaders;
  }

  create(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult> {
    const shape = opts?.shape ?? this.f.presentation;
    const bodyObj = directCreateBody(input, shape);
    if (input.card) this.f.addCard(input.card.number);
    return this.send(createRequest(this.f, 'create', API_PATHS.payments, bodyObj, input, shape, opts?.cardOutcome, this.postHeaders()), opts);
  }

  createHosted(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult> {
    const bodyObj = hostedCreateBody(input);
    if (input.card) this.f.addCard(input.card.number);
    return this.send(createRequest(this.f, 'create_hpp', API_PATHS.hosted, bodyObj, input, 'A', opts?.cardOutcome, this.postHeaders()), opts);
  }

  retrieve(paymentId: string, opts?: RetrieveOptions): Promise<ExchangeResult> {
    return this.send(retrieveRequest(this.f, paymentId, this.#getHeaders, opts?.unknownId === true), opts);
  }

  list(params: ListParams = {}, opts?: CallOptions): Promise<ExchangeResult> {
    return this.send(listRequest(this.f, params, this.#getHeaders), opts);
  }

  refund(paymentId: string, body: { amount?: number }, opts?: CallOptions & { path?: 'payment' | 'refunds' }): Promise<ExchangeResult> {
    return this.send(refundRequest(this.f, paymentId, body, opts?.path === 'refunds', this.postHeaders()), opts);
  }

  complete3ds(redirectUrl: string, result: ThreeDsResult, opts?: CallOptions): Promise<ExchangeResult> {
    return this.send(complete3dsRequest(this.f, redirectUrl, result, opts?.paymentId), opts);
  }

  submitHosted(redirectUrl: string, card: NonNullable<PaymentInput['card']>, opts?: CreateOptions): Promise<ExchangeResult> {
    const spec = submitHostedRequest(this.f, redirectUrl, card, opts?.cardOutcome, opts?.paymentId);
    this.f.addCard(card.number);
    return this.send(spec, opts);
  }

  raw(req: RawRequest, opts?: CallOptions & { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] }): Promise<ExchangeResult> {
    return this.send(
      rawRequest(this.f, req, (auth) => this.authVariant(auth), opts),
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

  pollUntilSettled(paymentId: string, opts: PollOptions = {}): Promise<CanonicalPayment | null> {
    return pollUntilSettled((id, o) => this.retrieve(id, o), this.f, paymentId, opts);
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
    let tIntended = opts?.tIntended ?? f.takeIntended();
    if (tIntended !== undefined && opts?.pacedMs !== undefined && opts.pacedMs > 0) tIntended += opts.pacedMs;
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
