/**
 * FT-4's "settled synchronously while the upstream was down" is judged only inside the window a
 * hard fault surely acted in: after Toxiproxy acknowledged it (`tApplied`) and before paystorm
 * asked to remove it (`tRemoving`). Seen as a false FT-4 failure in CI: a create sent 1 ms after
 * paystorm asked for `down` reached the processor before the proxy was disabled.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { create, fault, judgeOne, resetSeq } from './fixtures.ts';

beforeEach(() => resetSeq());

const succeededAt = (t: number, extra: object = {}) => ({ ...create({ seq: 7, t, dur: 20, p: { status: 'succeeded' } }), ...extra });

describe('FT-4: synchronous success under a hard fault', () => {
  const down = fault({ tStart: 1000, tEnd: 5000, tApplied: 1150, tRemoving: 4900 });

  it('inside the sure window it is a violation', async () => {
    const r = await judgeOne('fault-responses-well-formed', [down, succeededAt(2000)]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([7]);
    expect(r.examples[0].message).toContain('synchronously while the upstream was down');
  });

  it('before Toxiproxy acknowledged the fault it is no violation: the processor may have answered first', async () => {
    const r = await judgeOne('fault-responses-well-formed', [down, succeededAt(1001)]);
    expect(r.violations).toBe(0);
  });

  it('after the removal was asked it is no violation', async () => {
    const r = await judgeOne('fault-responses-well-formed', [down, succeededAt(4890)]);
    expect(r.violations).toBe(0);
  });

  it('a history without the sure window (written before it was recorded) requires nothing: the wide window only excuses', async () => {
    const old = fault({ tStart: 1000, tEnd: 5000 });
    expect((await judgeOne('fault-responses-well-formed', [old, succeededAt(2000)])).violations).toBe(0);
  });

  it('limit_data stops the upstream only when no processor answer fits in its bytes (64 or fewer)', async () => {
    const limit = (bytes: number) => fault({ tStart: 1000, tEnd: 5000, tApplied: 1150, tRemoving: 4900, toxic: { name: 'l', type: 'limit_data', stream: 'downstream', toxicity: 1, attributes: { bytes } } });
    expect((await judgeOne('fault-responses-well-formed', [limit(4096), succeededAt(2000)])).violations).toBe(0);
    resetSeq();
    expect((await judgeOne('fault-responses-well-formed', [limit(64), succeededAt(2000)])).status).toBe('fail');
  });

  it('a replay under an earlier key that settled before the fault is no violation; a fresh key still is', async () => {
    const first = create({ seq: 3, t: 500, dur: 20, idemKey: 'ft5-1', p: { status: 'succeeded' } });
    const replay = { ...succeededAt(2000), idemKey: 'ft5-1', payment: first.payment };
    expect((await judgeOne('fault-responses-well-formed', [first, down, replay])).violations).toBe(0);
    // The first attempt, sent before the fault surely acted, timed out (no answer): the retry may replay what it created.
    const timedOut = create({ seq: 3, t: 1100, dur: 900, idemKey: 'ft5-2', status: 0 });
    expect((await judgeOne('fault-responses-well-formed', [timedOut, down, { ...succeededAt(2100), idemKey: 'ft5-2' }])).violations).toBe(0);
    // Sent after the fault surely acted and timed out: a retry answered succeeded at once fails (a service failing open).
    const duringFault = create({ seq: 3, t: 1200, dur: 900, idemKey: 'ft5-4', status: 0 });
    expect((await judgeOne('fault-responses-well-formed', [duringFault, down, { ...succeededAt(2200), idemKey: 'ft5-4' }])).status).toBe('fail');
    // An earlier 503 under the key is not kept (IDEM-7): the retry executed afresh.
    const refused = create({ seq: 3, t: 500, dur: 20, idemKey: 'ft5-3', status: 503 });
    expect((await judgeOne('fault-responses-well-formed', [refused, down, { ...succeededAt(2000), idemKey: 'ft5-3' }])).status).toBe('fail');
  });

  it('merged shards: the clock slack of the create and of the fault narrows the window', async () => {
    const merged = { ...down, clockSlackMs: 300 };
    expect((await judgeOne('fault-responses-well-formed', [merged, succeededAt(1300)])).violations).toBe(0);
    expect((await judgeOne('fault-responses-well-formed', [down, succeededAt(1300, { clockSlackMs: 300 })])).violations).toBe(0);
    expect((await judgeOne('fault-responses-well-formed', [merged, succeededAt(2000, { clockSlackMs: 300 })])).status).toBe('fail');
  });
});
