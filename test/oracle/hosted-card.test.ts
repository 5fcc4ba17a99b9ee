// The card of a hosted payment, as the ledger learns it from the page's submits (Ledger
// noteHostedCard): the first submit answered below 400 gives it; a refused one gives nothing; one
// that got no answer gives it for now, and a different card accepted after it leaves it unknown for
// good. The submits' marks are bits by payment row: judged again with pages of two rows on disk.
import { describe, expect, it } from 'vitest';
import { Ledger } from '../../src/oracle/ledger.ts';
import type { CardOutcome } from '../../src/spec/index.ts';
import { create, ex, resetSeq, runRec, withPagesOnDisk } from './fixtures.ts';

const submit = (paymentId: string, card: [CardOutcome, string], status: number) =>
  ex({ op: 'submit_hpp', status, sent: { paymentId, cardOutcome: card[0], cardLast4: card[1] } });
const X: [CardOutcome, string] = ['succeeds', '4242'];
const Y: [CardOutcome, string] = ['do_not_honor', '0002'];
const Z: [CardOutcome, string] = ['insufficient_funds', '9995'];

function cards(): Record<string, [CardOutcome | undefined, string | undefined]> {
  resetSeq();
  const ledger = new Ledger(new Map());
  ledger.observe(runRec());
  const made = ['pay_a', 'pay_b', 'pay_c', 'pay_d', 'pay_e'];
  // Filler hosted payments first, so the ones that matter sit on pages gone to disk when small.
  for (let i = 0; i < 6; i++) ledger.observe(create({ op: 'create_hpp', id: `pay_fill${i}` }));
  for (const id of made) ledger.observe(create({ op: 'create_hpp', id }));
  const steps: [string, [CardOutcome, string], number][] = [
    // a: no answer with X, then Y accepted: unknown, and a later unanswered Z does not make it known.
    ['pay_a', X, 0], ['pay_a', Y, 200], ['pay_a', Z, 0],
    // b: X accepted; a later accepted Y does not replace it.
    ['pay_b', X, 200], ['pay_b', Y, 200],
    // c: no answer with X, then X accepted: X; a later unanswered Y changes nothing.
    ['pay_c', X, 0], ['pay_c', X, 200], ['pay_c', Y, 0],
    // d: X refused (400), then Y accepted: Y.
    ['pay_d', X, 400], ['pay_d', Y, 200],
    // e: only an unanswered submit with Z: Z for now.
    ['pay_e', Z, 0],
  ];
  for (const [id, card, status] of steps) ledger.observe(submit(id, card, status));
  return Object.fromEntries(made.map((id) => {
    const p = ledger.payments.get(id)!;
    return [id, [p.cardOutcome, p.cardLast4]];
  }));
}

describe('a hosted payment\'s card from its submits', () => {
  const want = { pay_a: [undefined, undefined], pay_b: X, pay_c: X, pay_d: Y, pay_e: Z };
  it('is the first accepted card, unknown once an unanswered submit and a different accepted card disagree', () => {
    expect(cards()).toEqual(want);
  });
  it('is the same with pages of two rows on disk', async () => {
    expect(await withPagesOnDisk(cards)).toEqual(want);
  });
});
