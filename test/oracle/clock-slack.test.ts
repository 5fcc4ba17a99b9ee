/**
 * Merged shards (`paystorm merge`) sit on one clock only to within each shard's offset
 * uncertainty, carried as `clockSlackMs` on their records: the oracle orders two observations
 * only when the order holds whatever the offsets' errors. Seen as a false SM-2 failure: a list of
 * one shard showed a payment pending 200 ms after another shard saw it succeeded, with offsets
 * uncertain by ±376 ms.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, judgeOne, list, resetSeq, retrieve, runRec } from './fixtures.ts';

const P = 'pay_00000000-0000-4000-8000-0000000000c1';
beforeEach(() => resetSeq());

function observations(gapMs: number, slack: number | undefined) {
  const withSlack = <T extends object>(r: T): T => (slack === undefined ? r : { ...r, clockSlackMs: slack });
  return [
    runRec(),
    create({ id: P, t: 0 }),
    withSlack(retrieve(P, { t: 1000, dur: 10, p: { status: 'succeeded' } })),
    withSlack(list([P], { t: 1010 + gapMs, dur: 10, statuses: ['pending'] })),
  ];
}

describe('clock slack of merged shards (SM-2)', () => {
  it('one clock: pending listed 200 ms after succeeded is a violation', async () => {
    expect((await judgeOne('terminal-is-final', observations(200, undefined))).status).toBe('fail');
  });

  it('two clocks uncertain by 376 ms: the same 200 ms is no certain order, so no violation', async () => {
    const r = await judgeOne('terminal-is-final', observations(200, 376));
    expect(r.violations).toBe(0);
  });

  it('two clocks uncertain by 376 ms: a gap wider than both slacks is still a violation', async () => {
    expect((await judgeOne('terminal-is-final', observations(1000, 376))).status).toBe('fail');
  });
});
