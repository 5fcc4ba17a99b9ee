/**
 * Helpers every scenario shares: paced API calls, polling that honours the spec's
 * guidance, test inputs from the run's cards, bounded concurrency, abort-aware sleeps.
 */
import { randomUUID } from 'node:crypto';
import type { ApiClient, CallOptions, CreateOptions, ExchangeResult, KeyHandle, ListParams, RawRequest, RetrieveOptions, ScenarioContext } from '../../src/spec/scenario.ts';
import type { CardInput, PaymentInput } from '../../src/spec/inputs.ts';
import type { CardOutcome } from '../../src/spec/cards.ts';
import { cvcLength } from '../../src/spec/cards.ts';
import type { CanonicalPayment } from '../../src/spec/payment.ts';
import { isTerminal } from '../../src/spec/statuses.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import type { ThreeDsResult } from '../../src/spec/sandbox.ts';
import type { ExchangeRecord } from '../../src/history/schema.ts';
import { DEFAULT_SHARE, pacerFor, sleepAbortable, type Pacer } from './pace.ts';
import { refundPathFor, servedRefundPaths, type ServedRefundPaths } from './refund-path.ts';

// ---------------------------------------------------------------- time

export function aborted(ctx: ScenarioContext): boolean {
  return ctx.signal.aborted;
}

/** Sleeps `ms`, returning early (without throwing) when the run is aborted. */
export async function nap(ctx: ScenarioContext, ms: number): Promise<void> {
  if (ms <= 0 || ctx.signal.aborted) return;
  try {
    await sleepAbortable(ms, ctx.signal);
  } catch {
    /* aborted */
  }
}

/** A protocol-scale delay (the spec's seconds) shrunk by the run's time scale, never below `floorMs`. */
export function scaled(ctx: ScenarioContext, ms: number, floorMs = 1): number {
  return Math.max(floorMs, ms * ctx.timeScale);
}

/** How long to wait for a payment to settle (SM-6: "within seconds"). */
export function settleWaitMs(ctx: ScenarioContext): number {
  return scaled(ctx, 30_000, 2_000);
}

/** Wall-clock epoch ms for a run-monotonic instant. */
export function wallAt(ctx: ScenarioContext, tMono: number): number {
  return Date.now() + (tMono - ctx.now());
}

// ---------------------------------------------------------------- ids and inputs

const RUN_NONCE = randomUUID().slice(0, 8);

/** A fresh Idempotency-Key, unique across runs (keys live 24 h on a real deployment). */
export function idemKey(ctx: ScenarioContext, tag: string): string {
  return `ps-${ctx.scenario}-${tag}-${RUN_NONCE}-${randomUUID()}`;
}

const HOLDERS = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Édith Piaf', 'O\u2019Neil Smith-Jones', 'Zhang Wei'];
const CURRENCIES = ['EUR', 'USD', 'GBP'];

export function pick<T>(ctx: ScenarioContext, xs: readonly T[]): T {
  return xs[Math.min(xs.length - 1, Math.floor(ctx.random() * xs.length))];
}
export function randInt(ctx: ScenarioContext, lo: number, hi: number): number {
  return lo + Math.floor(ctx.random() * (hi - lo + 1));
}

/** A test card for an outcome with any future expiry, a CVC of the right length and any holder (TEST-2); null when the cards file lacks it. */
export function cardFor(ctx: ScenarioContext, outcome: CardOutcome): CardInput | null {
  const number = ctx.cards[outcome];
  if (!number) return null;
  const year = new Date().getUTCFullYear();
  let cvc = '';
  for (let i = 0; i < cvcLength(number); i++) cvc += String(randInt(ctx, 0, 9));
  return {
    number,
    exp_month: randInt(ctx, 1, 12),
    exp_year: year + randInt(ctx, 1, 8),
    cvc,
    holder_name: pick(ctx, HOLDERS),
  };
}

export const RETURN_URL = 'https://merchant.example/paystorm/return';

/** A valid create input; `card` null/undefined makes a hosted-page input. */
export function paymentInput(ctx: ScenarioContext, card: CardInput | null | undefined, over: Partial<PaymentInput> = {}): PaymentInput {
  return {
    amount: randInt(ctx, 100, 50_000),
    currency: pick(ctx, CURRENCIES),
    ...(card ? { card } : {}),
    description: `paystorm ${ctx.scenario}`,
    metadata: { scenario: ctx.scenario, order: `o-${randInt(ctx, 1, 1e9)}` },
    returnUrl: RETURN_URL,
    ...over,
  };
}

/** A 10-digit merchant_reference. */
export function merchantReference(ctx: ScenarioContext): number {
  return randInt(ctx, LIMITS.merchantReferenceMin, LIMITS.merchantReferenceMax);
}

/** A syntactically valid payment id that does not exist (both presentations' forms). */
export function unknownPaymentId(): string {
  return `pay_${randomUUID()}`;
}

// ---------------------------------------------------------------- paced client

export interface Api {
  readonly key: KeyHandle;
  readonly client: ApiClient;
  readonly pacer: Pacer;
  create(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult>;
  createHosted(input: PaymentInput, opts?: CreateOptions): Promise<ExchangeResult>;
  retrieve(id: string, opts?: RetrieveOptions): Promise<ExchangeResult>;
  list(params?: ListParams, opts?: CallOptions): Promise<ExchangeResult>;
  /** A refund on a served path: `path` when the target serves it, else the other (scenarios/lib/refund-path.ts). */
  refund(id: string, body: { amount?: number }, opts?: CallOptions & { path?: 'payment' | 'refunds' }): Promise<ExchangeResult>;
  /** The refund paths the target serves (discovered once per run). */
  refundPaths(): Promise<ServedRefundPaths>;
  raw(req: RawRequest, opts?: CallOptions & { sent?: Partial<ExchangeRecord['sent']>; op?: ExchangeRecord['op'] }): Promise<ExchangeResult>;
  /** Sandbox driver calls: not /v1, so not paced. */
  complete3ds(url: string, result: ThreeDsResult, opts?: CallOptions): Promise<ExchangeResult>;
  submitHosted(url: string, card: CardInput, opts?: CreateOptions): Promise<ExchangeResult>;
  /** Books `n` slots at once (for races that must start together). */
  reserve(n: number): Promise<void>;
}

/** An ApiClient whose /v1 calls wait for the key's shared budget first. */
export function api(ctx: ScenarioContext, key: KeyHandle, share = DEFAULT_SHARE): Api {
  const client = ctx.client(key);
  const pacer = pacerFor(ctx, key, share);
  /** Waits for the key's budget; the options say how long, so the wait is not taken for the service's latency. */
  const gate = async <O extends CallOptions>(opts: O | undefined): Promise<O | undefined> => {
    const t0 = performance.now();
    await pacer.acquire(1, ctx.signal);
    const waited = performance.now() - t0;
    return waited >= 1 ? ({ ...opts, pacedMs: (opts?.pacedMs ?? 0) + waited } as O) : opts;
  };
  return {
    key,
    client,
    pacer,
    async create(input, opts) {
      return client.create(input, await gate(opts));
    },
    async createHosted(input, opts) {
      return client.createHosted(input, await gate(opts));
    },
    async retrieve(id, opts) {
      return client.retrieve(id, await gate(opts));
    },
    async list(params, opts) {
      return client.list(params, await gate(opts));
    },
    async refund(id, body, opts) {
      // The first refund of a run waits for the path discovery: paystorm's wait, not the service's latency.
      const t0 = performance.now();
      const served = await servedRefundPaths(ctx, () => paymentInput(ctx, null, { amount: 100 }));
      const discovering = performance.now() - t0;
      const path = refundPathFor(served, opts?.path);
      const held = discovering >= 1 ? ({ ...opts, pacedMs: (opts?.pacedMs ?? 0) + discovering } as typeof opts) : opts;
      return client.refund(id, body, { ...(await gate(held)), path });
    },
    refundPaths: () => servedRefundPaths(ctx, () => paymentInput(ctx, null, { amount: 100 })),
    async raw(req, opts) {
      return client.raw(req, await gate(opts));
    },
    complete3ds: (url, result, opts) => client.complete3ds(url, result, opts),
    submitHosted: (url, card, opts) => client.submitHosted(url, card, opts),
    reserve: (n) => pacer.acquire(n, ctx.signal),
  };
}

/** Unpaced calls for requests already booked with `reserve`. */
export function unpaced(a: Api): ApiClient {
  return a.client;
}

// ---------------------------------------------------------------- polling

/**
 * Polls GET until the payment is terminal (or `until` holds), every 1 to 2 s scaled by the
 * run's time scale (the spec's polling guidance), up to `maxWaitMs`. Returns the last payment seen.
 */
export async function poll(
  ctx: ScenarioContext,
  a: Api,
  id: string,
  opts: { maxWaitMs?: number; until?: (p: CanonicalPayment) => boolean; group?: string; first?: CanonicalPayment | null } = {},
): Promise<CanonicalPayment | null> {
  const until = opts.until ?? ((p: CanonicalPayment) => isTerminal(p.status));
  const deadline = ctx.now() + (opts.maxWaitMs ?? settleWaitMs(ctx));
  let last: CanonicalPayment | null = opts.first ?? null;
  if (last && until(last)) return last;
  const maxPolls = 400;
  for (let i = 0; i < maxPolls && !aborted(ctx); i++) {
    if (i > 0 || last) {
      const interval = scaled(ctx, LIMITS.pollIntervalMinMs + ctx.random() * (2_000 - LIMITS.pollIntervalMinMs), 10);
      if (ctx.now() + interval > deadline) break;
      await nap(ctx, interval);
    }
    try {
      const r = await a.retrieve(id, opts.group ? { group: opts.group } : undefined);
      if (r.payment) {
        last = r.payment;
        if (until(last)) return last;
      }
    } catch (e) {
      if (aborted(ctx)) break;
      throw e;
    }
    if (ctx.now() >= deadline) break;
  }
  return last;
}

/** Refunds of the payment are all settled (presentation B shows them; A shows only totals). */
export function refundsSettled(expectedRefunded: number) {
  return (p: CanonicalPayment): boolean => {
    if (p.refunds) return p.refunds.length > 0 && p.refunds.every((r) => r.status !== 'pending');
    return (p.amountRefunded ?? 0) >= expectedRefunded;
  };
}

// ---------------------------------------------------------------- concurrency

/** Runs `fn` over items with at most `limit` in flight; stops starting new ones when aborted. */
export async function pool<T, R>(ctx: ScenarioContext, items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<(R | undefined)[]> {
  const out: (R | undefined)[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !aborted(ctx)) {
      const i = next++;
      try {
        out[i] = await fn(items[i], i);
      } catch (e) {
        if (!aborted(ctx)) ctx.log(`${ctx.scenario}: step ${i} failed: ${(e as Error).message}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Runs a named step; logs and swallows its error so one failed probe does not end the scenario. */
export async function step<R>(ctx: ScenarioContext, name: string, fn: () => Promise<R>): Promise<R | undefined> {
  if (aborted(ctx)) return undefined;
  try {
    return await fn();
  } catch (e) {
    if (!aborted(ctx)) ctx.log(`${ctx.scenario}: ${name} failed: ${(e as Error).stack ?? e}`);
    return undefined;
  }
}

/** Creates a payment with a card and waits for it to settle; null if the card is missing or it did not settle. */
export async function succeededPayment(ctx: ScenarioContext, a: Api, over: Partial<PaymentInput> = {}, group?: string): Promise<CanonicalPayment | null> {
  const card = cardFor(ctx, 'succeeds');
  if (!card) return null;
  const r = await a.create(paymentInput(ctx, card, over), { cardOutcome: 'succeeds', ...(group ? { group } : {}) });
  if (!r.payment) return null;
  const p = await poll(ctx, a, r.payment.id, { first: r.payment });
  return p && p.status === 'succeeded' ? p : null;
}

export function header(r: ExchangeResult, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower in r.headers) return r.headers[lower];
  for (const [k, v] of Object.entries(r.headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export function intHeader(r: ExchangeResult, name: string): number | null {
  const v = header(r, name);
  if (v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

export function errorCode(r: ExchangeResult): string | null {
  const b = r.body as { error?: { code?: unknown } } | null;
  return b && typeof b === 'object' && b.error && typeof b.error.code === 'string' ? b.error.code : null;
}
