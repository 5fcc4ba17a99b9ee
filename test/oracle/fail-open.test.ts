/**
 * FT-4 false pass (review): the service "fails open" asynchronously. FT-4 judged only the create's
 * own answer: a create answered SUCCEEDED synchronously while the upstream was surely down failed,
 * but one answered 201 pending in a `down` window whose payment a GET then showed succeeded still
 * inside that window (the processor unreachable from creation to success) passed every invariant.
 * fault-responses-well-formed now fails that too, with the synchronous check's care against false
 * fails: only hard faults that also keep the charge request from the processor (`down`, or a toxic
 * on the upstream stream), only inside their sure window (narrowed by a merged shard's clock
 * slack), and not when the payment may have been made before the window.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { invariantResultSchema } from '../../src/spec/index.ts';
import type { HistoryRecord } from '../../src/history/index.ts';
import { create, fault, judgeOne, rate, resetSeq, retrieve, runRec, webhook, pay } from './fixtures.ts';
import { FAIL_OPEN_CASES } from './cases/fail-open.ts';

beforeEach(() => resetSeq());

const ID = 'fault-responses-well-formed';
const P = 'pay_00000000-0000-4000-8000-0000000000f1';
const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 };
const down = (o: Parameters<typeof fault>[0] = {}) => fault({ tStart: 1000, tEnd: 9100, tApplied: 1050, tRemoving: 9000, ...o });
const succeeded = { status: 'succeeded' as const, card };

/** Fixture records carry no rate headers: not what these tests are about. */
const NOISE = new Set(['rate-headers-present']);
/** Every invariant; the failing ones as `id: message`. */
async function failing(records: HistoryRecord[], run = {}): Promise<string[]> {
  const { invariants } = await judge([runRec(run), ...records]);
  return invariants.filter((i) => (i.status === 'fail' || i.status === 'error') && !NOISE.has(i.id)).map((i) => `${i.id}: ${i.examples[0]?.message ?? i.error ?? ''}`);
}

describe('fail-open keep/break cases', () => {
  for (const [id, c] of Object.entries(FAIL_OPEN_CASES)) {
    it(`${id}: passes the history that keeps the rule`, async () => {
      const r = await judgeOne(id, c.keeps(), c.run);
      expect(r.error, r.error ?? '').toBeNull();
      expect(r.examples.map((e) => e.message)).toEqual([]);
      expect(r.status).toBe('pass');
      expect(r.checked).toBeGreaterThan(0);
    });
    it(`${id}: fails the history that breaks it, naming the records`, async () => {
      const r = await judgeOne(id, c.violates(), c.run);
      expect(r.status).toBe('fail');
      expect(invariantResultSchema.parse(r)).toBeTruthy();
      if (c.seqs) expect(r.examples[0].seqs).toEqual(expect.arrayContaining(c.seqs));
      if (c.message) expect(r.examples[0].message).toMatch(c.message);
    });
  }
});

describe('fail open while the processor is surely down (reviewer)', () => {
  let left = 100;
  const R = { get rate() { return rate(1_700_000_060, --left, 100); } };

  it('control: a synchronous succeeded answer inside the sure window fails FT-4', async () => {
    const recs = [create({ rate: R.rate, id: P, t: 2000, p: succeeded, sent: { amount: 1000, cardOutcome: 'succeeds' } }), down()];
    expect((await failing(recs, { target: { url: 'http://127.0.0.1:1', embedded: true, presentation: 'A' } })).join('\n')).toMatch(/fault-responses-well-formed/);
  });

  it('201 pending, then seen succeeded while the processor was still surely down: a violation', async () => {
    const recs = [
      create({ rate: R.rate, id: P, t: 2000, sent: { amount: 1000, cardOutcome: 'succeeds' } }),
      retrieve(P, { rate: R.rate, t: 3000, p: succeeded }),
      retrieve(P, { rate: R.rate, t: 12000, p: succeeded }),
      down(),
    ];
    const out = await failing(recs);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^fault-responses-well-formed: payment pay_\S+0f1, created 201 during upstream fault "down" \(down\), was seen succeeded while the upstream was still surely down/);
  });
});

describe('no false fail: the processor may have been reachable', () => {
  const pendingAt = (t: number, o: Parameters<typeof create>[0] = {}) => create({ seq: 5, id: P, t, sent: { cardOutcome: 'succeeds' }, ...o });
  const seenAt = (t: number, o: Parameters<typeof retrieve>[1] = {}) => retrieve(P, { seq: 6, t, p: succeeded, ...o });
  const verdict = async (recs: HistoryRecord[]) => (await judgeOne(ID, recs)).violations;

  it('convicts a webhook saying succeeded inside the window as well, naming the create and the observation', async () => {
    const r = await judgeOne(ID, [down(), pendingAt(2000), webhook({ seq: 7, tReceived: 4000, payment: pay({ id: P, status: 'succeeded' }) })]);
    expect(r.status).toBe('fail');
    expect(r.examples[0].seqs).toEqual([5, 7]);
    expect(r.examples[0].paymentIds).toEqual([P]);
  });

  it('a create sent before the fault surely acted (before tApplied) is excused', async () => {
    expect(await verdict([down(), pendingAt(1040), seenAt(3000)])).toBe(0);
  });

  it('an observation that may have ended after removal was asked (tRemoving) is excused', async () => {
    expect(await verdict([down(), pendingAt(2000), seenAt(8995)])).toBe(0);
    resetSeq();
    expect(await verdict([down(), pendingAt(2000), seenAt(8980)])).toBe(1);
  });

  it('creation and success in two different windows (the upstream was back between them) is excused', async () => {
    const first = down({ tStart: 1000, tEnd: 3100, tApplied: 1050, tRemoving: 3000 });
    const second = down({ tStart: 5000, tEnd: 9100, tApplied: 5050, tRemoving: 9000, toxic: { name: 'down2', type: 'down', stream: 'downstream', toxicity: 1, attributes: {} } });
    expect(await verdict([first, second, pendingAt(2000), seenAt(6000)])).toBe(0);
  });

  it('a fault that does not surely stop the upstream (latency, partial toxicity, no sure window) is excused', async () => {
    const latency = down({ toxic: { name: 'lat', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 1500 } } });
    const partial = down({ toxic: { name: 'rp', type: 'reset_peer', stream: 'downstream', toxicity: 0.5, attributes: { timeout: 0 } } });
    const unsure = fault({ tStart: 1000, tEnd: 9100 });
    for (const f of [latency, partial, unsure]) {
      resetSeq();
      expect(await verdict([f, pendingAt(2000), seenAt(3000)])).toBe(0);
    }
  });

  it('a downstream-only hard toxic (timeout) is excused: the charge request got through; the same toxic on the upstream stream is not', async () => {
    const held = (stream: 'upstream' | 'downstream') => down({ toxic: { name: 'to', type: 'timeout', stream, toxicity: 1, attributes: { timeout: 0 } } });
    expect(await verdict([held('downstream'), pendingAt(2000), seenAt(3000)])).toBe(0);
    resetSeq();
    expect(await verdict([held('upstream'), pendingAt(2000), seenAt(3000)])).toBe(1);
  });

  it('a replay of a request under the same key sent before the fault surely acted is excused; one sent inside it is not', async () => {
    // The first attempt, sent before tApplied, got no answer: it may have reached the processor.
    const timedOut = create({ seq: 3, t: 900, dur: 1000, idemKey: 'k-1', status: 0 });
    expect(await verdict([timedOut, down(), pendingAt(2000, { idemKey: 'k-1' }), seenAt(3000)])).toBe(0);
    resetSeq();
    const inside = create({ seq: 3, t: 1200, dur: 1000, idemKey: 'k-2', status: 0 });
    expect(await verdict([inside, down(), pendingAt(2300, { idemKey: 'k-2' }), seenAt(3000)])).toBe(1);
  });

  it('a payment that waited on a customer (3DS) is excused: the challenge, not the processor, may settle it', async () => {
    const challenge = retrieve(P, { t: 2500, p: { status: 'requires_action', nextAction: { type: 'redirect', reason: 'three_d_secure', redirectUrl: 'https://acs.example/x' } } });
    expect(await verdict([down(), pendingAt(2000), challenge, seenAt(3000)])).toBe(0);
  });

  it('merged shards: the clock slack of the create, the observation and the fault narrows the window', async () => {
    // Create at 1100 with 300 ms slack may have been sent at 800, before tApplied.
    expect(await verdict([down(), pendingAt(1100, { clockSlackMs: 300 }), seenAt(3000)])).toBe(0);
    resetSeq();
    // The observation ending at 8800 with 300 ms slack may have ended at 9100, after tRemoving.
    expect(await verdict([down(), pendingAt(2000), seenAt(8790, { clockSlackMs: 300 })])).toBe(0);
    resetSeq();
    // The fault's own slack: its sure window is 1350..8700.
    expect(await verdict([down({ clockSlackMs: 300 }), pendingAt(1200), seenAt(3000)])).toBe(0);
    resetSeq();
    expect(await verdict([down({ clockSlackMs: 300 }), pendingAt(2000, { clockSlackMs: 300 }), seenAt(3000, { clockSlackMs: 300 })])).toBe(1);
  });

  it('a hosted payment or one seen succeeded at its create (judged by the synchronous check) is not judged here', async () => {
    expect(await verdict([down(), create({ op: 'create_hpp', id: P, t: 2000, p: { status: 'requires_action' } }), seenAt(3000)])).toBe(0);
    resetSeq();
    const r = await judgeOne(ID, [down(), create({ seq: 5, id: P, t: 2000, p: succeeded }), seenAt(3000)]);
    expect(r.violations).toBe(1);
    expect(r.examples[0].message).toContain('synchronously');
  });

  it('a create crossing a client-link fault is not judged (as the synchronous check)', async () => {
    const client = fault({ proxy: 'client', link: 'client', tStart: 1500, tEnd: 2500, toxic: { name: 'c', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 3000 } } });
    expect(await verdict([down(), client, pendingAt(2000), seenAt(3000)])).toBe(0);
  });
});
