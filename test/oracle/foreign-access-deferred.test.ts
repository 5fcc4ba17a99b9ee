/**
 * Requests for a payment whose create is later in the history (SEC-1, AUTH-8): kept until the end
 * and judged once the owner is known. A 404 resource_missing is kept as a small note that can
 * only count as a check; an answer that says nothing about isolation is not kept at all.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { K, create, err, judgeOne, resetSeq, retrieve, runRec } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000d1';
const ownersCreateLast = (answer: ReturnType<typeof retrieve>) => [runRec(), answer, create({ key: K.other, id: P, t: 50 })];

beforeEach(() => resetSeq());

describe('foreign reads answered before the create is recorded', () => {
  it('a 404 resource_missing counts as one isolation check and passes', async () => {
    const r = await judgeOne('merchant-isolation', ownersCreateLast(retrieve(P, { t: 100, status: 404, error: err('resource_missing') })));
    expect(r.status).toBe('pass');
    expect(r.checked).toBe(1);
  });

  it('a 200 with the payment is a violation with its seq', async () => {
    const r = await judgeOne('merchant-isolation', ownersCreateLast(retrieve(P, { seq: 7, t: 100 })));
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toContain(7);
  });

  it('a 500 says nothing about isolation: not a check', async () => {
    const r = await judgeOne('merchant-isolation', ownersCreateLast(retrieve(P, { t: 100, status: 500, error: err('api_error') })));
    expect(r.status).toBe('not-exercised');
  });

  it('a 404 for a payment no create ever showed is not a check', async () => {
    const r = await judgeOne('merchant-isolation', [runRec(), retrieve('pay_never_made', { t: 100, status: 404, error: err('resource_missing') }), create({ key: K.other, id: P, t: 50 })]);
    expect(r.checked).toBe(0);
  });

  it('the own key reading its payment before the create is recorded is not a check', async () => {
    const r = await judgeOne('merchant-isolation', [runRec(), retrieve(P, { key: K.other, t: 100, status: 404, error: err('resource_missing') }), create({ key: K.other, id: P, t: 50 })]);
    expect(r.checked).toBe(0);
  });

  it('a flood of unknown-id probes (404s) does not crowd out a foreign read that is a violation', async () => {
    const probes = Array.from({ length: 50_001 }, (_, i) => retrieve(`pay_unknown_${i}`, { t: 10 + i / 1000, status: 404, error: err('resource_missing') }));
    const r = await judgeOne('merchant-isolation', [runRec(), ...probes, retrieve(P, { seq: 999_999, t: 100 }), create({ key: K.other, id: P, t: 50 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toContain(999_999);
  });
});
