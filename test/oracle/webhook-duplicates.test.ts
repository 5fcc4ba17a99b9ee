/**
 * WH-9 (failed-delivery-retried) under at-least-once delivery: "Delivery is at-least-once.
 * Receivers deduplicate by event id." One id may arrive as several copies, each with its own
 * retries; the check splits one id's deliveries into retry chains and judges each chain, failing
 * only when every plausible split fails. The receiver's own answer policy (AnswerBook) decides
 * which arrivals fail, as in a run, counting failures per chain.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { WebhookRecord } from '../../src/history/index.ts';
import { endRec, judgeOne, pay, resetSeq, webhook } from './fixtures.ts';
import { simulateDeliveries } from './webhook-sim.ts';

beforeEach(() => resetSeq());

/** Each event's `copies` delivery chains start `copyOffset` apart (test/oracle/webhook-sim.ts). */
function simulate(events: { id: string; start: number }[], o: { copies: number; copyOffset: number; gap: (k: number) => number; horizon: number }): WebhookRecord[] {
  return simulateDeliveries(events, { offsets: Array.from({ length: o.copies }, (_, i) => i * o.copyOffset), gap: o.gap, horizon: o.horizon });
}

const EVENTS = [
  { id: 'evt_a', start: 1_000 },
  { id: 'evt_b', start: 20_000 },
  { id: 'evt_c', start: 40_000 },
];
const messages = (r: { examples: { message: string }[] }) => r.examples.map((e) => e.message);

describe('WH-9 with at-least-once copies', () => {
  it('fails a fixed-interval retrier that also delivers every event twice (copy 30 ms later)', async () => {
    const recs = simulate(EVENTS, { copies: 2, copyOffset: 30, gap: () => 300, horizon: 100_000 });
    // Each chain got its three failures: 4 deliveries per chain.
    expect(recs.filter((r) => r.eventId === 'evt_a').map((r) => [r.tReceived, r.answered])).toEqual([
      [1000, 500],
      [1030, 500],
      [1300, 500],
      [1330, 500],
      [1600, 500],
      [1630, 500],
      [1900, 200],
      [1930, 200],
    ]);
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 120_000 })]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/retries of evt_a came at intervals .*: they do not grow/);
  });

  it('fails two copies failed three times each at a constant 300 ms (from the history alone)', async () => {
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_x', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_x', status: 'succeeded' }) });
    const recs = [mk(1000, false), mk(1030, false), mk(1300, false), mk(1330, false), mk(1600, false), mk(1630, false), mk(1900, true), mk(1930, true)];
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 60_000 })]);
    expect(r.status).toBe('fail');
  });

  it.each([30, 500, 800])('passes a conforming exponential retrier (1 s, 2 s, ...) whose copy follows %i ms later', async (copyOffset) => {
    const recs = simulate(EVENTS, { copies: 2, copyOffset, gap: (k) => 1000 * 2 ** k, horizon: 100_000 });
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 120_000 })]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('passes the embedded at-least-once variant: copies 0-50 ms apart, retries 250, 500, 1000 ms, the run ending soon after', async () => {
    const recs = simulate(EVENTS, { copies: 2, copyOffset: 17, gap: (k) => 250 * 2 ** k, horizon: 100_000 });
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 45_000 })]);
    expect(messages(r)).toEqual([]);
    expect(r.status).toBe('pass');
  });

  it('a copy is no first retry: with none declared and the real retry after the run, a missing retry is not judged', async () => {
    const single = simulate(EVENTS, { copies: 1, copyOffset: 0, gap: () => 400_000, horizon: 100_000 });
    const rs = await judgeOne('failed-delivery-retried', [...single, endRec({ tEnd: 120_000 })]);
    expect(rs.status).toBe('not-exercised');
    resetSeq();
    const recs = simulate(EVENTS, { copies: 2, copyOffset: 30, gap: () => 400_000, horizon: 100_000 });
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 120_000 })]);
    expect(messages(r)).toEqual([]);
    expect(r.status).not.toBe('fail');
  });

  it('still fails a copy that fails after the 2xx and is never retried while the run went on', async () => {
    // evt_a: failed, retried 1 s later and answered; then a copy arrives, fails, and is never retried.
    const mk = (id: string, t: number, ok: boolean) => webhook({ eventId: id, tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: `pay_${id}`, status: 'succeeded' }) });
    const recs = [mk('evt_a', 1000, false), mk('evt_a', 2000, true), mk('evt_a', 2010, false)];
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 120_000 })]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/evt_a failed \(500\) and was not retried/);
  });

  it('a later delivery of the same id does not count as another id delivering the subject', async () => {
    // A failed retry of evt_a followed only by a copy 10 ms later (also failed): the chain still waits for its retry.
    const mk = (t: number, ok: boolean) => webhook({ eventId: 'evt_a', tReceived: t, answered: ok ? 200 : 500, payment: pay({ id: 'pay_a', status: 'succeeded' }) });
    const recs = [mk(1000, false), mk(1250, false), mk(1260, false)];
    const r = await judgeOne('failed-delivery-retried', [...recs, endRec({ tEnd: 120_000 })]);
    expect(r.status).toBe('fail');
  });
});
