/**
 * The mixed workload shared by `mixed`, `soak` and `chaos`: weighted Direct API and hosted
 * creates, poll-until-settled, partial and full refunds on both refund paths, retrievals
 * and lists, spread over the load keys and paced under each key's limit. Its state is
 * bounded (counters and a small ring of ids per key) so it can run for hours.
 */
import type { CallOptions, KeyHandle, ScenarioContext } from '../../src/spec/scenario.ts';
import type { CardOutcome } from '../../src/spec/cards.ts';
import { isTerminal } from '../../src/spec/statuses.ts';
import type { CanonicalPayment } from '../../src/spec/payment.ts';
import { LIST_STATUS_FILTER } from '../../src/spec/statuses.ts';
import { api, aborted, cardFor, paymentInput, poll, randInt, refundsSettled, settleWaitMs, type Api } from './common.ts';
import { loadKeys } from './keys.ts';
import { DEFAULT_SHARE, rateLimitOf } from './pace.ts';

export type MixedOp = 'direct' | 'hosted' | 'retrieve' | 'list';

export interface MixedOptions {
  durationMs: number;
  /** Share of each key's limit to use (0..1). */
  share?: number;
  /** Iterations per second; default derived from the limit, the share and the keys. */
  rate?: number;
  weights?: Partial<Record<MixedOp, number>>;
  /** Client retries with the same Idempotency-Key on time-outs and 503 (chaos). */
  retries?: number;
  timeoutMs?: number;
  /** Logs progress this often (ms); 0 = never. */
  progressEveryMs?: number;
  /** Called at each progress tick with the counters. */
  onProgress?: (s: MixedStats) => void | Promise<void>;
  /** Keys to use; default the load keys. */
  keys?: readonly KeyHandle[];
  /** Called with each payment created (201), e.g. to retrieve them all afterwards. */
  onCreated?: (key: KeyHandle, paymentId: string) => void;
}

export interface MixedStats {
  iterations: number;
  ops: Record<MixedOp, number>;
  created: number;
  settled: number;
  unsettled: number;
  refunds: number;
  statuses: Record<number, number>;
  elapsedMs: number;
}

export const DEFAULT_WEIGHTS: Record<MixedOp, number> = { direct: 8, hosted: 2, retrieve: 5, list: 5 };
/** Average /v1 requests one iteration makes (creates, polls, refunds), to turn a request budget into an iteration rate. */
export const REQUESTS_PER_ITERATION = 3.5;
/** Card outcomes of Direct API creates, one deck per ten creates; a missing card falls back to `succeeds`. */
const CARD_DECK: CardOutcome[] = ['succeeds', 'succeeds', 'do_not_honor', 'succeeds', 'three_ds_challenge', 'succeeds', 'insufficient_funds', 'succeeds', 'succeeds', 'succeeds'];
/** What follows a succeeded Direct API payment: one deck per five. */
const REFUND_DECK = ['partial', 'none', 'full', 'none', 'partial-then-rest'] as const;
const RING = 64;
type RefundOpts = CallOptions & { path?: 'payment' | 'refunds' };

function shuffled<T>(ctx: ScenarioContext, xs: T[]): T[] {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(ctx.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/** The iteration rate that keeps `keys` keys at `share` of their limit. */
export function mixedRate(ctx: ScenarioContext, keys: number, share: number): number {
  const { limit, windowMs } = rateLimitOf(ctx);
  const perKeyRps = (share * limit * 1000) / windowMs;
  return Math.max(0.2, (0.85 * keys * perKeyRps) / REQUESTS_PER_ITERATION);
}

export async function runMixed(ctx: ScenarioContext, opts: MixedOptions): Promise<MixedStats> {
  const keys = (opts.keys ?? loadKeys(ctx)).slice();
  if (keys.length === 0) {
    ctx.log(`${ctx.scenario}: no test key to load; skipping`);
    return emptyStats();
  }
  const share = opts.share ?? DEFAULT_SHARE;
  const apis: Api[] = keys.map((k) => api(ctx, k, share));
  const rate = opts.rate ?? ctx.rate ?? mixedRate(ctx, keys.length, share);
  const weights = { ...DEFAULT_WEIGHTS, ...opts.weights };
  const opDeck = shuffled(
    ctx,
    (Object.keys(weights) as MixedOp[]).flatMap((op) => Array.from({ length: Math.max(0, Math.round(weights[op])) }, () => op)),
  );
  if (opDeck.length === 0) opDeck.push('list');
  const rings = new Map<number, string[]>();
  const stats = emptyStats();
  const t0 = ctx.now();
  let directN = 0;
  let succeededN = 0;
  const callOpts = <T extends CallOptions>(extra: T = {} as T): T => ({
    ...(opts.retries !== undefined ? { retries: opts.retries } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...extra,
  });
  const remember = (ki: number, id: string) => {
    opts.onCreated?.(keys[ki], id);
    let r = rings.get(ki);
    if (!r) rings.set(ki, (r = []));
    r.push(id);
    if (r.length > RING) r.shift();
  };
  const count = (status: number) => {
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
  };
  const settle = async (a: Api, p: CanonicalPayment): Promise<CanonicalPayment | null> => {
    const s = await poll(ctx, a, p.id, { first: p, maxWaitMs: settleWaitMs(ctx) });
    if (s && isTerminal(s.status)) stats.settled++;
    else stats.unsettled++;
    return s;
  };

  const refundFlow = async (a: Api, p: CanonicalPayment) => {
    const plan = REFUND_DECK[succeededN++ % REFUND_DECK.length];
    if (plan === 'none') return;
    const pathA: 'payment' | 'refunds' = succeededN % 2 === 0 ? 'payment' : 'refunds';
    const pathB: 'payment' | 'refunds' = pathA === 'payment' ? 'refunds' : 'payment';
    let refunded = 0;
    if (plan === 'full') {
      const r = await a.refund(p.id, { amount: p.amount }, callOpts<RefundOpts>({ path: pathA }));
      count(r.status);
      stats.refunds++;
      if (r.status === 201 || r.status === 200) refunded = p.amount;
    } else {
      const part = Math.max(1, Math.floor(p.amount * (0.2 + 0.3 * ctx.random())));
      const r = await a.refund(p.id, { amount: part }, callOpts<RefundOpts>({ path: pathA }));
      count(r.status);
      stats.refunds++;
      if (r.status === 201 || r.status === 200) refunded = part;
      if (plan === 'partial-then-rest' && refunded > 0) {
        const r2 = await a.refund(p.id, { amount: p.amount - part }, callOpts<RefundOpts>({ path: pathB }));
        count(r2.status);
        stats.refunds++;
        if (r2.status === 201 || r2.status === 200) refunded = p.amount;
      }
    }
    if (refunded > 0) await poll(ctx, a, p.id, { until: refundsSettled(refunded) });
  };

  const direct = async (ki: number, tIntended: number) => {
    const a = apis[ki];
    let outcome = CARD_DECK[directN++ % CARD_DECK.length];
    let card = cardFor(ctx, outcome);
    if (!card) {
      outcome = 'succeeds';
      card = cardFor(ctx, outcome);
    }
    if (!card) return;
    const r = await a.create(paymentInput(ctx, card), { ...callOpts({ tIntended }), cardOutcome: outcome });
    count(r.status);
    if (!r.payment) return;
    stats.created++;
    remember(ki, r.payment.id);
    let p: CanonicalPayment | null = r.payment;
    if (outcome === 'three_ds_challenge') {
      p = await poll(ctx, a, p.id, { first: p, until: (x) => isTerminal(x.status) || (x.status === 'requires_action' && !!x.nextAction?.redirectUrl) });
      const url = p?.nextAction?.redirectUrl;
      if (p && p.status === 'requires_action' && url) await a.complete3ds(url, 'success', { paymentId: p.id });
    }
    if (!p) return;
    const s = await settle(a, p);
    if (s && s.status === 'succeeded') await refundFlow(a, s);
  };

  const hosted = async (ki: number, tIntended: number) => {
    const a = apis[ki];
    const r = await a.createHosted(paymentInput(ctx, null), callOpts({ tIntended }));
    count(r.status);
    if (!r.payment) return;
    stats.created++;
    remember(ki, r.payment.id);
    const card = cardFor(ctx, 'succeeds');
    const url = r.payment.nextAction?.redirectUrl ?? r.payment.redirectUrl;
    if (!card || !url) return;
    await a.submitHosted(url, card, { cardOutcome: 'succeeds', paymentId: r.payment.id });
    await settle(a, r.payment);
  };

  const retrieve = async (ki: number, tIntended: number) => {
    const ring = rings.get(ki);
    if (!ring || ring.length === 0) return list(ki, tIntended);
    const id = ring[randInt(ctx, 0, ring.length - 1)];
    const r = await apis[ki].retrieve(id, callOpts({ tIntended }));
    count(r.status);
  };

  const list = async (ki: number, tIntended: number) => {
    const useStatus = ctx.random() < 0.3;
    const r = await apis[ki].list(
      { limit: randInt(ctx, 1, 25), ...(useStatus ? { status: LIST_STATUS_FILTER[randInt(ctx, 0, LIST_STATUS_FILTER.length - 1)] } : {}) },
      callOpts({ tIntended }),
    );
    count(r.status);
  };

  const ops: Record<MixedOp, (ki: number, t: number) => Promise<void>> = { direct, hosted, retrieve, list };
  const durationMs = Math.max(1, opts.durationMs);
  const maxInFlight = Math.min(1000, Math.ceil(rate * ((2 * settleWaitMs(ctx)) / 1000)) + 8);
  ctx.log(`${ctx.scenario}: mixed load on ${keys.length} key(s) at ${rate.toFixed(2)} it/s for ${Math.round(durationMs / 1000)} s (share ${share})`);

  let ticker: NodeJS.Timeout | undefined;
  if (opts.progressEveryMs && opts.progressEveryMs > 0) {
    ticker = setInterval(() => {
      stats.elapsedMs = ctx.now() - t0;
      ctx.log(`${ctx.scenario}: ${progressLine(stats)}`);
      void Promise.resolve(opts.onProgress?.({ ...stats })).catch(() => undefined);
    }, opts.progressEveryMs);
    ticker.unref?.();
  }
  try {
    await ctx.execute({ executor: 'constant-arrival-rate', rate, durationMs, maxInFlight }, async (_vu, i, tIntended) => {
      if (aborted(ctx)) return;
      stats.iterations++;
      const op = opDeck[i % opDeck.length];
      stats.ops[op]++;
      await ops[op](i % apis.length, tIntended);
    });
  } finally {
    if (ticker) clearInterval(ticker);
  }
  stats.elapsedMs = ctx.now() - t0;
  ctx.log(`${ctx.scenario}: done: ${progressLine(stats)}`);
  return stats;
}

export function progressLine(s: MixedStats): string {
  const st = Object.entries(s.statuses)
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  return `${Math.round(s.elapsedMs / 1000)} s, ${s.iterations} iterations, ${s.created} created, ${s.settled} settled, ${s.unsettled} unsettled, ${s.refunds} refunds, statuses ${st || '-'}`;
}

function emptyStats(): MixedStats {
  return { iterations: 0, ops: { direct: 0, hosted: 0, retrieve: 0, list: 0 }, created: 0, settled: 0, unsettled: 0, refunds: 0, statuses: {}, elapsedMs: 0 };
}

/** Iterations needed for every op and card of the decks to appear at least once. */
export const MIN_ITERATIONS_FOR_COVERAGE = 40;
