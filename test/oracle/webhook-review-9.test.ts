/**
 * Review 9, webhooks.
 *
 * WH-7 (event-matches-type): whether a delivery's data.payment is older than an answer that ended
 * before the delivery was signed is judged on the server's clock (the signature's `t`), moved onto
 * ours with the Date headers' clock estimate. That estimate is only final at the end of the run:
 * the Date headers seen before a delivery may say something else than all of them together (a few
 * stale cached Dates early on, or too few samples to be tight), so the staleness is judged at
 * finish() with the final estimate.
 *
 * WH-9 (failed-delivery-retried) with at-least-once copies: one id's deliveries are split into
 * retry chains. A copy read into a chain splits the chain's real interval into pieces under
 * 200 ms, and a run of such near deliveries could be read as a cascade of copies (so "the service
 * never retried, a missing retry is no evidence"): a retrier that never backs off passed.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HistoryRecord, WebhookRecord } from '../../src/history/index.ts';
import { simulateDeliveries } from './webhook-sim.ts';
import { create, endRec, judgeOne, pay, refundObj, resetSeq, retrieve, RUN_WALL, webhook } from './fixtures.ts';

beforeEach(() => resetSeq());

const messages = (r: { examples: { message: string }[] }) => r.examples.map((e) => e.message);

describe('WH-7: a stale data.payment is judged with the final server clock estimate', () => {
  const P = 'pay_00000000-0000-4000-8000-0000000000b7';
  const card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'NL' } as never;
  const succeeded = { status: 'succeeded' as const, card, succeededAt: 1_700_000_001 };
  const refunded = { ...succeeded, amountRefunded: 1000, refundedAt: 1_700_000_004, refunds: [refundObj({ id: 're_1', paymentId: P, amount: 1000, status: 'succeeded' })] };
  const before = { ...succeeded, amountRefunded: 0, refundedAt: null, refunds: [] };
  /** Unix seconds of the server's Date header for an answer whose server-side write happened at run time `t`. */
  const dateAt = (t: number, ahead: number) => Math.floor((RUN_WALL + t + ahead) / 1000);
  /** Fast answers after the delivery with honest Date headers at varied sub-second phases: they pin the offset. */
  const honest = (from: number, ahead: number) => Array.from({ length: 25 }, (_, i) => from + i * 137).map((t) => retrieve(P, { t, dur: 4, p: refunded, date: dateAt(t + 2, ahead) }));
  const judgeWh7 = (recs: HistoryRecord[]) => judgeOne('event-matches-type', [create({ id: P, t: 0, p: { status: 'pending' } }), ...recs, endRec({ tEnd: 60_000 })]);

  it('passes a delivery signed before the refund, though the Date headers seen before it were stale (a busy server caching its Date): no false fail', async () => {
    const AHEAD = 5000;
    // Before the delivery only two answers carried a Date, both 3.5 s behind (a stalled event loop
    // serving a cached Date header); so far they say the server is about 2 s ahead, not 5 s.
    const stale = [retrieve(P, { t: 1000, dur: 5, p: succeeded, date: dateAt(1000 - 3500, AHEAD) }), retrieve(P, { t: 4000, dur: 10, p: refunded, date: dateAt(4000 - 3500, AHEAD) })];
    // Signed at run time 3500 (server clock), before the refund the GET at 4000 shows; delivered late.
    const late = webhook({ eventId: 'evt_late', tReceived: 9000, t: dateAt(3500, AHEAD), payment: pay({ id: P, ...before }) });
    // Then 25 answers with honest Dates: the run's estimate drops the two stale ones (the 1% lowest upper bounds, at least two).
    const r = await judgeWh7([...stale, late, ...honest(10_000, AHEAD)]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('fails a delivery signed after a GET showed the refund, though the Date headers seen before it were too few to pin the clock: no false pass', async () => {
    // The server's clock is ours. Before the delivery: one slow answer (4 s, Date written at its end) and the GET.
    const slow = retrieve(P, { t: 500, dur: 4000, p: succeeded, date: dateAt(4500, 0) });
    const get = retrieve(P, { t: 5000, dur: 10, p: refunded, date: dateAt(5002, 0) });
    // Signed at 7500, nearly 2.5 s after the GET ended, showing nothing refunded: stale.
    const stale = webhook({ seq: 90, eventId: 'evt_stale', tReceived: 8000, t: dateAt(7500, 0), payment: pay({ id: P, ...before }) });
    const r = await judgeWh7([slow, get, stale, ...honest(10_000, 0)]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/evt_stale \(signed t=\d+\) carries payment pay_\S+ with refunded amount 0, but an answer had shown 1000/);
    expect(r.examples[0].seqs).toContain(90);
    expect(r.examples[0].seqs).toContain(get.seq);
  });

  it('with no Date header at all, the signature time is read on our clock, as before', async () => {
    const r = await judgeWh7([retrieve(P, { t: 3000, p: refunded }), webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...before }) })]);
    expect(r.status).toBe('fail');
    resetSeq();
    const ok = await judgeWh7([retrieve(P, { t: 3000, p: refunded }), webhook({ eventId: 'evt_s', tReceived: 9000, payment: pay({ id: P, ...refunded }) })]);
    expect(ok.status).toBe('pass');
  });
});

/** Three events delivered by the simulated sender of test/oracle/webhook-sim.ts. */
function deliver(o: { offsets: number[]; gap: (k: number) => number; horizon?: number }): WebhookRecord[] {
  const events = [
    { id: 'evt_a', start: 1_000 },
    { id: 'evt_b', start: 20_000 },
    { id: 'evt_c', start: 40_000 },
  ];
  return simulateDeliveries(events, { offsets: o.offsets, gap: o.gap, horizon: o.horizon ?? 100_000 });
}
const arrivals = (recs: WebhookRecord[], id: string) => recs.filter((r) => r.eventId === id).map((r) => [r.tReceived, r.answered]);
const judgeWh9 = (recs: WebhookRecord[], tEnd = 120_000) => judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd })]);

describe('WH-9: copies do not hide a retrier that never backs off', () => {
  it('fails a constant 250 ms retrier whose copy trails every delivery by 150 ms (every arrival under 200 ms after the one before)', async () => {
    const recs = deliver({ offsets: [0, 150], gap: () => 250 });
    // Two chains, 1000/1250/1500/1750 and 1150/1400/1650/1900: one id arriving every 100 or 150 ms.
    expect(arrivals(recs, 'evt_a')).toEqual([
      [1000, 500],
      [1150, 500],
      [1250, 500],
      [1400, 500],
      [1500, 500],
      [1650, 500],
      [1750, 200],
      [1900, 200],
    ]);
    // Read as one chain, every interval is under 200 ms (not judged); read as a cascade of copies,
    // the service never retried (so no missing retry was judged). Neither reading is plausible.
    const r = await judgeWh9(recs);
    expect(r.status).toBe('fail');
  });

  it('fails a constant 250 ms retrier whose copy comes 400 ms after the first delivery, after its first retry', async () => {
    const recs = deliver({ offsets: [0, 400], gap: () => 250 });
    expect(arrivals(recs, 'evt_a').map(([t]) => t)).toEqual([1000, 1250, 1400, 1500, 1650, 1750, 1900, 2150]);
    // One chain read to 1750 has intervals 250, 150, 100, 150, 100: the copy split each 250 ms into two pieces.
    const r = await judgeWh9(recs);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/retries of evt_a came at intervals .*: they do not grow/);
  });

  it.each([
    [170, 275],
    [199, 300],
    [30, 250],
    [120, 300],
  ])('fails a constant retrier with a copy %i ms after each delivery and %i ms between attempts', async (copy, every) => {
    const r = await judgeWh9(deliver({ offsets: [0, copy], gap: () => every }));
    expect(r.status).toBe('fail');
  });

  it.each([
    ['a copy 150 ms after, retries 250, 500, 1000 ms', [0, 150], 250],
    ['a copy 199 ms after, retries 300, 600, 1200 ms', [0, 199], 300],
    ['a copy 400 ms after, retries 250, 500, 1000 ms', [0, 400], 250],
    ['a copy 30 ms after, retries 50, 100, 200 ms (time-scaled)', [0, 30], 50],
    ['three copies 0, 120 and 190 ms apart, retries 250, 500, 1000 ms', [0, 120, 190], 250],
    ['a copy 800 ms after, retries 1, 2, 4 s', [0, 800], 1000],
  ])('passes an exponential retrier with %s', async (_name, offsets, base) => {
    const r = await judgeWh9(deliver({ offsets, gap: (k) => base * 2 ** k }));
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes a time-scaled exponential retrier whose copy follows 30 ms later, with late timers (50/100/200 ms seen as 164, 118, 214)', async () => {
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_n', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_n', status: 'succeeded' }) });
    const a = [1000, 1164, 1282, 1496];
    const b = a.map((t) => t + 30);
    const recs = [...a, ...b].sort((x, y) => x - y).map((t) => mk(t, t === 1496 || t === 1526));
    const r = await judgeWh9(recs, 60_000);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });
});
