// hosted-create-shape (PAY-12), hosted-test-cards (TEST-3) and status-transitions (SM-1: when a
// customer acted on a payment) kept Sets and Maps by hosted payment id to the end: they grew with
// every hosted payment of a soak. They now keep what they know of a payment by its row, in paged columns, and evidence only where it may be named. This compares
// each, on random hosted flows, with the check it replaced (kept as it was in test/oracle/replaced/):
// the same status, count, checks and evidence, with pages of two rows so that nearly every read
// goes through the scratch files.
import { describe, expect, it } from 'vitest';
import type { ExchangeRecord, HistoryRecord, WebhookRecord } from '../../src/history/index.ts';
import { seededRandom } from '../../src/spec/random.ts';
import type { CanonicalPayment } from '../../src/spec/index.ts';
import createShape from '../../src/oracle/invariants/hosted-create-shape.ts';
import testCards from '../../src/oracle/invariants/hosted-test-cards.ts';
import replacedCreateShape from './replaced/hosted-create-shape.ts';
import replacedTestCards from './replaced/hosted-test-cards.ts';
import statusTransitions from '../../src/oracle/invariants/status-transitions.ts';
import replacedStatusTransitions from './replaced/status-transitions.ts';
import { expectJudgedAsReplaced, judgeWith } from './replaced/compare.ts';
import { K, create, ex, fault, pay, resetSeq, retrieve, runRec, webhook, withPagesOnDisk } from './fixtures.ts';

const OUTCOMES = ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge', 'upstream_error'] as const;
const ENDINGS: Partial<CanonicalPayment>[] = [
  { status: 'succeeded' },
  { status: 'failed', failureCode: 'do_not_honor' },
  { status: 'failed', failureCode: 'insufficient_funds' },
  { status: 'failed', failureCode: 'three_d_secure_timeout' },
  { status: 'expired' },
  { status: 'canceled' },
  { status: 'requires_action', nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds' } },
  { status: 'pending' },
];

/**
 * Hosted payments in presentation A and B (a few Direct API and live ones among them), a few
 * created badly, submitted once, twice or never with any card, some for a payment whose create
 * was not recorded, looked at by polls and webhooks with a card or none, a few faults; in
 * completion order, or now and then shuffled.
 */
function history(seed: number): HistoryRecord[] {
  const r = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  resetSeq();
  const out: (ExchangeRecord | WebhookRecord)[] = [];
  const payments = 3 + Math.floor(r() * 8);
  for (let n = 0; n < payments; n++) {
    const id = `pay_${seed}_${n}`;
    const presentation = r() < 0.6 ? 'B' : 'A';
    const hosted = r() < 0.9;
    const live = r() < 0.1;
    const key = live ? K.live : K.test;
    const t0 = Math.floor(r() * 60);
    const outcome = pick(OUTCOMES);
    const card = { last4: '4242', brand: 'visa' } as unknown as CanonicalPayment['card'];
    const shown = (p: Partial<CanonicalPayment>, withCard: boolean): Partial<CanonicalPayment> => ({ presentation, hosted, livemode: live, card: withCard ? card : null, ...p });
    // A create the history lacks (the submit names a payment the ledger never saw answered).
    if (r() < 0.9) {
      const bad = r() < 0.1;
      out.push(
        create({
          op: hosted ? 'create_hpp' : 'create',
          id,
          key,
          t: t0,
          status: bad && r() < 0.5 ? 200 : 201,
          p: shown({ status: 'requires_action', nextAction: bad ? { type: 'redirect', reason: null, redirectUrl: '' } : { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } }, bad && r() < 0.5),
        }),
      );
    }
    const submits = r() < 0.15 ? 0 : r() < 0.8 ? 1 : 2;
    let submittedAt = Infinity;
    for (let k = 0; k < submits; k++) {
      const t = t0 + 15 + Math.floor(r() * 40);
      submittedAt = Math.min(submittedAt, t);
      out.push(ex({ op: 'submit_hpp', key, status: pick([303, 303, 200, 400, 0]), t, dur: 1 + Math.floor(r() * 20), sent: { paymentId: id, cardOutcome: r() < 0.9 ? pick(OUTCOMES) : undefined } }));
    }
    const ending = outcome === 'three_ds_challenge' && r() < 0.5 ? ENDINGS[6] : pick(ENDINGS);
    const looks = Math.floor(r() * 7);
    for (let k = 0; k < looks; k++) {
      const t = t0 + 5 * Math.floor(r() * 20);
      const after = t > submittedAt;
      // Before the form: requires_action, card null (now and then a card: a violation in B).
      const p = after ? shown(ending, r() < 0.9) : shown({ status: 'requires_action', nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } }, r() < 0.1);
      out.push(retrieve(id, { key, t, dur: 1 + Math.floor(r() * 25), p }));
    }
    if (r() < 0.5) {
      const tReceived = t0 + 10 + Math.floor(r() * 80);
      out.push(webhook({ tReceived, type: 'payment.succeeded', livemode: live, payment: pay({ id, ...shown({ status: 'succeeded' }, r() < 0.9) }) }));
    }
    if (r() < 0.3) out.push(ex({ op: 'complete_3ds', key, status: 303, t: t0 + 30 + Math.floor(r() * 60), sent: { paymentId: id, threeDsResult: 'success' } }));
  }
  const at = (x: ExchangeRecord | WebhookRecord) => (x.kind === 'exchange' ? x.tEnd : x.tReceived);
  out.sort((a, b) => at(a) - at(b) || a.seq - b.seq);
  // Now and then out of completion order: a few records moved.
  if (r() < 0.3) {
    for (let k = 0; k < 3; k++) {
      const i = Math.floor(r() * out.length);
      const j = Math.floor(r() * out.length);
      [out[i], out[j]] = [out[j], out[i]];
    }
  }
  const faults = r() < 0.3 ? [fault({ tStart: Math.floor(r() * 80), tEnd: 80 + Math.floor(r() * 40) })] : [];
  return [runRec(), ...faults, ...out];
}


describe.each([
  { id: 'hosted-create-shape', now: createShape, was: replacedCreateShape, fails: 20 },
  { id: 'hosted-test-cards', now: testCards, was: replacedTestCards, fails: 20 },
  // Moves out of requires_action are allowed once the customer acted: most flows pass.
  { id: 'status-transitions', now: statusTransitions, was: replacedStatusTransitions, fails: 5 },
])('$id, kept by payment row', ({ now, was, fails }) => {
  it('judges random hosted flows as the check it replaced did', async () => {
    const tally = await expectJudgedAsReplaced(now, was, history);
    // The flows reach both verdicts often.
    expect(tally.fail).toBeGreaterThan(fails);
    expect(tally.pass).toBeGreaterThan(20);
  }, 120_000);
});

describe('hosted checks by payment row: what random flows seldom reach', () => {
  const card = { last4: '4242', brand: 'visa' } as unknown as CanonicalPayment['card'];
  const hpp = { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp' } as const;

  it('hosted-create-shape names violations in the order the payments first showed a card, whenever their evidence was kept', async () => {
    resetSeq();
    const b = (id: string, t: number, withCard: boolean) => retrieve(id, { t, dur: 5, p: { presentation: 'B', hosted: true, status: withCard ? 'succeeded' : 'requires_action', card: withCard ? card : null } });
    const records: HistoryRecord[] = [
      runRec(),
      create({ op: 'create_hpp', id: 'pay_x', t: 0, p: { presentation: 'B', hosted: true, status: 'requires_action', card: null, nextAction: hpp } }),
      create({ op: 'create_hpp', id: 'pay_y', t: 0, p: { presentation: 'B', hosted: true, status: 'requires_action', card: null, nextAction: hpp } }),
      ex({ op: 'submit_hpp', status: 303, t: 20, sent: { paymentId: 'pay_x', cardOutcome: 'succeeds' } }),
      // pay_x shows its card after its form: nothing kept, but it was seen with a card first.
      b('pay_x', 40, true),
      // pay_y shows a card and is never submitted; then a late record of pay_x before its form.
      b('pay_y', 50, true),
      b('pay_x', 5, true),
    ];
    const want = await judgeWith(replacedCreateShape, records);
    const got = await withPagesOnDisk(() => judgeWith(createShape, records));
    expect(got).toEqual(want);
    expect(got.examples.map((e) => e.paymentIds)).toEqual([['pay_x'], ['pay_y']]);
  });

  it('hosted-test-cards counts a challenge completed before the payment had a row', async () => {
    resetSeq();
    const records: HistoryRecord[] = [
      runRec(),
      // No create recorded: the completion names a payment the ledger has not seen yet.
      ex({ op: 'complete_3ds', status: 303, t: 0, dur: 1, sent: { paymentId: 'pay_z', threeDsResult: 'success' } }),
      retrieve('pay_z', { t: 2, dur: 1, p: { presentation: 'B', hosted: true, status: 'requires_action', card: null, nextAction: hpp } }),
      ex({ op: 'submit_hpp', status: 303, t: 10, dur: 2, sent: { paymentId: 'pay_z', cardOutcome: 'three_ds_challenge' } }),
      retrieve('pay_z', { t: 30, dur: 1, p: { presentation: 'B', hosted: true, status: 'succeeded', card } }),
    ];
    const want = await judgeWith(replacedTestCards, records);
    const got = await withPagesOnDisk(() => judgeWith(testCards, records));
    expect(got).toEqual(want);
    expect(got).toMatchObject({ status: 'pass', checked: 1, violations: 0 });
  });
});
