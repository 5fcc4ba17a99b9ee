/**
 * The checks judged once the fault windows are known (FT-4 fault-responses-well-formed, FT-5
 * behaviour-under-faults, PAY-7's server-error pattern in decline-not-http-error) keep per record
 * only what can still matter: spans as numbers, the ledger's own note of a create under its
 * Idempotency-Key, a clock-slack column only once a create had one, evidence instead of whole
 * records. These pin the verdicts and examples those compact notes must still give.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, ex, fault, judgeOne, rate, resetSeq, retrieve } from './fixtures.ts';

beforeEach(() => resetSeq());

const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
const succeeded = { status: 'succeeded' as const, card };
const payId = (n: number) => `pay_00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** `down` from 1000 to 9100, surely acting from 1050 until removal was asked at 9000. */
const down = () => fault({ tStart: 1000, tEnd: 9100, tApplied: 1050, tRemoving: 9000 });

describe('FT-4 fail-open: the notes of creates answered 201 pending', () => {
  const ID = 'fault-responses-well-formed';

  it('a clock slack that appears mid-run lines up with its own create, not a neighbour', async () => {
    const r = await judgeOne(ID, [
      down(),
      // No slack, sent before the fault surely acted: excused.
      create({ seq: 1, id: payId(1), t: 1000, idemKey: 'k-1' }),
      // Sent at 1100 with 300 ms slack: may have been sent before tApplied, excused.
      create({ seq: 2, id: payId(2), t: 1100, idemKey: 'k-2', clockSlackMs: 300 }),
      // No slack, inside the sure window: fails open.
      create({ seq: 3, id: payId(3), t: 2000, idemKey: 'k-3' }),
      ...[1, 2, 3].map((n) => retrieve(payId(n), { seq: 10 + n, t: 3000 + n, p: succeeded })),
    ]);
    expect(r.violations).toBe(1);
    expect(r.examples[0].paymentIds).toEqual([payId(3)]);
    expect(r.examples[0].seqs).toEqual([3, 13]);
  });

  it('a slack-free create after slacked ones is judged without slack', async () => {
    const r = await judgeOne(ID, [
      down(),
      create({ seq: 1, id: payId(1), t: 2000, idemKey: 'k-1', clockSlackMs: 5 }),
      create({ seq: 2, id: payId(2), t: 1052, idemKey: 'k-2' }),
      retrieve(payId(1), { seq: 11, t: 3000, p: succeeded }),
      retrieve(payId(2), { seq: 12, t: 3000, p: succeeded }),
    ]);
    // 1052 - 5 would be before tApplied (1050); without slack it is inside the sure window.
    expect(r.violations).toBe(2);
    expect(r.examples.map((e) => e.paymentIds)).toEqual([[payId(1)], [payId(2)]]);
  });

  it('a create sent without an Idempotency-Key is judged from its own note', async () => {
    const r = await judgeOne(ID, [down(), create({ seq: 4, id: payId(4), t: 2000, idemKey: undefined, key: 'm1/test/…bbbb' }), retrieve(payId(4), { seq: 5, t: 3000, p: succeeded })]);
    expect(r.violations).toBe(1);
    expect(r.examples[0]).toMatchObject({ seqs: [4, 5], times: [2000, 3010], keys: ['m1/test/…bbbb'], paymentIds: [payId(4)] });
  });

  it('a payment seen waiting on 3DS at its create is not judged, but its create still counts as checked', async () => {
    const r = await judgeOne(ID, [
      down(),
      create({ seq: 1, id: payId(1), t: 2000, p: { status: 'requires_action', nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://acs.example/x' } } }),
      retrieve(payId(1), { seq: 2, t: 3000, p: succeeded }),
    ]);
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(1);
  });
});

describe('FT-4: what a create answered during a fault says, kept as a note', () => {
  const ID = 'fault-responses-well-formed';

  it('full 503s and hosted creates settled at once are checked and never wrong; the wrong ones are reported in record order', async () => {
    const r = await judgeOne(ID, [
      down(),
      create({ seq: 1, t: 2000, status: 503, error: err('service_unavailable') }),
      create({ seq: 2, op: 'create_hpp', id: payId(2), t: 2100, p: succeeded }),
      create({ seq: 3, id: payId(3), t: 2200, p: succeeded }),
      create({ seq: 4, t: 2300, status: 500, error: err('internal_error') }),
      create({ seq: 5, t: 2400, status: 0, failure: 'reset' }),
      create({ seq: 6, t: 2500, status: 503, error: err('service_unavailable', { missing: ['doc_url'] }) }),
      create({ seq: 7, t: 2600, status: 0, failure: 'timeout' }),
      create({ seq: 8, t: 20_000, status: 500, error: err('internal_error') }),
    ]);
    expect(r.checked).toBe(7);
    expect(r.violations).toBe(4);
    expect(r.examples.map((e) => [e.seqs, e.message])).toEqual([
      [[3], 'create during upstream fault "down" (down): answered succeeded synchronously while the upstream was down'],
      [[4], 'create during upstream fault "down" (down): answered 500 internal_error (expected 201 pending or a full 503 service_unavailable)'],
      [[5], 'create during upstream fault "down" (down): the connection ended without an answer (reset)'],
      [[6], 'create during upstream fault "down" (down): answered 503 service_unavailable (expected 201 pending or a full 503 service_unavailable)'],
    ]);
  });
});

describe('PAY-7 server-error pattern: the example names every decline answered 5xx outside faults', () => {
  it('keeps the request ids, keys, Idempotency-Keys and the first three bodies of all of them', async () => {
    const ok = (t: number, n: number) => create({ t, id: payId(n), sent: { cardOutcome: 'succeeds' } });
    const declined = (seq: number, t: number, key = 'm1/test/…aaaa') =>
      ex({ seq, t, key, op: 'create', status: 500, error: err('internal_error', { request_id: `req_${seq}` }), idemKey: `idem-d${seq}`, bodySnippet: `{"error":${seq}}`, sent: { amount: 1000, currency: 'EUR', cardOutcome: 'do_not_honor' } });
    const r = await judgeOne('decline-not-http-error', [
      ok(10, 1),
      ok(20, 2),
      fault({ tStart: 140, tEnd: 160 }),
      declined(41, 100),
      declined(42, 150),
      declined(43, 200, 'm1/test/…bbbb'),
      declined(44, 250),
      declined(45, 300),
    ]);
    expect(r.violations).toBe(1);
    expect(r.examples[0]).toMatchObject({
      requestIds: ['req_41', 'req_43', 'req_44', 'req_45'],
      seqs: [41, 43, 44, 45],
      times: [100, 200, 250, 300],
      keys: ['m1/test/…aaaa', 'm1/test/…bbbb'],
      idemKeys: ['idem-d41', 'idem-d43', 'idem-d44', 'idem-d45'],
      bodies: ['{"error":41}', '{"error":43}', '{"error":44}'],
    });
    expect(r.examples[0].message).toMatch(/^4 of the 4 test-mode creates with a decline card outside faults were answered 5xx \(500 "internal_error", .* while 2 of 2 other/);
  });
});

describe('FT-5: a wrong answer during a fault keeps its evidence', () => {
  it('names the request as the whole record did', async () => {
    const r = await judgeOne('behaviour-under-faults', [
      fault({ tStart: 0, tEnd: 1000 }),
      retrieve(payId(1), { seq: 1, t: 100, rate: rate(1_700_000_060, 3) }),
      ex({ seq: 2, t: 200, op: 'raw', status: 503, error: err('service_unavailable', { request_id: 'req_probe' }), bodySnippet: '{"error":"down"}', idemKey: 'idem-probe', sent: { auth: 'unknown-key', paymentId: payId(9) } }),
      ex({ seq: 3, t: 5000, op: 'raw', status: 503, error: err('service_unavailable'), sent: { auth: 'unknown-key' } }),
    ]);
    expect(r.checked).toBe(2);
    expect(r.violations).toBe(1);
    expect(r.examples).toEqual([
      {
        message: 'during an upstream fault: auth probe "unknown-key" answered 503 "service_unavailable"',
        requestIds: ['req_probe'],
        seqs: [2],
        times: [200],
        keys: ['m1/test/…aaaa'],
        idemKeys: ['idem-probe'],
        paymentIds: [payId(9)],
        bodies: ['{"error":"down"}'],
      },
    ]);
  });
});
