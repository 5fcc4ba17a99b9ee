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
import { AnswerBook } from '../../src/webhooks/answer.ts';
import { simulateDeliveries } from './webhook-sim.ts';
import { create, endRec, judgeOne, pay, refundObj, resetSeq, retrieve, RUN_WALL, webhook } from './fixtures.ts';
import { seededRandom } from '../../src/spec/random.ts';

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


/**
 * Deliveries of evt_b (at 1000, and a copy `copyAt` later) by a sender that retries each after a
 * failure `first` * `factor`^k later, jittered by up to a tenth either way, each attempt's timer up
 * to `late` ms late (scheduled from the attempt before, or `fromFirst` from the chain's planned
 * times). The receiver answers with its AnswerBook, failing each chain `fails` times as it reads them.
 */
function backoff(o: { first: number; factor: number; copyAt: number | null; fails: number; late: number; fromFirst: boolean; seed: number }): WebhookRecord[] {
  const u = seededRandom(o.seed);
  const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: o.fails });
  const chains = [0, ...(o.copyAt === null ? [] : [o.copyAt])].map((off) => ({ next: 1000 + off, planned: 1000 + off, failed: 0, done: false }));
  const out: WebhookRecord[] = [];
  for (let attempt = 0; ; attempt++) {
    let x: (typeof chains)[number] | undefined;
    for (const c of chains) if (!c.done && (!x || c.next < x.next)) x = c;
    if (!x) return out;
    const answered = book.answer('evt_b', attempt, false, x.next) === 'fail' ? 500 : 200;
    out.push(webhook({ eventId: 'evt_b', tReceived: Math.round(x.next), answered, duplicate: attempt > 0, payment: pay({ id: 'pay_evt_b', status: 'succeeded' }) }));
    if (answered === 200) {
      x.done = true;
      continue;
    }
    x.planned = (o.fromFirst ? x.planned : x.next) + o.first * o.factor ** x.failed++ * (1 + (u() * 2 - 1) * 0.1);
    x.next = x.planned + u() * o.late;
  }
}

/**
 * Review s9 of de1d148: summing the intervals under 200 ms read a conforming backoff as flat. With a
 * factor below the golden ratio (1 + r > r^2), e.g. the common 1.5, two short intervals add up to
 * more than the next one: a time-scaled service, or a fast first retry, retrying 100, 150, 225,
 * 337.5 ms apart was judged on 250, 225, 337.5 ms, "they do not grow". A chain now fails to grow
 * only when it fails read both ways, summed and as its intervals came, the latter only where the
 * reading of the id leaves no room for a copy's pieces (see unsummedGrows); the constant retriers
 * with copies above still fail.
 */
describe('WH-9: a backoff whose short intervals sum to more than the next one passes (false fail before)', () => {
  /** One event delivered at `start`, failed (500) until the last attempt, retried after each gap. */
  const chain = (id: string, start: number, gaps: number[]) =>
    gaps.reduce((ts, g) => [...ts, ts[ts.length - 1] + g], [start]).map((t, i) => webhook({ eventId: id, tReceived: t, answered: i < gaps.length ? 500 : 200, duplicate: i > 0, payment: pay({ id: `pay_${id}`, status: 'succeeded' }) }));
  const judgeChain = (id: string, gaps: number[]) => judgeWh9(chain(id, 1000, gaps), 60_000);

  it('passes 100, 150, 225, 337.5 ms (x1.5 each step; summed 250, 225, 337.5)', async () => {
    const r = await judgeChain('evt_x15', [100, 150, 225, 337.5]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes the same with 10% jitter: 110, 140, 240, 330 ms (summed 250, 240, 330)', async () => {
    const r = await judgeChain('evt_x15j', [110, 140, 240, 330]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes a first retry under 200 ms that summing dropped: 165, 213, 252, 328 ms (x1.3, judged on 213, 252, 328)', async () => {
    const r = await judgeChain('evt_x13', [165, 213, 252, 328]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('still fails constant intervals, short or not, read either way', async () => {
    for (const gaps of [
      [253, 252, 256],
      [120, 130, 125, 130, 120, 125],
      [30, 220, 30, 220, 30, 220],
    ]) {
      resetSeq();
      const r = await judgeChain('evt_k', gaps);
      expect(r.status, gaps.join(', ')).toBe('fail');
    }
  });

  it('passes a time-scaled x1.5 backoff from 100 ms whose copy follows 30 ms later, each failed four times', async () => {
    const recs = backoff({ first: 100, factor: 1.5, copyAt: 30, fails: 4, late: 0, fromFirst: false, seed: 2 });
    // Read as two chains, each 100, 150, 225, 337.5 ms (with jitter): summed, 250, 225, 337.5.
    expect(arrivals(recs, 'evt_b').length).toBe(10);
    const r = await judgeWh9(recs, 60_000);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes a seeded sweep of backoffs x1.3 to x3 from 50 to 150 ms, with 10% jitter and late timers, alone or with a copy', async () => {
    const failed: string[] = [];
    for (const factor of [1.3, 1.4, 1.5, 1.618, 1.75, 2, 2.5, 3])
      for (const first of [50, 80, 100, 150])
        for (const copyAt of [null, 30, 120])
          for (const fails of [3, 4])
            for (const fromFirst of [false, true])
              for (const seed of [1, 2]) {
                // Timers up to 10 ms late for x1.3; up to 50 ms from x1.4 (x1.3 from 150 ms with a copy is at the edge of the growth rule).
                const late = factor < 1.4 ? 10 : 50;
                resetSeq();
                const r = await judgeWh9(backoff({ first, factor, copyAt, fails, late, fromFirst, seed: seed * 7919 + first }), 60_000);
                if (r.status !== 'pass') failed.push(`x${factor} from ${first} ms, copy ${copyAt ?? 'none'}, ${fails} failures, seed ${seed}: ${messages(r).join('; ')}`);
              }
    expect(failed).toEqual([]);
  });

  it('fails a constant 200 ms retrier (10% jitter) whose copy follows 30 ms later, each failed four times: a copy\'s offset is no base for growth', async () => {
    // Read as two chains, 1000, 1030, 1202, 1403, 1593, 1813 and 1236, 1444, 1629, 1837: the first
    // grows only from its 30 ms piece (30, 172, 201, 190, 220 ms as they came; 202, 201, 220 summed).
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_k200', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_k200', status: 'succeeded' }) });
    const times = [1000, 1030, 1201.5, 1236, 1403, 1444.4, 1592.7, 1629.2, 1812.5, 1836.9];
    const r = await judgeWh9(times.map((t, i) => mk(t, i >= 8)), 60_000);
    expect(r.status).toBe('fail');
  });

  it('fails a constant 250 ms retrier whose copy trails by 30 ms, read as one chain (the copy\'s pending retry dropped once the event succeeded)', async () => {
    // No second 2xx: one chain 30, 220, 30, 220, 30, 220 ms. The 30 ms pieces are no base for growth.
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_c30', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_c30', status: 'succeeded' }) });
    const r = await judgeWh9([1000, 1030, 1250, 1280, 1500, 1530, 1750].map((t, i, a) => mk(t, i === a.length - 1)), 60_000);
    expect(r.status).toBe('fail');
  });
});
