/**
 * IDEM-10 in its refusal form: once a payment with a merchant_reference exists, a create reusing
 * it under a new Idempotency-Key must make a second payment; a refusal about the request itself
 * (422 action_not_allowed, 400 naming the reference) is a violation, while refusals about access,
 * the rate or the card are not, nor is a bad-input probe that carries a reference.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, err, judgeOne, resetSeq } from './fixtures.ts';

const A = 'pay_00000000-0000-4000-8000-00000000000a';
const REF = 1234567890;
beforeEach(() => resetSeq());

const first = () => create({ idemKey: 'k1', id: A, sent: { merchantReference: REF } });
const second = (o: Parameters<typeof create>[0]) => create({ idemKey: 'k2', t: 100, ...o, sent: { merchantReference: REF, ...(o?.sent ?? {}) } });

describe('merchant-reference-no-dedup: refused reuse', () => {
  it('422 action_not_allowed or 400 parameter_invalid after the first was made: a violation', async () => {
    for (const refusal of [{ status: 422, error: err('action_not_allowed') }, { status: 400, error: err('parameter_invalid', { param: 'merchant_reference' }) }]) {
      resetSeq();
      const r = await judgeOne('merchant-reference-no-dedup', [first(), second(refusal)]);
      expect(r.status, JSON.stringify(refusal)).toBe('fail');
      expect(r.examples[0].message).toMatch(/refused (422|400) .*two creates give two payments/);
    }
  });
  it('a card decline, a rate limit, an access refusal or a server error: not judged as reuse', async () => {
    for (const other of [
      { status: 422, error: err('card_declined', { type: 'card_error', decline_code: 'do_not_honor' }) },
      { status: 429, error: err('rate_limit_exceeded') },
      { status: 403, error: err('not_permitted') },
      { status: 503, error: err('service_unavailable') },
    ]) {
      resetSeq();
      expect((await judgeOne('merchant-reference-no-dedup', [first(), second(other)])).status, JSON.stringify(other)).not.toBe('fail');
    }
  });
  it('no payment made with the reference first: the refusal is not about reuse', async () => {
    const r = await judgeOne('merchant-reference-no-dedup', [create({ idemKey: 'k1', status: 503, error: err('service_unavailable'), sent: { merchantReference: REF } }), second({ status: 422, error: err('action_not_allowed') })]);
    expect(r.status).not.toBe('fail');
  });
  it('a bad-input probe carrying the reference is not a create that reuses it', async () => {
    const probe = second({ status: 400, error: err('parameter_invalid', { param: 'amount' }), sent: { merchantReference: REF, badInput: { case: 'create/amount-zero', expectStatus: 400, expectCode: 'parameter_invalid', expectParam: 'amount' } } });
    expect((await judgeOne('merchant-reference-no-dedup', [first(), probe])).status).not.toBe('fail');
  });
});
