/**
 * Judging in the server's time: the clock offset from the Date headers (history field `date`),
 * the rate rules on a host whose clock is off, the `server-clock-offset` finding, and the rate
 * limit's lower bound on owned and shared keys.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ExchangeRecord, HistoryRecord, RunRecord } from '../../src/history/index.ts';
import { judge } from '../../src/oracle/index.ts';
import { ServerClock } from '../../src/history/server-clock.ts';
import { RUN_WALL, K, endRec, err, ex, judgeOne, rate, resetSeq, runRec } from './fixtures.ts';

beforeEach(() => resetSeq());

const W = 10_000;
const LIMIT = 5;

/**
 * A well-behaved fixed window seen from a harness whose clock differs from the server's by
 * `offsetMs` (server - ours): window 1 opened by the request at t=0, exhausted, a 429 with an
 * honest Retry-After, then window 2 opened after it. Every answer carries the server's Date.
 */
function history(offsetMs: number, withDate = true, keyShared = false): HistoryRecord[] {
  const serverSec = (t: number) => (RUN_WALL + t + offsetMs) / 1000;
  const recs: HistoryRecord[] = [runRec({ rateLimit: { limit: LIMIT, windowMs: W }, ...(keyShared ? { keys: runRec().keys.map((k) => ({ ...k, shared: true })) } : {}) })];
  const R1 = Math.ceil(serverSec(0) + W / 1000);
  const one = (t: number, status: number, remaining: number, reset: number, o: Partial<ExchangeRecord> = {}) => {
    const r = ex({ t, dur: 8, status, rate: rate(reset, remaining, LIMIT), sent: { paymentId: 'pay_x' }, ...o });
    if (withDate) r.date = Math.floor(serverSec(t + 4));
    return r;
  };
  for (let i = 0; i < LIMIT; i++) recs.push(one(i * 300, 200, LIMIT - 1 - i, R1));
  const left = R1 * 1000 - (RUN_WALL + 1600 + offsetMs);
  recs.push(one(1600, 429, 0, R1, { retryAfter: Math.ceil(left / 1000), error: err('rate_limit_exceeded') }));
  // After Retry-After: window 2 opens.
  const t2 = 1600 + Math.ceil(left / 1000) * 1000 + 100;
  const R2 = Math.ceil(serverSec(t2) + W / 1000);
  for (let i = 0; i < 3; i++) recs.push(one(t2 + i * 200, 200, LIMIT - 1 - i, R2));
  // Plenty of quick exchanges (as a run has): their Date headers pin the offset.
  // On another key with a larger limit, so the rate rules still hold for it.
  const R3 = Math.ceil(serverSec(t2 + 1000) + W / 1000);
  for (let i = 0; i < 40; i++) recs.push(one(t2 + 1000 + i * 37, 200, 99 - i, R3, { key: K.test2, rate: rate(R3, 99 - i, 100) }));
  recs.push(endRec({ tEnd: t2 + 3000 }));
  return recs;
}

describe('server clock offset', () => {
  it('estimates the offset from Date headers within their round trips', () => {
    for (const offset of [0, 3000, -3000, 1234]) {
      const c = new ServerClock();
      for (const r of history(offset)) if (r.kind === 'exchange') c.add(r);
      const e = c.estimate()!;
      expect(Math.abs(e.offsetMs - offset)).toBeLessThanOrEqual(e.uncertaintyMs + 1);
      expect(e.uncertaintyMs).toBeLessThan(100);
      expect(e.consistent).toBe(true);
    }
    expect(new ServerClock().estimate()).toBeNull();
  });

  it('a Date a busy server sent late (cached string) does not pull the estimate off', () => {
    const c = new ServerClock();
    const recs = history(3000).filter((r): r is ExchangeRecord => r.kind === 'exchange');
    for (const r of recs) c.add(r);
    // Two answers of one busy turn carried the previous second's Date: dropped from the upper bound.
    for (const seq of [998, 999]) c.add({ ...recs[recs.length - 1], seq, date: recs[recs.length - 1].date! - 1 });
    const e = c.estimate()!;
    expect(e.consistent).toBe(true);
    expect(Math.abs(e.offsetMs - 3000)).toBeLessThan(50);
    // A third one makes the bounds cross: the uncertainty then still covers the truth.
    c.add({ ...recs[recs.length - 1], seq: 1000, date: recs[recs.length - 1].date! - 1 });
    const e3 = c.estimate()!;
    expect(3000).toBeGreaterThanOrEqual(e3.offsetMs - e3.uncertaintyMs - 1);
    expect(3000).toBeLessThanOrEqual(e3.offsetMs + e3.uncertaintyMs + 1);
  });

  for (const offset of [3000, -3000]) {
    it(`judges RL-2, RL-6, RL-8 in the server's time on a host ${offset / 1000} s off, and reports the offset`, async () => {
      const { invariants, findings } = await judge(history(offset));
      const by = new Map(invariants.map((i) => [i.id, i]));
      for (const id of ['rate-reset-value', 'rate-window-fixed', 'retry-after-honest', 'rate-no-early-429']) {
        expect(by.get(id)!.status, `${id}: ${JSON.stringify(by.get(id)!.examples)}`).toBe('pass');
      }
      const f = findings.find((x) => x.id === 'server-clock-offset')!;
      expect(f.level).toBe('warning');
      expect(f.text).toContain(`3 s ${offset > 0 ? 'ahead of' : 'behind'}`);
    });
  }

  it('without Date headers the same history is judged on our clock, where a host 3 s behind seems to break RL-2 and RL-8', async () => {
    const { invariants, findings } = await judge(history(-3000, false));
    const failed = invariants.filter((i) => i.status === 'fail').map((i) => i.id);
    expect(failed).toEqual(expect.arrayContaining(['rate-window-fixed', 'retry-after-honest']));
    expect(findings.find((x) => x.id === 'server-clock-offset')).toBeUndefined();
  });

  it('reports a small offset as info', async () => {
    const { findings } = await judge(history(0));
    expect(findings.find((x) => x.id === 'server-clock-offset')!.level).toBe('info');
  });
});

describe('rate-no-early-429 on shared keys', () => {
  function early(shared: boolean): HistoryRecord[] {
    const S = RUN_WALL / 1000;
    const keys = runRec().keys.map((k) => (k.label === K.test && shared ? { ...k, shared: true } : k));
    const recs: HistoryRecord[] = [runRec({ keys } as Partial<RunRecord>)];
    for (let i = 0; i < 3; i++) recs.push(ex({ t: i * 100, status: 200, rate: rate(S + 60, 4 - i), sent: { paymentId: 'pay_x' } }));
    recs.push(ex({ t: 400, status: 429, rate: rate(S + 60, 0), retryAfter: 60, error: err('rate_limit_exceeded'), sent: { paymentId: 'pay_x' } }));
    return recs;
  }
  it('fails an early 429 on a key the run owns', async () => {
    const r = await judgeOne('rate-no-early-429', early(false).slice(1), { keys: (early(false)[0] as RunRecord).keys });
    expect(r.status).toBe('fail');
  });
  it('leaves a window with no constant reset to RL-2/RL-6 (answers of another reset value came in between)', async () => {
    const S = RUN_WALL / 1000;
    const r = (t: number, status: number, remaining: number, reset: number) =>
      ex({ t, status, rate: rate(reset, remaining), ...(status === 429 ? { retryAfter: 60, error: err('rate_limit_exceeded') } : {}), sent: { paymentId: 'pay_x' } });
    const moving = [r(0, 200, 4, S + 60), r(100, 200, 3, S + 61), r(200, 429, 0, S + 60)];
    expect((await judgeOne('rate-no-early-429', moving)).status).toBe('not-exercised');
    const fixed = [r(0, 200, 4, S + 60), r(100, 200, 3, S + 60), r(200, 429, 0, S + 60)];
    expect((await judgeOne('rate-no-early-429', fixed)).status).toBe('fail');
  });
  it('only observes it on a key marked shared (--shared-key)', async () => {
    const { invariants, findings } = await judge(early(true));
    const r = invariants.find((i) => i.id === 'rate-no-early-429')!;
    expect(r.status).toBe('not-exercised');
    expect(r.reason).toMatch(/shared/);
    const f = findings.find((x) => x.id === 'rate-early-429-shared-key')!;
    expect(f.level).toBe('observation');
    expect(f.text).toMatch(/after 3 of the run's requests.*limit 5/);
  });
});
