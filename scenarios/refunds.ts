/**
 * refunds: partial then the rest (the payment-scoped path, then `POST /v1/refunds`, each
 * replaced by the other when the target does not serve it: scenarios/lib/refund-path.ts), a full
 * refund with no amount, `refunded_at` once the total reaches the amount, an over-refund
 * (422 `action_not_allowed`, sub-code in brackets), refunds of payments that are not
 * succeeded (failed, awaiting the hosted page), and concurrent refunds that together exceed
 * the amount (`refund-race-<n>`: the succeeded ones never add up to more than the amount).
 * Refunds still pending after their polls are fetched once more past the settle bound
 * (`refund-settle-check`): a refund that never leaves pending is stranded money (REF-1).
 */
import type { Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import type { CanonicalPayment } from '../src/spec/payment.ts';
import { api, cardFor, nap, paymentInput, poll, refundsSettled, step, succeededPayment, type Api } from './lib/common.ts';
import { refundPathFor } from './lib/refund-path.ts';
import { pastBoundAt } from './lib/settle-check.ts';
import { loadKeys } from './lib/keys.ts';
import { declareRules } from './lib/rules.ts';

const { rules, rulesFor } = declareRules(
  ['ERR-1', 'ERR-2'],
  [
    { rules: ['REF-1', 'REF-2', 'REF-3', 'REF-4', 'SM-2', 'PAY-15'], cards: ['succeeds'] },
    { rules: ['REF-5'], cards: ['do_not_honor'] },
    { rules: ['REF-6'], presentation: 'B', cards: ['succeeds'] },
    { rules: ['PAY-10'], presentation: 'A', cards: ['succeeds'] },
  ],
);

const RACERS = 4;

/** Payments whose refunds were still pending after their poll: when that poll ended. */
const unsettledRefunds = new WeakMap<ScenarioContext, Map<string, { a: Api; t: number }>>();

async function settled(ctx: ScenarioContext, a: Api, p: CanonicalPayment, total: number, group?: string): Promise<CanonicalPayment | null> {
  if (total <= 0) return poll(ctx, a, p.id, { until: () => true, ...(group ? { group } : {}) });
  const after = await poll(ctx, a, p.id, { until: refundsSettled(total), ...(group ? { group } : {}) });
  if (after?.refunds?.some((r) => r.status === 'pending')) unsettledRefunds.get(ctx)?.set(p.id, { a, t: ctx.now() });
  return after;
}

/** Refunds still pending after their polls: one more GET past the settle bound shows whether they are stranded. */
async function settleCheck(ctx: ScenarioContext): Promise<void> {
  const left = unsettledRefunds.get(ctx);
  if (!left || left.size === 0) return;
  const last = Math.max(...[...left.values()].map((x) => x.t));
  const waitMs = pastBoundAt(ctx, last) - ctx.now();
  ctx.log(`refunds: ${left.size} payment(s) with refunds still pending; looking again in ${Math.round(waitMs / 100) / 10} s`);
  await nap(ctx, waitMs);
  for (const [id, { a }] of left) if (!ctx.signal.aborted) await a.retrieve(id, { group: 'refund-settle-check' });
}

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('refunds: no test key; skipping');
  const apis = keys.map((k) => api(ctx, k));
  const a = apis[0];
  const b = apis[1 % apis.length];
  unsettledRefunds.set(ctx, new Map());

  // Partial, then the rest on the other path: refunded_at once the total reaches the amount.
  await step(ctx, 'partial then full', async () => {
    const p = await succeededPayment(ctx, a, { amount: 1_000 });
    if (!p) return ctx.log('refunds: no succeeded payment (is the succeeds card configured?)');
    await a.refund(p.id, { amount: 300 }, { path: 'payment', group: 'refund-partial' });
    await settled(ctx, a, p, 300);
    await a.refund(p.id, { amount: 700 }, { path: 'refunds', group: 'refund-partial' });
    const after = await settled(ctx, a, p, 1_000);
    if (after && after.amountRefunded !== 1_000) ctx.log(`refunds: after 300 + 700, refunded total is ${after.amountRefunded}`);
    // Nothing is left: another refund is over the refundable amount.
    await a.refund(p.id, { amount: 1 }, { path: 'payment', group: 'refund-over' });
  });

  // A full refund with no amount (the remaining amount), on the top-level path.
  await step(ctx, 'full without amount', async () => {
    const p = await succeededPayment(ctx, b, { amount: 2_500 });
    if (!p) return;
    const r = await b.refund(p.id, {}, { path: 'refunds', group: 'refund-full' });
    // The refund body is not shown: a deployment may require the amount (400 parameter_invalid).
    if (r.status === 400) await b.refund(p.id, { amount: p.amount }, { path: 'refunds', group: 'refund-full' });
    await settled(ctx, b, p, p.amount);
  });

  // Over-refund: above the amount at once, and above what is left after a partial refund.
  await step(ctx, 'over-refund', async () => {
    const p = await succeededPayment(ctx, a, { amount: 800 });
    if (!p) return;
    await a.refund(p.id, { amount: 801 }, { path: 'payment', group: 'refund-over' });
    await a.refund(p.id, { amount: 500 }, { path: 'refunds', group: 'refund-over' });
    await settled(ctx, a, p, 500);
    await a.refund(p.id, { amount: 301 }, { path: 'refunds', group: 'refund-over' });
    await a.refund(p.id, { amount: 301 }, { path: 'payment', group: 'refund-over' });
  });

  // Refunds of payments that are not succeeded: failed (decline card) and awaiting the hosted page.
  await step(ctx, 'not succeeded', async () => {
    const card = cardFor(ctx, 'do_not_honor');
    if (card) {
      const r = await a.create(paymentInput(ctx, card), { cardOutcome: 'do_not_honor' });
      const p = r.payment ? await poll(ctx, a, r.payment.id, { first: r.payment }) : null;
      if (p) {
        await a.refund(p.id, { amount: 100 }, { path: 'payment', group: 'refund-not-succeeded' });
        await a.refund(p.id, {}, { path: 'refunds', group: 'refund-not-succeeded' });
      }
    }
    const h = await a.createHosted(paymentInput(ctx, null));
    if (h.payment) {
      await a.refund(h.payment.id, { amount: 100 }, { path: 'payment', group: 'refund-not-succeeded' });
      await a.refund(h.payment.id, { amount: 100 }, { path: 'refunds', group: 'refund-not-succeeded' });
    }
  });

  // Concurrent refunds that together exceed the amount, on both paths and two keys of the run.
  for (let n = 1; n <= 2 && !ctx.signal.aborted; n++) {
    await step(ctx, `race ${n}`, async () => {
      const p = await succeededPayment(ctx, a, { amount: 1_000 });
      if (!p) return;
      const each = 400;
      const served = await a.refundPaths();
      await a.reserve(RACERS);
      const rs = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          a.client.refund(p.id, { amount: each }, { path: refundPathFor(served, i % 2 === 0 ? 'payment' : 'refunds'), group: `refund-race-${n}` }),
        ),
      );
      const accepted = rs.filter((r) => r.status === 200 || r.status === 201).length;
      const after = await settled(ctx, a, p, Math.min(p.amount, accepted * each), `refund-race-${n}`);
      ctx.log(`refunds: race ${n}: ${RACERS} x ${each} on ${p.amount}: ${accepted} accepted, refunded total ${after?.amountRefunded ?? '?'}`);
    });
  }

  await step(ctx, 'settle check', () => settleCheck(ctx));
}

const scenario: Scenario = {
  name: 'refunds',
  description: 'Partial and full refunds on each served path, refunded_at, over-refund 422 with its sub-code, refunds of payments not succeeded, concurrent refunds exceeding the amount',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
