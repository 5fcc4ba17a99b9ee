/**
 * Looking at payments until the oracle can judge them against the run's settle bound (FT-2,
 * SM-6, REF-1): the oracle convicts something still pending only from an observation that
 * started more than the bound after the faults healed (and after it was made), so a phase that
 * stops looking earlier never judges a payment stuck for ever. `settleCheck` polls each payment
 * until it settles or is past the bound (x1.1 plus a margin, as the refunds scenario's own
 * settle check), then GETs once more every payment still unsettled after that point.
 */
import { defaultSettleBoundMs, type ScenarioContext } from '../../src/spec/scenario.ts';
import type { CanonicalPayment } from '../../src/spec/payment.ts';
import { isTerminal } from '../../src/spec/statuses.ts';
import { aborted, nap, poll, pool, type Api } from './common.ts';

/** The oracle's settle bound for this run (ctx.settleBoundMs); without one, the CLI's default. */
export function settleBoundOf(ctx: Pick<ScenarioContext, 'settleBoundMs' | 'timeScale' | 'target'>): number {
  return ctx.settleBoundMs ?? defaultSettleBoundMs(ctx.target.embedded, ctx.timeScale);
}

/** Past the bound by more than timer jitter and a fault's removal latency (the heal is recorded once Toxiproxy answered). */
export const PAST_BOUND_MARGIN_MS = 1_000;

/** When a look at something unsettled since `since` (run ms) is surely past the settle bound. */
export function pastBoundAt(ctx: Pick<ScenarioContext, 'settleBoundMs' | 'timeScale' | 'target'>, since: number): number {
  return since + settleBoundOf(ctx) * 1.1 + PAST_BOUND_MARGIN_MS;
}

/** Settled as far as a GET shows: terminal, with no refund still pending (presentation B lists them). */
export function settledView(p: CanonicalPayment): boolean {
  return isTerminal(p.status) && !(p.refunds ?? []).some((r) => r.status === 'pending');
}

export interface SettleItem {
  api: Api;
  id: string;
  /** Run ms from which it must settle within the bound: the later of the last heal and its creation. */
  since: number;
}

/** Most payments tracked at once: bounds the final pass (count) like the callers' own lists. */
const MAX_ITEMS = 5_000;

/**
 * Polls every item (at most `concurrency` at once) until it is settled, for at least `minWaitMs`
 * and until past the bound after its `since`; then, once past each one's bound, one final GET of
 * every item still unsettled. A pending refund seen on it counts from `refundsSince` (when its
 * refunds were surely made: the caller's load had ended) when that is later. Bounded in time
 * (the bound, or `minWaitMs`, per item; the polls' own cap) and in count (MAX_ITEMS items, one final GET each).
 */
export async function settleCheck(
  ctx: ScenarioContext,
  items: readonly SettleItem[],
  opts: { minWaitMs: number; group: string; finalGroup: string; refundsSince?: number; concurrency?: number },
): Promise<{ checked: number; unsettled: number }> {
  const list = items.slice(0, MAX_ITEMS);
  const last = new Map<string, CanonicalPayment | null>();
  await pool(ctx, list, opts.concurrency ?? 8, async (it) => {
    const maxWaitMs = Math.max(opts.minWaitMs, pastBoundAt(ctx, it.since) - ctx.now());
    last.set(it.id, await poll(ctx, it.api, it.id, { maxWaitMs, until: settledView, group: opts.group }));
  });
  const refundsSince = opts.refundsSince ?? -Infinity;
  const left = list
    .filter((it) => {
      const p = last.get(it.id);
      return !p || !settledView(p);
    })
    .map((it) => {
      const p = last.get(it.id);
      const refundPending = !!p && (p.refunds ?? []).some((r) => r.status === 'pending');
      return { it, at: pastBoundAt(ctx, refundPending ? Math.max(it.since, refundsSince) : it.since) };
    })
    .sort((a, b) => a.at - b.at);
  if (left.length === 0 || aborted(ctx)) return { checked: list.length, unsettled: left.length };
  const waitMs = left[left.length - 1].at - ctx.now();
  ctx.log(`${ctx.scenario}: ${left.length} payment(s) still unsettled; one more look at each past the settle bound (${Math.max(0, Math.round(waitMs / 100) / 10)} s at most)`);
  // In order of when each is past its bound (pool starts them in order): wait for that, then look.
  await pool(ctx, left, opts.concurrency ?? 8, async ({ it, at }) => {
    await nap(ctx, at - ctx.now());
    if (!aborted(ctx)) await it.api.retrieve(it.id, { group: opts.finalGroup });
  });
  return { checked: list.length, unsettled: left.length };
}
