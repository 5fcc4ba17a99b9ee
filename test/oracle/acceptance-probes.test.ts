/**
 * PAY-5's other side: a probe with a valid value at a limit expects 201; refused with 400 it is a
 * violation of field-constraints (an off-by-one or over-strict check), accepted it passes.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { BAD_INPUT_CASES } from '../../src/spec/index.ts';
import { create, err, judgeOne, resetSeq } from './fixtures.ts';

beforeEach(() => resetSeq());
const acceptance = BAD_INPUT_CASES.filter((c) => c.expectStatus === 201);

describe('PAY-5 acceptance probes', () => {
  it('the catalog holds the limit values and the allowed ones', () => {
    expect(acceptance.map((c) => c.case).sort()).toEqual([
      'create/A/description-500-chars-accepted',
      'create/B/description-500-chars-accepted',
      'create/B/metadata-50-keys-accepted',
      'create/B/metadata-key-41-chars-accepted',
      'create/B/metadata-value-500-chars-accepted',
      'create/B/return-url-localhost-accepted',
    ]);
    expect(acceptance.every((c) => c.rule === 'PAY-5' && c.expectation === 'demanded')).toBe(true);
  });
  for (const c of acceptance) {
    it(`${c.case}: refused 400 fails field-constraints, accepted passes`, async () => {
      const badInput = { case: c.case, expectStatus: c.expectStatus, expectCode: c.expectCode, expectParam: c.expectParam, rule: c.rule, expectation: c.expectation };
      const refused = await judgeOne('field-constraints', [create({ status: 400, error: err('parameter_invalid', { param: 'description' }), sent: { badInput, inputShape: c.shape } })], { target: { url: 'http://x', embedded: true, presentation: c.shape! } });
      expect(refused.status).toBe('fail');
      expect(refused.examples[0].message).toMatch(/a valid request was refused with 400/);
      resetSeq();
      const ok = await judgeOne('field-constraints', [create({ sent: { badInput, inputShape: c.shape } })], { target: { url: 'http://x', embedded: true, presentation: c.shape! } });
      expect(ok.status).toBe('pass');
    });
  }
});
