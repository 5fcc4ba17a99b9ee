/**
 * WH-9 (failed-delivery-retried) with copies that start late: "Delivery is at-least-once", so a
 * conforming service may deliver an event again under the same id at any time, not only right
 * after a delivery or after a 2xx: a queue redelivering after a visibility time-out (5 s, 30 s),
 * independently of the retries that follow a failure, or a service that sends a copy of a
 * delivery the receiver failed. Such a copy can land between the first delivery's retries; the
 * receiver fails it too (its AnswerBook reads it as a retry or a chain of its own), it is retried
 * on its own schedule, and its retries interleave with the first chain's, out of order. The
 * pairings (oldest failure first, a copy only near another delivery, after a 2xx or trailing the
 * first delivery) read it into the first chain, whose intervals then shrink or stop growing: a
 * conforming service failed. An id that every pairing fails gets a second look at any split,
 * held to stricter terms (every chain backs off at every step, also on two intervals, the chains
 * follow one schedule, and only the id's latest failure may await its retry), so that the
 * constant retriers the other webhook tests pin still fail.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { WebhookRecord } from '../../src/history/index.ts';
import { AnswerBook } from '../../src/webhooks/answer.ts';
import { endRec, judgeOne, pay, resetSeq, webhook } from './fixtures.ts';
import { seededRandom } from '../../src/spec/random.ts';

beforeEach(() => resetSeq());

const messages = (r: { examples: { message: string }[] }) => r.examples.map((e) => e.message);
const judgeWh9 = (recs: WebhookRecord[], tEnd: number, complete = true) =>
  judgeOne('failed-delivery-retried', [...recs, complete ? endRec({ tEnd }) : endRec({ tEnd, complete: false, reason: 'interrupted' })]);


interface Sender {
  /** Interval after a chain's k-th failure (k from 0), before jitter. */
  gap: (k: number) => number;
  /** Each interval (and copy delay) is multiplied by 1 + u * jitter, u uniform in [-1, 1). */
  jitter: number;
  /** Copies started this long after the event's first delivery (a queue's visibility time-out), whatever happened to it. */
  copyAt?: number[];
  /** A copy sent `after` ms after the first chain's n-th failure (n from 0). */
  copyAfterFail?: { n: number; after: number };
  seed: number;
}

const EVENTS = [
  { id: 'evt_a', start: 1_000 },
  { id: 'evt_b', start: 100_000 },
  { id: 'evt_c', start: 200_000 },
];
/** The run ends long after the last retry: a failure not retried would be judged. */
const T_END = 600_000;

/**
 * Deliveries of EVENTS by a sender: each event's first delivery at its start, plus its copies,
 * every chain retried after a failure on its own schedule. The receiver answers with its own
 * AnswerBook, as in a run (failShare 1: every event fails; these three, the first failing events,
 * fail three times per chain as the receiver reads the chains).
 */
function send(s: Sender): WebhookRecord[] {
  const u = seededRandom(s.seed);
  const jit = (ms: number) => ms * (1 + (u() * 2 - 1) * s.jitter);
  const book = new AnswerBook({ seed: 1, failShare: 1, stallShare: 0, failAttempts: 3 });
  type Chain = { id: string; next: number; failed: number; done: boolean; first: boolean };
  const chains: Chain[] = [];
  for (const e of EVENTS) {
    chains.push({ id: e.id, next: e.start, failed: 0, done: false, first: true });
    for (const d of s.copyAt ?? []) chains.push({ id: e.id, next: e.start + jit(d), failed: 0, done: false, first: false });
  }
  const seen = new Map<string, number>();
  const out: WebhookRecord[] = [];
  for (;;) {
    let x: Chain | undefined;
    for (const c of chains) if (!c.done && (!x || c.next < x.next)) x = c;
    if (!x) break;
    const attempt = seen.get(x.id) ?? 0;
    seen.set(x.id, attempt + 1);
    const answered = book.answer(x.id, attempt, false, x.next) === 'fail' ? 500 : 200;
    out.push(webhook({ eventId: x.id, tReceived: Math.round(x.next), answered, duplicate: attempt > 0, payment: pay({ id: `pay_${x.id}`, status: 'succeeded' }) }));
    if (answered === 200) {
      x.done = true;
      continue;
    }
    if (x.first && s.copyAfterFail?.n === x.failed) chains.push({ id: x.id, next: x.next + jit(s.copyAfterFail.after), failed: 0, done: false, first: false });
    x.next += jit(s.gap(x.failed++));
  }
  return out;
}
/** One event's arrivals as [time, answer]. */
const arrivals = (recs: WebhookRecord[], id: string) => recs.filter((r) => r.eventId === id).map((r) => [r.tReceived, r.answered]);
/** A sender's schedule and copies (jitter and seed are the test's). */
type Shape = Omit<Sender, 'jitter' | 'seed'>;
const exp = (base: number, factor = 2) => (k: number) => base * factor ** k;
const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

describe('WH-9: a conforming service whose copy starts between retries passes (false fails before)', () => {
  const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_q', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_q', status: 'succeeded' }) });

  it('passes a queue that redelivers 5 s after the first delivery, while that delivery is retried 2 s, 4 s later (from the history alone)', async () => {
    // First chain 1000 (500), 3000 (500), 7000 (200): intervals 2 s, 4 s. The copy at 6000 is
    // failed and retried 2, 4, 8 s later: 8000, 12000, 20000 (200).
    const recs = [mk(1000, false), mk(3000, false), mk(6000, false), mk(7000, true), mk(8000, false), mk(12_000, false), mk(20_000, true)];
    const r = await judgeWh9(recs, 120_000);
    // Read into one chain, the copy made it 2000, 3000, 1000 ms: "do not grow".
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes a copy whose retries come before the first chain\'s (retries 1, 2, 4 s; a copy 3.3 s after the first delivery, failed three times)', async () => {
    // First chain 1000, 2000, 4000, 8000 (200); the copy 4300, 5300, 7300, 11300 (200). The copy's
    // retries at 5300 and 7300 come while the first chain's failure at 4000 is older and still
    // awaits its retry: read oldest failure first, 4300 retried 4000 after 300 ms ("shrank").
    const recs = [mk(1000, false), mk(2000, false), mk(4000, false), mk(4300, false), mk(5300, false), mk(7300, false), mk(8000, true), mk(11_300, true)];
    const r = await judgeWh9(recs, 120_000);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('simulated, with the receiver failing them: a 5 s visibility time-out and retries 2, 4, 8 s with 10% jitter', async () => {
    const recs = send({ gap: exp(2000), jitter: 0.1, copyAt: [5000], seed: 1 });
    // The copy (near 6 s) lands between the first chain's retries near 3 s and 7 s; the receiver
    // fails it and it is retried on its own.
    expect(arrivals(recs, 'evt_a').map(([, a]) => a)).toEqual([500, 500, 500, 200, 500, 500, 500, 200]);
    const r = await judgeWh9(recs, T_END);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it.each<[string, Shape]>([
    ['a 5 s visibility time-out, retries 2, 4, 8 s', { gap: exp(2000), copyAt: [5000] }],
    ['a 30 s visibility time-out, retries 10, 20, 40 s', { gap: exp(10_000), copyAt: [30_000] }],
    ['a 3.2 s visibility time-out, retries 1, 2, 4 s', { gap: exp(1000), copyAt: [3200] }],
    ['a 1.4 s visibility time-out, retries 0.5, 1, 2 s', { gap: exp(500), copyAt: [1400] }],
    ['a copy sent 2.5 s after the first failure, retries 1, 2, 4 s', { gap: exp(1000), copyAfterFail: { n: 0, after: 2500 } }],
    ['a copy sent 1.5 s after the second failure, retries 1, 2, 4 s', { gap: exp(1000), copyAfterFail: { n: 1, after: 1500 } }],
    ['a copy sent 5 s after the first failure, retries 2, 4, 8 s', { gap: exp(2000), copyAfterFail: { n: 0, after: 5000 } }],
    ['two copies, 2.4 s and 7.3 s after (the second after the first chain succeeded), retries 1, 2, 4 s', { gap: exp(1000), copyAt: [2400, 7300] }],
    ['two copies, 4.8 s and 14.6 s after, retries 2, 4, 8 s', { gap: exp(2000), copyAt: [4800, 14_600] }],
    ['two copies, 3.2 s and 12 s after, retries 1, 3, 9 s', { gap: exp(1000, 3), copyAt: [3200, 12_000] }],
  ])('passes %s, with jitter up to a tenth, on every seed', async (_name, o) => {
    const failed: string[] = [];
    for (const seed of SEEDS) {
      resetSeq();
      const r = await judgeWh9(send({ jitter: 0.1, seed, ...o }), T_END);
      if (r.status !== 'pass') failed.push(`seed ${seed}: ${messages(r).join('; ')}`);
    }
    expect(failed).toEqual([]);
  });
});

describe('WH-9: the second look at a split does not excuse a retrier that never backs off', () => {
  it.each<[string, Shape]>([
    ['a 2 s constant retrier with a 5 s visibility time-out', { gap: () => 2000, copyAt: [5000] }],
    ['a 1 s constant retrier with a copy 2.5 s after the first failure', { gap: () => 1000, copyAfterFail: { n: 0, after: 2500 } }],
    ['a 1 s constant retrier with a 3.2 s visibility time-out', { gap: () => 1000, copyAt: [3200] }],
  ])('fails %s, with jitter up to a tenth, on every seed', async (_name, o) => {
    const passed: number[] = [];
    for (const seed of SEEDS) {
      resetSeq();
      const r = await judgeWh9(send({ jitter: 0.1, seed, ...o }), T_END);
      if (r.status !== 'fail') passed.push(seed);
    }
    expect(passed).toEqual([]);
  });

  it('a chain of the split must back off at every step: a 1 s constant retrier with a copy 300 ms later', async () => {
    // The receiver reads the copy at 1300 as the first delivery's retry, so the first chain is
    // failed five times and the copy once. Split freely, a chain could pick deliveries of both
    // whose first two intervals grow (300, 700) and go on at a constant 1 s after that.
    const recs = send({ gap: () => 1000, jitter: 0, copyAt: [300], seed: 1 });
    expect(arrivals(recs, 'evt_a')).toEqual([
      [1000, 500],
      [1300, 500],
      [2000, 500],
      [2300, 200],
      [3000, 500],
      [4000, 500],
      [5000, 500],
      [6000, 200],
    ]);
    const r = await judgeWh9(recs, T_END);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/retries of evt_a came at intervals .*: they do not grow/);
  });

  it('a chain of two intervals must grow too: a 1 s constant retrier with copies 1 s and 2.5 s later', async () => {
    // Split freely into three chains of two retries each (growth is judged on three intervals).
    const recs = send({ gap: () => 1000, jitter: 0, copyAt: [1000, 2500], seed: 1 });
    expect(arrivals(recs, 'evt_a')).toEqual([
      [1000, 500],
      [2000, 500],
      [2000, 500],
      [3000, 500],
      [3000, 500],
      [3500, 200],
      [4000, 500],
      [4000, 200],
      [5000, 200],
    ]);
    const r = await judgeWh9(recs, T_END);
    expect(r.status).toBe('fail');
  });

  it('the chains of the split follow one schedule: a 2 s constant retrier with copies 0.8 s and 2 s later', async () => {
    // Split freely, each chain grows a little on its own, but the first intervals of the chains
    // differ by more than jitter and a late timer explain (one service, one retry policy).
    const recs = send({ gap: () => 2000, jitter: 0, copyAt: [800, 2000], seed: 1 });
    const r = await judgeWh9(recs, T_END);
    expect(r.status).toBe('fail');
  });

  it('only the latest failure may await its retry: a run cut short does not excuse a constant retrier as a copy that was never retried', async () => {
    // 1 s apart, no copy at all in the run. Split as 1000, 2000, 4000 (intervals 1 s, 2 s) and a
    // copy at 3000 still awaiting its retry when the run was cut (a missing retry is not judged
    // on an interrupted run), it would pass.
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_k', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_k', status: 'succeeded' }) });
    const r = await judgeWh9([mk(1000, false), mk(2000, false), mk(3000, false), mk(4000, true)], 600_000, false);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/retries of evt_k came at intervals 1000, 1000, 1000 ms: they do not grow/);
  });
});
