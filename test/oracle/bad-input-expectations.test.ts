/**
 * Bad-input probes are judged only where a rule demands their answer for the shape sent
 * (src/spec/bad-inputs.ts): a lenient 2xx to a `lenient-ok` case is an observation finding, never
 * a violation; a demanded case still fails on a service that accepts it (the mutants
 * pay-param-not-named, pay-description-unbounded, pay-zero-amount-accepted stay caught).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { BAD_INPUT_CASES, OPEN_READINGS, badInputCasesFor, type CanonicalPayment, type Presentation } from '../../src/spec/index.ts';
import { type HistoryRecord } from '../../src/history/index.ts';
import { create, err, ex, judgeOne, resetSeq, retrieve, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

/** The record the scenario writes for a catalog case (scenarios/lib/bad-inputs.ts); `p`: the 2xx's payment. */
function probe(name: string, answer: { status: number; code?: string; param?: string | null; seq?: number; p?: Partial<CanonicalPayment> }) {
  const c = BAD_INPUT_CASES.find((x) => x.case === name);
  if (!c) throw new Error(`no case ${name}`);
  const sent = {
    method: 'POST',
    path: c.op === 'create_hpp' ? '/v1/payments/hpp' : '/v1/payments',
    badInput: { case: c.case, expectStatus: c.expectStatus, expectCode: c.expectCode, expectParam: c.expectParam, ...(c.altParams ? { altParams: c.altParams } : {}), rule: c.rule, expectation: c.expectation },
    ...(c.shape ? { inputShape: c.shape } : {}),
  };
  const op = c.op === 'create_hpp' ? 'create_hpp' : 'create';
  if (answer.status === 201) return create({ op, seq: answer.seq, sent, p: answer.p });
  return ex({ op, seq: answer.seq, status: answer.status, error: err(answer.code ?? 'parameter_invalid', { param: answer.param ?? null }), sent });
}

async function judgeAll(records: HistoryRecord[], presentation: Presentation = 'B', more: string[] = []) {
  return judge([runRec({ target: { url: 'http://127.0.0.1:1', embedded: true, presentation } }), ...records], { only: ['missing-field-named', 'field-constraints', 'amount-minimum', ...more] });
}

describe('the catalog', () => {
  it('every case names one rule it cites and an expectation; every demanded create case cites PAY-2, PAY-3, PAY-4, PAY-5 or IDEM-1/2', () => {
    for (const c of BAD_INPUT_CASES) {
      expect(c.rules, c.case).toContain(c.rule);
      expect(['demanded', 'lenient-ok', 'either'], c.case).toContain(c.expectation);
      // Every case that is not plainly demanded cites the open reading it relies on.
      if (c.expectation !== 'demanded' || c.altParams) {
        expect(c.reading, c.case).toBeTruthy();
        expect(c.why, c.case).toContain(Object.values(OPEN_READINGS).find((r) => r.id === c.reading)!.why);
      } else expect(c.reading, c.case).toBeUndefined();
      if (c.op === 'create' && c.expectation === 'demanded') expect(['PAY-2', 'PAY-3', 'PAY-4', 'PAY-5', 'IDEM-1', 'IDEM-2'], c.case).toContain(c.rule);
    }
  });

  it('a presentation is sent only its own input shape and the cases of no shape; hosted cases go to both', () => {
    for (const p of ['A', 'B'] as const) {
      const mine = badInputCasesFor(p);
      expect(mine.filter((c) => c.op === 'create' && c.shape !== undefined && c.shape !== p)).toEqual([]);
      expect(mine.some((c) => c.op === 'create_hpp')).toBe(true);
      expect(mine.some((c) => c.case === 'create/any/body-not-json')).toBe(true);
    }
    expect(badInputCasesFor('B').some((c) => c.case.startsWith('create/A/billing'))).toBe(false);
    expect(badInputCasesFor('A').some((c) => c.case.startsWith('create/B/customer'))).toBe(false);
  });

  it('type-only and other-shape cases are lenient-ok; the rules the issue names stay demanded', () => {
    const exp = (name: string) => BAD_INPUT_CASES.find((c) => c.case === name)?.expectation;
    expect(exp('create/B/card-exp-month-string')).toBe('lenient-ok');
    expect(exp('create/B/return-url-missing-with-3ds-card')).toBe('lenient-ok');
    expect(exp('create/A/metadata-51-keys')).toBe('lenient-ok');
    expect(exp('create/B/metadata-51-keys')).toBe('demanded');
    expect(exp('create/A/return-url-missing')).toBe('demanded');
    expect(exp('create/B/customer-email-missing')).toBe('demanded');
    expect(exp('create/B/description-501-chars')).toBe('demanded');
    expect(exp('create/A/amount-zero')).toBe('demanded');
  });
});

describe('lenient-ok cases', () => {
  it('a 2xx gives an observation finding and no violation', async () => {
    const { invariants, findings } = await judgeAll([
      probe('create/B/card-exp-month-string', { status: 201 }),
      probe('create/B/return-url-missing-with-3ds-card', { status: 201 }),
      probe('create/B/currency-not-iso', { status: 400, param: 'currency' }),
    ]);
    const fc = invariants.find((i) => i.id === 'field-constraints')!;
    expect(fc.status).toBe('pass');
    expect(fc.violations).toBe(0);
    const obs = findings.find((f) => f.id === 'lenient-input-pay-5');
    expect(obs?.level).toBe('observation');
    expect(obs?.text).toContain('create/B/card-exp-month-string');
    expect(obs?.text).toContain('create/B/return-url-missing-with-3ds-card');
    expect(obs?.rules).toEqual(['PAY-5']);
  });

  it('a 400 is fine too, and gives no observation', async () => {
    const { invariants, findings } = await judgeAll([probe('create/B/card-exp-month-string', { status: 400, param: 'card.exp_month' })]);
    expect(invariants.find((i) => i.id === 'field-constraints')!.status).toBe('pass');
    expect(findings.filter((f) => f.id.startsWith('lenient-input'))).toEqual([]);
  });

  it('without the expectation (an older history) the same 2xx is still a violation: the record decides', async () => {
    const r = probe('create/B/card-exp-month-string', { status: 201, seq: 9 });
    delete r.sent.badInput!.expectation;
    const { invariants } = await judgeAll([r]);
    expect(invariants.find((i) => i.id === 'field-constraints')!.status).toBe('fail');
  });

  it("a Direct API probe in the other presentation's input shape is not judged against this service", async () => {
    // An A-shaped "billing_details missing" sent to a B service that reads only its own shape: it names `card`.
    const { invariants } = await judgeAll([probe('create/A/billing-email-missing', { status: 400, param: 'card' })], 'B');
    expect(invariants.find((i) => i.id === 'missing-field-named')!.violations).toBe(0);
    const same = await judgeAll([probe('create/A/billing-email-missing', { status: 400, param: 'card', seq: 3 })], 'A');
    expect(same.invariants.find((i) => i.id === 'missing-field-named')!.status).toBe('fail');
  });
});

describe('either: a hosted create without return_url (the spec allows 201 and the refusal)', () => {
  const CASE = 'create_hpp/A/return-url-missing';
  const hosted = (presentation: Presentation): Partial<CanonicalPayment> => ({
    id: 'pay_00000000-0000-4000-8000-0000000000cc',
    presentation,
    status: 'requires_action',
    wireStatus: presentation === 'A' ? 'REQUIRES_ACTION' : 'requires_action',
    hosted: presentation === 'A' ? true : false,
    nextAction: { type: 'redirect', reason: 'hosted_payment_page', redirectUrl: 'https://pay.example/p/1' },
  });

  it('the case cites the hosted-return-url reading', () => {
    const c = BAD_INPUT_CASES.find((x) => x.case === CASE)!;
    expect(c.expectation).toBe('either');
    expect(c.reading).toBe(OPEN_READINGS.hostedReturnUrl.id);
    expect(c.expectParam).toBe('return_url');
  });

  it.each(['A', 'B'] as const)('presentation %s: a 201 with a well-formed hosted payment passes PAY-3, PAY-1 and PAY-12, with the observation', async (presentation) => {
    const { invariants, findings } = await judgeAll([probe(CASE, { status: 201, p: hosted(presentation) })], presentation, ['create-returns-payment', 'hosted-create-shape']);
    for (const id of ['missing-field-named', 'create-returns-payment', 'hosted-create-shape']) expect(invariants.find((i) => i.id === id)!.status, id).toBe('pass');
    expect(findings.find((f) => f.id === 'lenient-input-pay-3')?.text).toContain(CASE);
  });

  it('a 201 whose payment is not a hosted payment still fails PAY-12 (the acceptance is judged on what it made)', async () => {
    const { invariants } = await judgeAll([probe(CASE, { status: 201, seq: 5, p: { ...hosted('B'), status: 'pending', wireStatus: 'pending', nextAction: null } })], 'B', ['hosted-create-shape']);
    const r = invariants.find((i) => i.id === 'hosted-create-shape')!;
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([5]);
    expect(invariants.find((i) => i.id === 'missing-field-named')!.status).toBe('pass');
  });

  it('a refusal naming return_url passes', async () => {
    const r = await judgeOne('missing-field-named', [probe(CASE, { status: 400, param: 'return_url' })]);
    expect(r.status).toBe('pass');
  });

  it.each([
    ['another field', { status: 400, param: 'billing_details' }],
    ['no param', { status: 400, param: null }],
    ['another code', { status: 400, code: 'invalid_request_body', param: 'return_url' }],
    ['a 422', { status: 422, code: 'action_not_allowed', param: 'return_url' }],
  ] as const)('a refusal with %s fails PAY-3', async (_what, answer) => {
    const r = await judgeOne('missing-field-named', [probe(CASE, { ...answer, seq: 8 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].message).toContain('or a 2xx');
  });
});

describe('altParams: a create carrying neither input shape\'s card or customer may name either shape\'s field', () => {
  // case, presentation, the other shape's field (accepted), an unrelated field (refused)
  const CASES = [
    ['create/A/payment-method-data-missing', 'A', 'card', 'customer'],
    ['create/B/card-missing', 'B', 'payment_method_data', 'customer'],
    ['create/A/billing-details-missing', 'A', 'customer', 'card'],
    ['create/B/customer-missing', 'B', 'billing_details', 'payment_method_data'],
  ] as const;

  it.each(CASES)('%s (presentation %s): naming the other shape\'s %s passes PAY-3, as does its own field', async (name, presentation, other) => {
    const c = BAD_INPUT_CASES.find((x) => x.case === name)!;
    expect(c.expectation).toBe('demanded');
    expect(c.altParams).toEqual([other]);
    const { invariants } = await judgeAll([probe(name, { status: 400, param: other }), probe(name, { status: 400, param: c.expectParam })], presentation);
    expect(invariants.find((i) => i.id === 'missing-field-named')!.violations).toBe(0);
  });

  it.each(CASES)('%s (presentation %s): naming an unrelated field, no field, or accepting it still fails PAY-3', async (name, presentation, _other, unrelated) => {
    for (const answer of [{ status: 400, param: unrelated }, { status: 400, param: 'amount' }, { status: 400, param: null }, { status: 201 }]) {
      resetSeq();
      const { invariants } = await judgeAll([probe(name, { ...answer, seq: 3 })], presentation);
      const r = invariants.find((i) => i.id === 'missing-field-named')!;
      expect(r.status, JSON.stringify(answer)).toBe('fail');
      expect(r.examples[0].seqs).toEqual([3]);
    }
  });
});

describe('demanded cases still catch the mutants', () => {
  it('pay-param-not-named: a missing required field answered with param null fails PAY-3', async () => {
    const r = await judgeOne('missing-field-named', [probe('create/B/customer-email-missing', { status: 400, param: null, seq: 4 })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([4]);
  });
  it('pay-description-unbounded: a 501-character description accepted fails PAY-5, in either shape', async () => {
    for (const shape of ['A', 'B'] as const) {
      resetSeq();
      const r = await judgeOne('field-constraints', [probe(`create/${shape}/description-501-chars`, { status: 201, seq: 6 })], { target: { url: 'http://127.0.0.1:1', embedded: true, presentation: shape } });
      expect(r.status, shape).toBe('fail');
      expect(r.examples[0].message).toContain('description-501-chars');
    }
  });
  it('pay-zero-amount-accepted: amount 0 accepted fails PAY-2 (Direct and hosted)', async () => {
    const r = await judgeOne('amount-minimum', [probe('create/B/amount-zero', { status: 201, seq: 7 }), probe('create_hpp/A/amount-zero', { status: 201, seq: 8 })]);
    expect(r.status).toBe('fail');
    expect(r.violations).toBe(2);
  });
});

describe('PAY-8: metadata is an input of presentation B Direct API creates only', () => {
  const P = 'pay_00000000-0000-4000-8000-0000000000bb';
  it('a hosted create whose metadata the service does not keep is no PAY-8 violation', async () => {
    const r = await judgeOne('payment-echoes-input', [
      create({ op: 'create_hpp', id: P, sent: { metadata: { order: 'o-1' } }, p: { metadata: {} } }),
      retrieve(P, { t: 100, p: { metadata: {} } }),
    ]);
    expect(r.status).toBe('pass');
  });
  it('the metadata it kept must not change later', async () => {
    const r = await judgeOne('payment-echoes-input', [
      create({ op: 'create_hpp', id: P, sent: { metadata: { order: 'o-1' } }, p: { metadata: { order: 'o-1' } } }),
      retrieve(P, { seq: 12, t: 100, p: { metadata: { order: 'changed' } } }),
    ]);
    expect(r.status).toBe('fail');
  });
  it('a Direct API create in shape B must still carry the metadata sent', async () => {
    const r = await judgeOne('payment-echoes-input', [create({ id: P, sent: { inputShape: 'B', metadata: { order: 'o-1' } }, p: { metadata: {} } })]);
    expect(r.status).toBe('fail');
  });
});
