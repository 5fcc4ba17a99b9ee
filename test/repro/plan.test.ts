/**
 * Repro plans and scripts from hand-made history records: overlapping requests become one
 * concurrent block, a refund's payment is created and settled first, keys / cards / recorded
 * Idempotency-Keys / nonces become placeholders, and the bash quoting survives quotes.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { buildPlan, type ViolationRef } from '../../src/repro/plan.ts';
import { bashWord, renderBash } from '../../src/repro/script.ts';
import type { ExchangeRecord } from '../../src/history/index.ts';
import { exchangeRecord } from '../history-file.ts';

const KEY = 'acme/test/…b605';
function rec(p: Partial<ExchangeRecord> & Pick<ExchangeRecord, 'seq' | 'op' | 'tStart' | 'tEnd' | 'status'>): ExchangeRecord {
  return exchangeRecord({ key: KEY, ...p });
}
const payment = (id: string, status: string) => ({ id, status, presentation: 'B', refunds: [] }) as unknown as ExchangeRecord['payment'];
const violation = (id: string, seqs: number[]): ViolationRef => ({ invariant: { id, title: 't', rules: ['R-1'] }, n: 1, evidence: { message: "it's wrong", seqs } });
const createSent = { amount: 500, currency: 'EUR', description: 'race 6a0857e1-00ec-4cd6-873c-cd60e7901971', cardLast4: '4242', cardOutcome: 'succeeds' as const, cardMeta: { expMonth: 1, expYear: 2031, cvcLength: 3, holderName: "O'Brien" }, inputShape: 'B' as const };

describe('repro plans', () => {
  it('overlapping same-key creates are one concurrent block with one fresh key; card and nonce are placeholders', () => {
    const ev = [0, 1, 2].map((i) => rec({ seq: 10 + i, op: 'create', tStart: 100 + i, tEnd: 150 + i, status: 201, idemKey: 'ps-race-1', sent: createSent, payment: payment(`pay_${i}`, 'pending') }));
    const plan = buildPlan(violation('idem-single-object', [10, 11, 12]), ev, [], new Map());
    expect(plan.concurrent).toBe(true);
    expect(plan.stages[0].kind).toBe('concurrent');
    expect(plan.idems).toEqual([{ name: 'IDEM_1', length: 'ps-race-1'.length }]);
    expect(plan.cards).toEqual(['succeeds']);
    expect(plan.checks.map((c) => c.kind)).toEqual(['one-payment']);
    const script = renderBash(plan);
    expect(script).not.toContain('ps-race-1');
    expect(script).not.toContain('6a0857e1-00ec-4cd6-873c-cd60e7901971');
    expect(script).toContain('"$CARD_SUCCEEDS"');
    expect(script).toContain('"$NONCE_1"');
    expect(script.match(/^req .* &$/gm)).toHaveLength(3);
    expect(script).toContain('# Concurrency:');
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
  });

  it('sequential requests stay sequential; a refund gets its payment created and settled first', () => {
    const create = rec({ seq: 1, op: 'create', tStart: 10, tEnd: 20, status: 201, idemKey: 'k1', sent: createSent, payment: payment('pay_a', 'pending') });
    const seen = rec({ seq: 2, op: 'retrieve', tStart: 30, tEnd: 31, status: 200, sent: { paymentId: 'pay_a' }, payment: payment('pay_a', 'succeeded') });
    const refund = rec({ seq: 3, op: 'refund', tStart: 40, tEnd: 41, status: 400, idemKey: 'k2', sent: { paymentId: 'pay_a', amount: 600 }, error: { type: 'invalid_request_error', code: 'parameter_invalid', message: '', param: 'amount', decline_code: null, doc_url: null, request_id: 'req_1', missing: [] } });
    const plan = buildPlan(violation('over-refund-refused', [3]), [refund], [create], new Map([['pay_a', seen.payment!.status]]));
    expect(plan.concurrent).toBe(false);
    expect(plan.stages.map((s) => s.kind)).toEqual(['request', 'wait', 'request', 'wait', 'request']);
    const [first, wait, ref] = plan.stages;
    expect(first.kind === 'request' && first.request.captures).toBe('PAY_1');
    expect(wait.kind === 'wait' && wait.wait.until).toEqual(['succeeded']);
    expect(ref.kind === 'request' && ref.request.path).toBe('/v1/payments/{{PAY_1}}/refund');
    expect(ref.kind === 'request' && ref.request.body).toBe('{"amount":600}');
    expect(plan.checks).toEqual([expect.objectContaining({ kind: 'status', seq: 3, expectStatus: [422], expectCode: 'action_not_allowed' })]);
    expect(spawnSync('bash', ['-n'], { input: renderBash(plan) }).status).toBe(0);
  });

  it('refunds that overlapped before the evidence (a REF-3 race) are fired at once, and the script checks the refunded total', () => {
    const create = rec({ seq: 1, op: 'create', tStart: 10, tEnd: 20, status: 201, idemKey: 'k1', sent: createSent, payment: payment('pay_a', 'pending') });
    const refunds = [0, 1].map((i) => rec({ seq: 2 + i, op: 'refund', tStart: 30 + i, tEnd: 40 + i, status: 201, idemKey: `r${i}`, sent: { paymentId: 'pay_a', amount: 400 } }));
    const seen = rec({ seq: 9, op: 'retrieve', tStart: 50, tEnd: 51, status: 200, sent: { paymentId: 'pay_a' }, payment: payment('pay_a', 'succeeded') });
    const plan = buildPlan(violation('refunds-within-amount', [9]), [seen], [create, ...refunds], new Map([['pay_a', 'succeeded']]));
    expect(plan.stages.map((s) => s.kind)).toEqual(['request', 'wait', 'concurrent', 'wait', 'request', 'request']);
    expect(plan.checks).toEqual([expect.objectContaining({ kind: 'refunded-within', pay: 'PAY_1' })]);
    const script = renderBash(plan);
    expect(script).toContain("check_refunded_within after_PAY_1 ");
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
  });

  it('a bad-input probe is rebuilt from its catalog case, and an unknown case is reported as not rebuilt', () => {
    const bad = rec({ seq: 5, op: 'create', tStart: 1, tEnd: 2, status: 201, idemKey: 'k', sent: { method: 'POST', path: '/v1/payments', auth: 'ok', inputShape: 'B', badInput: { case: 'create/B/amount-zero', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount', rule: 'PAY-2' } } });
    const plan = buildPlan(violation('amount-minimum', [5]), [bad], [], new Map());
    const st = plan.stages[0];
    expect(st.kind === 'request' && JSON.parse(st.request.body!.replace('{{CARD_SUCCEEDS}}', '4')).amount).toBe(0);
    expect(plan.checks[0]).toMatchObject({ kind: 'status', expectStatus: [400], expectCode: 'parameter_invalid' });
    const unknown = rec({ ...bad, seq: 6, sent: { ...bad.sent, badInput: { ...bad.sent.badInput!, case: 'made/up' } } });
    const p2 = buildPlan(violation('amount-minimum', [6]), [unknown], [], new Map());
    expect(p2.stages).toHaveLength(0);
    expect(p2.notes[0]).toContain('made/up');
  });

  it('a window-count rate rule spends the window first, sized from the target, and expects a 429 among the evidence', () => {
    const ev = [1, 2].map((i) => rec({ seq: i, op: 'list', tStart: i * 10, tEnd: i * 10 + 1, status: 200, sent: { list: { limit: 1 } } }));
    const plan = buildPlan({ invariant: { id: 'rate-remaining', title: 't', rules: ['RL-5'] }, n: 1, evidence: { message: 'm', seqs: [1, 2] } }, ev, [], new Map(), { rateLimit: { limit: 120, windowMs: 3000 } });
    expect(plan.stages[0]).toEqual({ kind: 'fill', fill: { key: 0, evidence: 2, limit: 120 } });
    expect(plan.checks).toEqual([expect.objectContaining({ kind: 'not-all-admitted', seqs: [1, 2] })]);
    const script = renderBash(plan);
    expect(script).toContain('fill_window "Bearer $PAYSTORM_KEY" 2 || exit 2');
    expect(spawnSync('bash', ['-n'], { input: script }).status).toBe(0);
    // Without a known limit there is nothing to size the window by: no fill.
    expect(buildPlan({ invariant: { id: 'rate-remaining', title: 't', rules: ['RL-5'] }, n: 1, evidence: { message: 'm', seqs: [1, 2] } }, ev, [], new Map()).stages.some((s) => s.kind === 'fill')).toBe(false);
  });

  it('an example naming many requests keeps its first ones, and says so', () => {
    const ev = Array.from({ length: 60 }, (_, i) => rec({ seq: i + 1, op: 'list', tStart: i * 10, tEnd: i * 10 + 1, status: 200, sent: { list: { limit: 1 } } }));
    const plan = buildPlan(violation('list-envelope', ev.map((r) => r.seq)), ev, [], new Map());
    expect(plan.stages.filter((s) => s.kind === 'request')).toHaveLength(40);
    expect(plan.notes).toContain('the evidence names 60 requests; the first 40 are sent');
  });

  it('bashWord: literal text single-quoted (quotes survive), placeholders as variables', () => {
    const out = spawnSync('bash', ['-c', `PAY_1=pay_x; PAYSTORM_KEY=k; printf '%s' ${bashWord(`{"a":"it's {{PAY_1}}","k":"{{KEY_1}}"}`)}`]).stdout.toString();
    expect(out).toBe(`{"a":"it's pay_x","k":"k"}`);
  });
});
