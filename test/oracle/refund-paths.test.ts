/**
 * Refunds judged on served paths alone, and from the payment's own fields: a service may serve
 * one refund path (the other 404/405) and answer a refund with a Refund, the Payment or a minimal
 * object without `amount` (src/oracle/lib/refund-paths.ts, refund-path-served, REF-1/4/5, ERR-2, SEC-1).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { K, create, err, judgeOne, pay, refundObj, refundReq, resetSeq, retrieve, runRec } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-000000000001';
const H = 'pay_00000000-0000-4000-8000-0000000000aa';
const succeeded = (t: number, o: object = {}, seq?: number) => retrieve(P, { t, ...(seq ? { seq } : {}), p: { status: 'succeeded', ...o } });
/** The discovery: a hosted payment refunded on each path, `payment` answering 422 and `refunds` answering `status`. */
const discovery = (status: number, t = 10) => [
  create({ id: H, t, op: 'create_hpp', p: { status: 'requires_action', hosted: true } }),
  refundReq(H, { t: t + 20, group: 'refund-path-discovery', status: 422, error: err('action_not_allowed', { message: 'Refund validation failed [payment_not_succeeded]: x' }) }),
  refundReq(H, { t: t + 40, group: 'refund-path-discovery', op: 'refund_create', status, error: err('resource_missing') }),
  retrieve(H, { t: t + 60, p: { status: 'requires_action', hosted: true } }),
];

beforeEach(() => resetSeq());

describe('refund path served', () => {
  it('an unserved POST /v1/refunds (405 with a 404 code) breaks neither ERR-2 nor REF-5, and the finding names it', async () => {
    const recs: HistoryRecord[] = [runRec(), ...discovery(405), create({ id: P, t: 100 }), succeeded(200), refundReq(P, { t: 300, r: { id: 're_1' } })];
    const { invariants, findings } = await judge(recs, { only: ['error-code-table', 'refund-requires-succeeded', 'refund-accepted', 'refund-path-served'] });
    for (const inv of invariants) expect(inv.status, `${inv.id}: ${inv.examples[0]?.message}`).toBe('pass');
    const f = findings.find((x) => x.id === 'refund-path');
    expect(f?.text).toMatch(/serves POST \/v1\/payments\/\{id\}\/refund; POST \/v1\/refunds answered 405/);
  });

  it('the same 405 on a path that also accepted refunds is judged (ERR-2) and the path counts as served', async () => {
    const recs: HistoryRecord[] = [runRec(), ...discovery(405), create({ id: P, t: 100 }), succeeded(200), refundReq(P, { t: 300, op: 'refund_create', r: { id: 're_1' } })];
    const r = await judgeOne('error-code-table', recs);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toMatch(/405/);
    const { findings } = await judge(recs, { only: ['refund-path-served'] });
    expect(findings.find((x) => x.id === 'refund-path')?.text).toMatch(/serves POST \/v1\/payments\/\{id\}\/refund and POST \/v1\/refunds/);
  });

  it('REF-5 still judges the served path: a refund of a hosted payment accepted there fails', async () => {
    const recs: HistoryRecord[] = [runRec(), ...discovery(404)];
    (recs[2] as { status: number; error: unknown; refund: unknown }).status = 201;
    (recs[2] as { error: unknown }).error = null;
    (recs[2] as { refund: unknown }).refund = refundObj({ id: 're_h', paymentId: H });
    const r = await judgeOne('refund-requires-succeeded', [...recs.slice(1), retrieve(H, { t: 500, p: { status: 'requires_action', hosted: true } })]);
    expect(r.status).toBe('fail');
  });

  it('a 404 from another merchant on an unserved path is not an isolation check; on a served path it is', async () => {
    const foreign = (op: 'refund' | 'refund_create', status: number) => refundReq(P, { t: 300, key: K.other, op, status, error: err('resource_missing') });
    const unservedRun = await judgeOne('merchant-isolation', [...discovery(405), create({ id: P, t: 100 }), foreign('refund_create', 405)]);
    expect(unservedRun.status).toBe('not-exercised');
    const servedRun = await judgeOne('merchant-isolation', [...discovery(405), create({ id: P, t: 100 }), foreign('refund', 200)]);
    expect(servedRun.status).toBe('fail');
  });

  it('REF-7 skips the cross-path replay check when one path is not served', async () => {
    const k = 'idem-cross';
    const recs = (status: number) => [
      ...discovery(status),
      create({ id: P, t: 100 }),
      succeeded(200),
      refundReq(P, { t: 300, idemKey: k, sent: { amount: 300 }, r: { id: 're_1', amount: 300 } }),
      refundReq(P, { t: 400, idemKey: k, op: 'refund_create', sent: { amount: 300 }, r: { id: 're_2', amount: 300 } }),
    ];
    // Both served (the discovery's 422 on /v1/refunds): a second refund under one key is a violation.
    expect((await judgeOne('refund-idempotency', recs(422))).status).toBe('fail');
    // With /v1/refunds not served (404 for own payments, nothing else), the same key sent there is not a failed replay.
    const onlyPayment = [
      ...discovery(404),
      create({ id: P, t: 100 }),
      succeeded(200),
      refundReq(P, { t: 300, idemKey: k, sent: { amount: 300 }, r: { id: 're_1', amount: 300 } }),
      refundReq(P, { t: 400, idemKey: k, op: 'refund_create', sent: { amount: 300 }, ...{ status: 404, error: err('resource_missing') } }),
    ];
    const r = await judgeOne('refund-idempotency', onlyPayment);
    expect(r.status, r.examples[0]?.message).not.toBe('fail');
  });
});

describe('refunds judged from the payment, not the refund answer', () => {
  it('a refund answered with the Payment is accepted; the payment fetched afterwards must list it', async () => {
    const asPayment = (seq: number) =>
      refundReq(P, { seq, t: 300, refund: null, payment: pay({ id: P, status: 'succeeded', refunds: [refundObj({ id: 're_1', amount: 100 })] }) });
    const keeps = await judgeOne('refund-accepted', [create({ id: P }), succeeded(100), asPayment(3), succeeded(500, { refunds: [refundObj({ id: 're_1', status: 'succeeded' })], amountRefunded: 100 })]);
    expect(keeps.status, keeps.examples[0]?.message).toBe('pass');
    resetSeq();
    const lost = await judgeOne('refund-accepted', [create({ id: P }), succeeded(100), asPayment(3), succeeded(500, { refunds: [] }, 4)]);
    expect(lost.status).toBe('fail');
    expect(lost.examples[0].message).toMatch(/lists 0 refund\(s\) after 1 refund requests/);
  });

  it('a minimal answer without amount gives no NaN: REF-4 uses the refunded total the payment showed', async () => {
    const minimal = { r: { id: 're_1', amount: null } };
    const base = [
      create({ id: P }),
      succeeded(100),
      refundReq(P, { t: 200, sent: { amount: 600 }, ...minimal }),
      // The refunds list does not show amounts either; the total does.
      succeeded(400, { amountRefunded: 600, refunds: [refundObj({ id: 're_1', amount: null, status: 'succeeded' })] }),
    ];
    const ok = await judgeOne('over-refund-refused', [...base, refundReq(P, { t: 500, sent: { amount: 400 }, r: { id: 're_2', amount: null } })]);
    expect(ok.status).not.toBe('fail');
    resetSeq();
    const over = await judgeOne('over-refund-refused', [...base, refundReq(P, { seq: 9, t: 500, sent: { amount: 401 }, r: { id: 're_2', amount: null } })]);
    expect(over.status).toBe('fail');
    expect(over.examples[0].message).toMatch(/refund of 401 accepted though at most 400 of 1000 remained/);
    for (const id of ['refunded-amount-sum', 'refunds-within-amount', 'refund-accepted']) {
      resetSeq();
      const r = await judgeOne(id, base);
      expect(r.status, `${id}: ${r.examples[0]?.message}`).not.toBe('fail');
      expect(JSON.stringify(r)).not.toMatch(/NaN/);
    }
  });
});
