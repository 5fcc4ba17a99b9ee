/**
 * idempotency: the Idempotency-Key rules, each probe in its own `group`.
 * - `idem-race-<n>`: N concurrent creates with one key and one body (Direct API, and a hosted
 *   round): one payment, the rest 409 `idempotency_key_in_use` or replays of it. Each round's
 *   body carries a nonce (description, metadata), as do the replay probes; `idem-walk-races` then
 *   walks the key's list past them, where a second payment carrying a nonce is a ghost double
 *   charge (IDEM-6, IDEM-3).
 * - `idem-replay-<op>`: same key, same body: the same object again (payment, hosted, refund).
 * - `idem-diff-<op>`: same key, another body: 409.
 * - `idem-error-retry-<op>`: an error answer (400 for an amount below the minimum, sent as a marked
 *   bad input; or a 422 refund) then a valid retry with the same key: it executes.
 * - `idem-scope-key`: one key value under two API keys: two payments.
 * - `idem-scope-op`: one key value on payment create, hosted create and refund create: three objects.
 * - `idem-mref`: one `merchant_reference`, two keys: two payments.
 * - `idem-missing-<op>` / `idem-oversized` / `idem-max`: no key (400 `parameter_missing`),
 *   256 characters (400), exactly 255 (accepted).
 */
import { randomUUID } from 'node:crypto';
import type { Api } from './lib/common.ts';
import type { ExchangeResult, Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import type { PaymentInput } from '../src/spec/inputs.ts';
import type { CardOutcome } from '../src/spec/cards.ts';
import { directCreateBody, hostedCreateBody } from '../src/spec/inputs.ts';
import { LIMITS } from '../src/spec/limits.ts';
import { ERROR_CODES } from '../src/spec/errors.ts';
import { API_PATHS } from '../src/spec/operations.ts';
import { REFUND_PATHS } from '../src/spec/refund.ts';
import { refundPathFor } from './lib/refund-path.ts';
import { isTerminal } from '../src/spec/statuses.ts';
import { api, cardFor, idemKey, merchantReference, paymentInput, poll, pool, step } from './lib/common.ts';
import { loadKeys, secondTestKey } from './lib/keys.ts';
import { rateLimitOf } from './lib/pace.ts';
import { declareRules } from './lib/rules.ts';

const { rules, rulesFor } = declareRules(
  ['IDEM-1', 'IDEM-2', 'IDEM-3', 'IDEM-4', 'IDEM-5', 'IDEM-6', 'IDEM-7', 'IDEM-10', 'PAY-1', 'PAY-12', 'ERR-1', 'ERR-2'],
  [
    { rules: ['IDEM-8'], twoTestKeys: true },
    // Without the succeeding card the creates are hosted ones (no Direct API create status).
    { rules: ['PAY-6', 'IDEM-9', 'REF-7'], cards: ['succeeds'] },
  ],
);

/** A create: Direct API with the succeeds card when the run has it, else hosted. */
interface Creator {
  input: PaymentInput;
  hosted: boolean;
  outcome?: CardOutcome;
}
function creator(ctx: ScenarioContext, over: Partial<PaymentInput> = {}): Creator {
  const card = cardFor(ctx, 'succeeds');
  return card ? { input: paymentInput(ctx, card, over), hosted: false, outcome: 'succeeds' } : { input: paymentInput(ctx, null, over), hosted: true };
}
function send(a: Api, c: Creator, key: string, group: string, paced = true): Promise<ExchangeResult> {
  const opts = { idemKey: key, group, ...(c.outcome ? { cardOutcome: c.outcome } : {}) };
  if (paced) return c.hosted ? a.createHosted(c.input, opts) : a.create(c.input, opts);
  return c.hosted ? a.client.createHosted(c.input, opts) : a.client.create(c.input, opts);
}

function raceSize(ctx: ScenarioContext): number {
  return Math.max(3, Math.min(10, Math.floor(rateLimitOf(ctx).limit * 0.1)));
}

/** Pages of the race walk, and how many at most (a busy key may hold many newer payments). */
const WALK_PAGE = 100;
const WALK_MAX_PAGES = 10;

/**
 * Walks the key's list by cursor from the newest payment until it is past the races and replays:
 * past every payment they were answered with and past their creation second (by the service's own clock,
 * read from those answers, so a clock offset does not matter) with a second's margin, or to the
 * end. A ghost made in a race was created in the same moments, so it is on the pages walked.
 */
async function walkPast(ctx: ScenarioContext, a: Api, raced: readonly { id: string; created: number | null }[]): Promise<void> {
  if (raced.length === 0) return;
  const want = new Set(raced.map((r) => r.id));
  const createdAt = raced.map((r) => r.created).filter((c): c is number => c !== null);
  const oldest = createdAt.length ? Math.min(...createdAt) : null;
  let cursor: string | undefined;
  let pages = 0;
  let seen = 0;
  for (; pages < WALK_MAX_PAGES && !ctx.signal.aborted; pages++) {
    const r = await a.list({ limit: WALK_PAGE, ...(cursor ? { starting_after: cursor } : {}) }, { group: 'idem-walk-races' });
    const l = r.status === 200 ? r.record.list : null;
    if (!l) break;
    l.ids.forEach((id) => want.delete(id) && seen++);
    const last = l.created[l.created.length - 1];
    const pastRaces = want.size === 0 && (oldest === null || (last !== null && last !== undefined && last < oldest - 1));
    if (!l.hasMore || l.ids.length === 0 || pastRaces) {
      pages++;
      break;
    }
    cursor = l.ids[l.ids.length - 1];
  }
  ctx.log(`idempotency: walk past the races and replays: ${pages} page(s), ${seen} of ${raced.length} payment(s) listed`);
}

async function run(ctx: ScenarioContext): Promise<void> {
  const keys = loadKeys(ctx);
  if (keys.length === 0) return ctx.log('idempotency: no test key; skipping');
  const a = api(ctx, keys[0]);
  const bKey = secondTestKey(ctx, keys[0]);
  const b = bKey ? api(ctx, bKey) : null;
  const shape = ctx.target.presentation;
  const created = new Set<string>();
  const note = (r: ExchangeResult | undefined) => {
    if (r?.payment && !r.payment.hosted && r.record.op === 'create') created.add(r.payment.id);
  };

  // Races: N concurrent same-key, same-body creates; the last round on the hosted operation.
  // Each round's body carries a nonce (description and metadata) unique to that logical request,
  // so a payment the service made without showing it to any caller (a ghost double charge) is
  // recognisable in the key's list afterwards (idem-no-ghost-object, IDEM-6).
  const n = raceSize(ctx);
  const tracked: { id: string; created: number | null }[] = [];
  const track = (r: ExchangeResult) => {
    if (r.payment && !tracked.some((x) => x.id === r.payment!.id)) tracked.push({ id: r.payment.id, created: r.payment.created });
  };
  /** A body marker unique to one logical request (see idem-no-ghost-object). */
  const nonced = (tag: string) => {
    const nonce = randomUUID();
    return { description: `paystorm idempotency ${tag} ${nonce}`, metadata: { scenario: ctx.scenario, probe: tag, nonce } };
  };
  for (let round = 1; round <= 3 && !ctx.signal.aborted; round++) {
    await step(ctx, `race ${round}`, async () => {
      const over = nonced(`race-${round}`);
      const c = round === 3 ? { input: paymentInput(ctx, null, over), hosted: true } : creator(ctx, over);
      const k = idemKey(ctx, `race-${round}`);
      await a.reserve(n);
      const rs = await Promise.all(Array.from({ length: n }, () => send(a, c, k, `idem-race-${round}`, false)));
      rs.forEach(note);
      const ids = new Set(rs.filter((r) => r.payment).map((r) => r.payment!.id));
      rs.forEach(track);
      const conflicts = rs.filter((r) => r.status === 409).length;
      ctx.log(`idempotency: race ${round}: ${n} requests, ${ids.size} distinct payment(s), ${conflicts} 409`);
    });
  }

  // Replay and different body, per operation.
  // The replays carry a nonce too: a service that made a new payment per replay but answered
  // with the first is caught in the walk below like a race's ghost (IDEM-3: no new object).
  await step(ctx, 'replay and different body (payment)', async () => {
    const c = creator(ctx, nonced('replay'));
    const k = idemKey(ctx, 'replay');
    for (let i = 0; i < 2; i++) {
      const r = await send(a, c, k, 'idem-replay-payment');
      note(r);
      track(r);
    }
    const other = { ...c, input: { ...c.input, amount: c.input.amount + 1 } };
    await send(a, other, k, 'idem-diff-payment');
  });
  await step(ctx, 'replay and different body (hosted)', async () => {
    const c: Creator = { input: paymentInput(ctx, null, nonced('replay-hosted')), hosted: true };
    const k = idemKey(ctx, 'replay-hosted');
    track(await send(a, c, k, 'idem-replay-hosted'));
    track(await send(a, c, k, 'idem-replay-hosted'));
    await send(a, { ...c, input: { ...c.input, description: `${c.input.description} (changed)` } }, k, 'idem-diff-hosted');
  });
  await step(ctx, 'walk past the races and replays', () => walkPast(ctx, a, tracked));

  // An error is not kept: the retry with the same key executes.
  // The failing request is a deliberate bad input (amount below the minimum), marked as such.
  await step(ctx, 'error then retry', async () => {
    const c = creator(ctx);
    const k = idemKey(ctx, 'error-retry');
    const badInput = { ...c.input, amount: LIMITS.amountMin - 1 };
    await a.raw(
      { method: 'POST', path: c.hosted ? API_PATHS.hosted : API_PATHS.payments, body: c.hosted ? hostedCreateBody(badInput) : directCreateBody(badInput, shape) },
      {
        idemKey: k,
        group: 'idem-error-retry-payment',
        op: c.hosted ? 'create_hpp' : 'create',
        sent: {
          badInput: { case: 'idempotency/error-then-retry/amount-below-minimum', expectStatus: ERROR_CODES.parameter_invalid.http, expectCode: ERROR_CODES.parameter_invalid.code, expectParam: 'amount' },
          ...(c.hosted ? {} : { inputShape: shape }),
        },
      },
    );
    note(await send(a, c, k, 'idem-error-retry-payment'));
  });

  // Scope per API key.
  if (b) {
    await step(ctx, 'scope per API key', async () => {
      const c = creator(ctx);
      const k = idemKey(ctx, 'scope-key');
      note(await send(a, c, k, 'idem-scope-key'));
      const rb = await send(b, c, k, 'idem-scope-key');
      if (rb.payment) await poll(ctx, b, rb.payment.id, { first: rb.payment });
    });
  }

  // merchant_reference never deduplicates.
  await step(ctx, 'merchant_reference', async () => {
    const ref = merchantReference(ctx);
    const c = creator(ctx, { merchantReference: ref });
    note(await send(a, c, idemKey(ctx, 'mref-1'), 'idem-mref'));
    note(await send(a, c, idemKey(ctx, 'mref-2'), 'idem-mref'));
    await send(a, { input: paymentInput(ctx, null, { merchantReference: ref }), hosted: true }, idemKey(ctx, 'mref-3'), 'idem-mref');
  });

  // Scope per operation, and the refund operation's own idempotency (REF-7).
  await step(ctx, 'scope per operation and refunds', async () => {
    const k = idemKey(ctx, 'scope-op');
    const card = cardFor(ctx, 'succeeds');
    if (!card) return;
    const input = paymentInput(ctx, card, { amount: 10_000 });
    const r1 = await a.create(input, { idemKey: k, group: 'idem-scope-op', cardOutcome: 'succeeds' });
    note(r1);
    await a.createHosted(paymentInput(ctx, null), { idemKey: k, group: 'idem-scope-op' });
    const p = r1.payment ? await poll(ctx, a, r1.payment.id, { first: r1.payment }) : null;
    if (!p || p.status !== 'succeeded') return ctx.log('idempotency: scope-op payment did not succeed');
    await a.refund(p.id, { amount: 1_000 }, { idemKey: k, group: 'idem-scope-op' });
    // Refund replay and different body.
    const rk = idemKey(ctx, 'refund-replay');
    await a.refund(p.id, { amount: 500 }, { idemKey: rk, group: 'idem-replay-refund' });
    await a.refund(p.id, { amount: 500 }, { idemKey: rk, group: 'idem-replay-refund' });
    await a.refund(p.id, { amount: 501 }, { idemKey: rk, group: 'idem-diff-refund' });
    // Refund error (over the refundable amount), then a valid retry with the same key.
    const ek = idemKey(ctx, 'refund-error-retry');
    await a.refund(p.id, { amount: p.amount + 1 }, { idemKey: ek, group: 'idem-error-retry-refund' });
    await a.refund(p.id, { amount: 700 }, { idemKey: ek, group: 'idem-error-retry-refund', path: 'refunds' });
    // Both refund paths are one operation (src/spec/refund.ts): the same key and the same refund
    // (this payment, this amount) on the other path, after a 2xx, replays it rather than
    // refunding again (REF-7). Once from each path; only when the target serves both.
    const served = await a.refundPaths();
    for (const [first, second] of served.payment && served.refunds ? ([['payment', 'refunds'], ['refunds', 'payment']] as const) : []) {
      const xk = idemKey(ctx, `refund-cross-path-${first}`);
      const r = await a.refund(p.id, { amount: 300 }, { idemKey: xk, group: 'idem-refund-cross-path', path: first });
      if (r.status >= 200 && r.status < 300) await a.refund(p.id, { amount: 300 }, { idemKey: xk, group: 'idem-refund-cross-path', path: second });
    }
  });

  // Missing and oversized keys, and the longest allowed one.
  const rawCreate = (body: Record<string, unknown>, path: string, group: string, variant: 'missing' | 'oversized' | null, k?: string, op: 'create' | 'create_hpp' | 'refund' | 'refund_create' = 'create') =>
    a.raw(
      { method: 'POST', path, body, headers: { 'content-type': 'application/json' } },
      {
        group,
        op,
        ...(variant === 'missing' ? { omitIdemKey: true } : {}),
        ...(k ? { idemKey: k } : {}),
        sent: { ...(variant ? { idemVariant: variant } : {}), ...(op === 'create' ? { inputShape: shape } : {}) },
      },
    );
  await step(ctx, 'missing and oversized keys', async () => {
    const card = cardFor(ctx, 'succeeds');
    const direct = directCreateBody(paymentInput(ctx, card), shape);
    const hosted = hostedCreateBody(paymentInput(ctx, null));
    await rawCreate(direct, API_PATHS.payments, 'idem-missing-payment', 'missing');
    await rawCreate(hosted, API_PATHS.hosted, 'idem-missing-hosted', 'missing', undefined, 'create_hpp');
    await rawCreate(direct, API_PATHS.payments, 'idem-oversized', 'oversized', 'k'.repeat(LIMITS.idempotencyKeyMaxLength + 1));
    if (card) {
      const max = (idemKey(ctx, 'max') + 'x'.repeat(LIMITS.idempotencyKeyMaxLength)).slice(0, LIMITS.idempotencyKeyMaxLength);
      const r = await a.create(paymentInput(ctx, card), { idemKey: max, group: 'idem-max', cardOutcome: 'succeeds' });
      note(r);
    }
    const some = [...created][0];
    if (some) {
      // On a served refund path (scenarios/lib/refund-path.ts).
      const topLevel = refundPathFor(await a.refundPaths(), 'payment') === 'refunds';
      if (topLevel) await rawCreate({ payment_id: some, amount: 1 }, REFUND_PATHS.topLevel, 'idem-missing-refund', 'missing', undefined, 'refund_create');
      else await rawCreate({ amount: 1 }, REFUND_PATHS.paymentScoped(some), 'idem-missing-refund', 'missing', undefined, 'refund');
    }
  });

  // Let the payments created here settle, so their histories end terminal.
  await pool(ctx, [...created].slice(0, 30), 4, async (id) => {
    const p = await poll(ctx, a, id);
    if (p && !isTerminal(p.status)) ctx.log(`idempotency: ${id} still ${p.status}`);
  });
}

const scenario: Scenario = {
  name: 'idempotency',
  description: 'Idempotency-Key: concurrent same-key creates, replay, different body, error then retry, scope per API key and per operation, merchant_reference, missing and oversized keys',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01'],
  defaultSuite: true,
  run,
};
export default scenario;
