/**
 * Histories from real runs of the clean reference service that the oracle once judged
 * wrongly. A false fail blocks a good release: each case must stay a pass, beside a
 * variant that really breaks the rule, so the fix did not blind the invariant.
 */
import { PRESENTATION_PROBE_DESCRIPTION } from '../../src/spec/index.ts';
import { beforeEach, describe, expect, it } from 'vitest';
import { create, ex, err, judgeOne, list, refundReq, refundObj, resetSeq, retrieve, pay } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000aa';
const cardMeta = { expMonth: 12, expYear: 2039, cvcLength: 3, holderName: 'Ada Lovelace' };

beforeEach(() => resetSeq());

describe('TEST-2 judges refusals over the card details only', () => {
  it('a good test card sent with amount 0 (an idempotency probe) is refused over the amount: not a TEST-2 violation', async () => {
    const r = await judgeOne('sandbox-accepts-card-details', [
      create({ status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { amount: 0, cardOutcome: 'succeeds', cardBrand: 'visa', cardMeta } }),
      create({ id: P, sent: { cardOutcome: 'succeeds', cardBrand: 'visa', cardMeta } }),
    ]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(1);
  });
  it('a refusal naming a card field still fails', async () => {
    const r = await judgeOne('sandbox-accepts-card-details', [
      create({ seq: 5, status: 400, error: err('parameter_invalid', { param: 'payment_method_data.card.exp_year' }), sent: { cardOutcome: 'succeeds', cardBrand: 'visa', cardMeta } }),
    ]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([5]);
  });
});

describe('PAY-10 with a pending refund held back from amount_refundable', () => {
  const A = { presentation: 'A' as const, status: 'succeeded' as const, wireStatus: 'SUCCEEDED', amount: 1000, amountRefunded: 0 };
  it('refundable 700 while a 300 refund is pending and amount_refunded is 0: pass', async () => {
    const r = await judgeOne('amount-refundable-consistent', [
      create({ id: P, p: { ...A, amountRefundable: 1000, refunds: [] } }),
      refundReq(P, { t: 100, r: { amount: 300, status: 'pending' } }),
      retrieve(P, { t: 200, p: { ...A, amountRefundable: 700, refunds: [refundObj({ paymentId: P, amount: 300, status: 'pending' })] } }),
    ]);
    expect(r.status).toBe('pass');
  });
  it('the same with presentation A bodies that carry no refunds array: the accepted refund request is enough', async () => {
    const r = await judgeOne('amount-refundable-consistent', [
      create({ id: P, p: { ...A, amountRefundable: 1000, refunds: null } }),
      refundReq(P, { t: 100, r: { amount: 300, status: 'pending' } }),
      retrieve(P, { t: 200, p: { ...A, amountRefundable: 700, refunds: null } }),
    ]);
    expect(r.status).toBe('pass');
  });
  it('refundable short of the amount with no refund at all still fails, and so does refundable above amount - refunded', async () => {
    const short = await judgeOne('amount-refundable-consistent', [retrieve(P, { seq: 9, p: { ...A, amountRefundable: 700, refunds: [] } })]);
    expect(short.status).toBe('fail');
    const above = await judgeOne('amount-refundable-consistent', [retrieve(P, { p: { ...A, amountRefunded: 300, amountRefundable: 800, refunds: [] } })]);
    expect(above.status).toBe('fail');
  });
});

describe('PAY-3 is not judged on Idempotency-Key probes', () => {
  it('a create without Idempotency-Key answered parameter_missing is IDEM-1\'s, not a missing body field', async () => {
    const probe = ex({ op: 'raw', status: 400, error: err('parameter_missing', { param: 'Idempotency-Key' }), sent: { method: 'POST', path: '/v1/payments', idemVariant: 'missing', badInput: { case: 'create/any/idempotency-key-missing', expectStatus: 400, expectCode: 'parameter_missing', expectParam: null } } });
    const r = await judgeOne('missing-field-named', [probe]);
    expect(r.status).toBe('not-exercised');
  });
});

describe('driver calls are tied to their payment by the redirect path', () => {
  it('a hosted page submitted through a driver that did not record paymentId still counts as completed (PAY-12)', async () => {
    const redirect = 'http://127.0.0.1:4010/sandbox/hpp/abc123';
    const r = await judgeOne('hosted-create-shape', [
      create({ op: 'create_hpp', id: P, p: { status: 'requires_action', wireStatus: 'requires_action', hosted: true, card: null, redirectUrl: redirect, nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: redirect } } }),
      // Submitted on another host (paystorm went through a proxy); only the path is recorded.
      ex({ op: 'submit_hpp', t: 100, status: 303, sent: { method: 'POST', path: '/sandbox/hpp/abc123', cardOutcome: 'succeeds' } }),
      retrieve(P, { t: 300, p: { status: 'succeeded', wireStatus: 'succeeded', hosted: true, redirectUrl: redirect, card: pay().card ?? { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2039 } } }),
    ]);
    expect(r.status).toBe('pass');
  });
});

describe('SM-5 while the issuer\'s answer is still coming', () => {
  const hpp = { status: 'requires_action' as const, wireStatus: 'requires_action', hosted: true, card: null };
  const pageReason = { ...hpp, nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://x/hpp/1' } };
  const threeDsReason = { ...hpp, nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://x/3ds/1' } };
  const submitted = () => [
    create({ op: 'create_hpp', id: P, p: pageReason }),
    ex({ op: 'submit_hpp', status: 303, t: 100, sent: { paymentId: P, cardOutcome: 'three_ds_challenge' } }),
  ];
  it('the hosted-page reason lingering just after the submit, then three_d_secure: pass', async () => {
    const r = await judgeOne('hosted-3ds-stays-requires-action', [...submitted(), retrieve(P, { t: 120, p: pageReason }), retrieve(P, { t: 200, p: threeDsReason })]);
    expect(r.status).toBe('pass');
  });
  it('back to the hosted-page reason after three_d_secure was shown: fail', async () => {
    const r = await judgeOne('hosted-3ds-stays-requires-action', [...submitted(), retrieve(P, { t: 200, p: threeDsReason }), retrieve(P, { seq: 44, t: 300, p: pageReason })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toContain(44);
  });
});

describe('one refund sent on both refund paths under one Idempotency-Key', () => {
  const R1 = 're_00000000000000000000000000000001';
  const R2 = 're_00000000000000000000000000000002';
  const first = () => refundReq(P, { seq: 1, t: 0, idemKey: 'k-cross', sent: { amount: 300 }, r: { id: R1, amount: 300 } });
  const other = (o: Parameters<typeof refundReq>[1]) => refundReq(P, { op: 'refund_create', seq: 2, t: 100, idemKey: 'k-cross', ...o, sent: { amount: 300, ...(o?.sent ?? {}) } });
  const verdicts = async (recs: ReturnType<typeof refundReq>[]) => {
    const out: Record<string, string> = {};
    for (const id of ['idem-replay', 'idem-different-body', 'idem-in-flight', 'idem-single-object', 'refund-idempotency']) out[id] = (await judgeOne(id, recs)).status;
    return out;
  };
  it('replayed, 409 (either code) or 404 on the other path: no violation', async () => {
    for (const answer of [
      { r: { id: R1, amount: 300 } },
      { status: 409, error: err('idempotency_key_reused') },
      { status: 409, error: err('idempotency_key_in_use') },
      { status: 404, error: err('resource_missing') },
    ]) {
      resetSeq();
      const v = await verdicts([first(), other(answer)]);
      expect(Object.values(v).filter((s) => s === 'fail' || s === 'error'), JSON.stringify({ answer, v })).toEqual([]);
    }
  });
  it('a second refund from the other path is still caught', async () => {
    const v = await verdicts([first(), other({ r: { id: R2, amount: 300 } })]);
    expect(v['refund-idempotency']).toBe('fail');
  });
});

describe('FT-3 and payments made before the run', () => {
  it("does not count a payment created in the run's first second that no create answered with (the presentation probe's, made just before the run)", async () => {
    const start = 1_700_000_000; // RUN_WALL in seconds
    const probe = 'pay_probe';
    const r = await judgeOne('retry-no-double-charge', [create({ idemKey: 'k', status: 0 }), create({ idemKey: 'k', id: 'pay_a', t: 100, attempt: 1 }), list(['pay_a', probe], { t: 300, created: [start + 1, start] })]);
    expect(r.violations).toBe(0);
  });
  it("does not count the presentation probe's payment made after the run's clock started, in a later second (known by its description); a payment of another description still fails", async () => {
    const start = 1_700_000_000;
    const history = (description: string) => [
      create({ idemKey: 'k', status: 0 }),
      create({ idemKey: 'k', id: 'pay_a', t: 100, attempt: 1 }),
      list(['pay_a', 'pay_x'], { t: 300, created: [start + 1, start + 1], descriptions: [null, description] }),
    ];
    // A remote run failed so at random (test/cli/remote-chaos.test.ts): the probe ran 0.24 s after the clock's start, in the next second.
    expect((await judgeOne('retry-no-double-charge', history(PRESENTATION_PROBE_DESCRIPTION))).violations).toBe(0);
    expect((await judgeOne('retry-no-double-charge', history('paystorm chaos client-retry'))).violations).toBe(1);
  });
  it("does not count a payment the run record names as the presentation probe's, though the list shows no description; another unknown payment still fails", async () => {
    const start = 1_700_000_000;
    const history = [
      create({ idemKey: 'k', status: 0 }),
      create({ idemKey: 'k', id: 'pay_a', t: 100, attempt: 1 }),
      list(['pay_a', 'pay_x'], { t: 300, created: [start + 1, start + 1] }),
    ];
    const named = (ids: string[]) => ({ target: { url: 'http://127.0.0.1:1', embedded: false, presentation: 'B' as const, probePayments: ids } });
    expect((await judgeOne('retry-no-double-charge', history, named(['pay_x']))).violations).toBe(0);
    expect((await judgeOne('retry-no-double-charge', history, named(['pay_other']))).violations).toBe(1);
  });
});
