/**
 * webhooks: traffic whose every object settles, so deliveries arrive at paystorm's receiver
 * (`--webhook-port`, `--webhook-secret`): succeeded and declined payments, succeeded refunds
 * and, when the run knows one (ctx.refundFailAmount: the embedded reference service's), one
 * refund of the sandbox's refund-failure amount for refund.failed. The receiver (src/webhooks) verifies signatures,
 * answers a share of deliveries with 500 or stalls past the target's acknowledge time,
 * dedupes by event id and records each delivery for the oracle. This scenario then waits
 * for the deliveries it caused, plus the acknowledge time and a few backoff steps so the
 * retries of failed deliveries arrive too; bounded by `maxWaitMs` (or --duration).
 */
import type { Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import type { CardOutcome } from '../src/spec/cards.ts';
import { isTerminal } from '../src/spec/statuses.ts';
import { LIMITS } from '../src/spec/limits.ts';
import { api, aborted, cardFor, nap, paymentInput, poll, pool, refundsSettled, scaled } from './lib/common.ts';
import { liveKeyFor, loadKeys } from './lib/keys.ts';
import { DELIVERY_GRACE_MS, NO_RETRY_SEEN_WAIT_MS } from '../src/spec/tolerances.ts';
import { luhnValid } from '../src/spec/cards.ts';
import { declareRules } from './lib/rules.ts';

const { rules, rulesFor } = declareRules(
  [],
  [
    // Without a card nothing is sent.
    { rules: ['PAY-1'], anyCard: true },
    { rules: ['WH-1', 'WH-2', 'WH-3', 'WH-4', 'WH-6', 'WH-7', 'WH-10'], webhooks: true, cards: ['succeeds'] },
    { rules: ['WH-5'], webhooks: true, cards: ['succeeds'] },
    { rules: ['WH-8', 'WH-9'], webhooks: true, webhookFailures: true, cards: ['succeeds'] },
  ],
);

/**
 * Enough events (about 20 with the refunds) that some first deliveries fail or stall at the
 * embedded receiver's shares (0.2 + 0.05), so WH-8 and WH-9 are judged by this scenario alone.
 */
const PLAN: CardOutcome[] = [...Array.from({ length: 12 }, (): CardOutcome => 'succeeds'), 'do_not_honor', 'insufficient_funds', 'do_not_honor', 'insufficient_funds'];

/**
 * The longest wait after the expected deliveries arrived: long enough for the oracle to judge a
 * failed delivery that is never retried (WH-9, failed-delivery-retried: the acknowledge time plus
 * --webhook-retry-within, or 5 minutes of the target's time when none is declared and no retry is
 * seen), plus a few backoff steps of margin. The wait ends sooner once no retry is due.
 */
export function retryTailMs(ctx: ScenarioContext): number {
  const ack = ctx.webhooks?.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs;
  return ack + scaled(ctx, (ctx.webhooks?.retryWithinMs ?? NO_RETRY_SEEN_WAIT_MS) + 15_000, 500);
}

/** Luhn-valid numbers that are no sandbox test card (the reference service succeeds them in either mode). */
const NON_TEST_CARDS = ['4111111111111111', '5555555555554444', '4012888888881881'];

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('webhooks: no test key; skipping');
  const apis = keys.map((k) => api(ctx, k));
  if (!ctx.webhooks) ctx.log('webhooks: the run has no receiver; sending the traffic only');
  const d0 = ctx.webhooks?.deliveries() ?? 0;
  let expected = 0;

  await pool(ctx, PLAN, 4, async (outcome, i) => {
    const a = apis[i % apis.length];
    const card = cardFor(ctx, outcome);
    if (!card) return;
    const amount = 5_000 + i;
    const r = await a.create(paymentInput(ctx, card, { amount }), { cardOutcome: outcome, group: 'webhooks' });
    if (!r.payment) return;
    const p = await poll(ctx, a, r.payment.id, { first: r.payment, group: 'webhooks' });
    if (!p || !isTerminal(p.status)) return;
    expected++;
    if (p.status !== 'succeeded') return;
    // Refunds on half the succeeded payments: a partial one, and the refund-failure amount when known.
    if (i % 2 === 0) {
      const amt = i === 0 ? (ctx.refundFailAmount ?? 1_000) : 1_000;
      const rf = await a.refund(p.id, { amount: amt }, { group: 'webhooks', path: i === 0 ? 'payment' : 'refunds' });
      if (rf.status === 200 || rf.status === 201) {
        const after = await poll(ctx, a, p.id, { until: refundsSettled(amt), group: 'webhooks' });
        if (after?.refunds ? after.refunds.every((x) => x.status !== 'pending') : true) expected++;
      }
    }
  });
  // One live payment (WH-10: live events must reach live endpoints only). A live key refuses
  // sandbox test cards (AUTH-7), so it carries a Luhn-valid non-test number, which the embedded
  // service charges (docs/reference-service.md). Embedded target only: on a real deployment that
  // would be a real card-network attempt. A single payment, never load, on a live key.
  const live = ctx.target.embedded ? liveKeyFor(ctx, keys[0]) : null;
  const liveCard = NON_TEST_CARDS.find((n) => luhnValid(n) && !Object.values(ctx.cards).includes(n));
  const testCard = cardFor(ctx, 'succeeds');
  if (live && liveCard && testCard && !aborted(ctx)) {
    const l = api(ctx, live);
    const r = await l.create(paymentInput(ctx, { ...testCard, number: liveCard }, { amount: 4_242 }), { group: 'webhooks-live' });
    if (r.payment) {
      const p = await poll(ctx, l, r.payment.id, { first: r.payment, group: 'webhooks-live' });
      if (p && isTerminal(p.status)) expected++;
    }
  }
  if (!ctx.webhooks || aborted(ctx)) return;
  // Its objects' events are judged (WH-4/WH-5) only if the run goes on this long after they settled.
  const ack = ctx.webhooks.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs;
  const eventsDueAt = ctx.now() + ack + scaled(ctx, DELIVERY_GRACE_MS + 5_000, 500);

  // Deliveries and retries together; a declared first retry delay longer than 5 minutes extends it.
  const maxWaitMs = ctx.durationMs ?? 2 * ack + scaled(ctx, Math.max(5 * 60_000, (ctx.webhooks.retryWithinMs ?? 0) + 15_000), 5_000);
  const deadline = ctx.now() + maxWaitMs;
  const step = Math.max(50, Math.min(1_000, scaled(ctx, 1_000)));
  ctx.phase?.(`waiting for ${expected} webhook deliveries`, deadline - ctx.now());
  while (ctx.now() < deadline && !aborted(ctx) && ctx.webhooks.deliveries() - d0 < expected) await nap(ctx, step);
  const got = ctx.webhooks.deliveries() - d0;
  const tailEnd = ctx.now() + Math.min(retryTailMs(ctx), deadline - ctx.now());
  const due = () => ctx.webhooks!.awaitingRetry?.() ?? Infinity;
  ctx.log(`webhooks: ${got} deliveries for ${expected} expected events; ${due() === Infinity ? '' : `${due()} awaiting a retry; `}waiting up to ${Math.round(tailEnd - ctx.now())} ms for retries`);
  ctx.phase?.('waiting for webhook retries', tailEnd - ctx.now());
  // Until every failed delivery was retried (answered 2xx) and the events of its objects are due:
  // then nothing is left for WH-4/5/8/9 to see, and a conforming service does not make the run
  // sit out the whole bound.
  while (ctx.now() < tailEnd && !aborted(ctx) && (due() > 0 || ctx.now() < eventsDueAt)) await nap(ctx, Math.min(step, tailEnd - ctx.now()));
  ctx.phase?.(null);
  ctx.log(`webhooks: ${ctx.webhooks.deliveries() - d0} deliveries in all${due() === 0 ? ', none awaiting a retry' : due() === Infinity ? '' : `, ${due()} still awaiting a retry`}`);
}

const scenario: Scenario = {
  name: 'webhooks',
  description: 'Payments and refunds that settle, then waiting for their signed deliveries and the retries of failed or stalled ones',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
