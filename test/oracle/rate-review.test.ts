/**
 * Rate-limit rules: a false pass and false fails a review found.
 * - RL-2: a key's fresh first window must start at one of the run's requests (clock-aligned
 *   windows passed because later windows open right at a boundary after Retry-After).
 * - Merged shards: rate rows span each record's clock slack (RL-5, RL-2, RL-6, RL-8, RL-9).
 * - Idempotent replays that repeat the original answer's rate headers (the spec does not say
 *   whether headers are replayed): not read as a statement about the current window.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import { Ledger } from '../../src/oracle/ledger.ts';
import type { HistoryRecord, KeyInfo } from '../../src/history/index.ts';
import { create, judgeOne, K, rate, resetSeq, runRec } from './fixtures.ts';
import { fill, rl, S } from './cases/rate.ts';

beforeEach(() => resetSeq());

const remote = runRec({ target: { url: 'http://10.0.0.1', embedded: false, presentation: 'B' } });
const messages = (r: { examples: { message: string }[] }) => r.examples.map((e) => e.message);

describe('RL-2: a fresh first window starts at a request (rate-window-fixed)', () => {
  /**
   * Limit 5, window 60 s; the first request at 0 ms. `firstReset` is the first window's reset;
   * later windows are opened right at the boundary (the client waited out Retry-After).
   * `first` is the first answer's X-RateLimit-Remaining (4: counted first; 5: reported before counting).
   */
  function history(firstReset: number, first = 4, o: { key?: string } = {}): HistoryRecord[] {
    const key = o.key ?? K.test;
    const recs: HistoryRecord[] = [];
    const b = firstReset - S; // s after the run's first request that window 1 ends
    for (let i = 0; i < 5; i++) recs.push(rl(1 + i, i * 100, 200, first - i, firstReset, { key }));
    recs.push({ ...rl(6, 600, 429, 0, firstReset, { key }), retryAfter: b });
    for (let i = 0; i < 5; i++) recs.push(rl(7 + i, b * 1000 + 300 + i * 100, 200, first - i, firstReset + 60, { key }));
    return recs;
  }

  it('windows aligned to the clock: the fresh first window opened 40 s before the first request', async () => {
    const r = await judgeOne('rate-window-fixed', [remote, ...history(S + 20)]);
    expect(r.status).toBe('fail');
    expect(messages(r)[0]).toMatch(/window resetting at 1700000020 began 40 s before the first request of .* it counted, yet it was fresh \(X-RateLimit-Remaining 4, limit 5\)/);
    expect(r.examples[0].seqs).toEqual([1, 1]);
  });

  it('the same with a service that reports Remaining before counting (first answer = the limit)', async () => {
    const r = await judgeOne('rate-window-fixed', [remote, ...history(S + 20, 5)]);
    expect(r.status).toBe('fail');
  });

  it('a window opened by the first request passes, whichever way Remaining is reported', async () => {
    for (const first of [4, 5]) {
      const r = await judgeOne('rate-window-fixed', [remote, ...history(S + 60, first)]);
      expect(messages(r)).toEqual([]);
      expect(r.checked).toBeGreaterThan(0);
    }
  });

  it('Remaining reported before counting: limit - 1 is not taken as fresh (one request, not the run\'s, may have opened it)', async () => {
    // The key's answers show the limit itself elsewhere, so its first window's "4" followed one other request.
    const recs = [remote, rl(1, 0, 200, 4, S + 20), rl(2, 100, 200, 3, S + 20), rl(3, 20_300, 200, 5, S + 80), rl(4, 20_400, 200, 4, S + 80)];
    const r = await judgeOne('rate-window-fixed', recs);
    expect(messages(r)).toEqual([]);
  });

  it('a first window that is not fresh may have opened before the run: not judged', async () => {
    const recs = [remote, rl(1, 0, 200, 2, S + 20), rl(2, 100, 200, 1, S + 20), rl(3, 20_300, 200, 4, S + 80)];
    expect(messages(await judgeOne('rate-window-fixed', recs))).toEqual([]);
  });

  it('a key marked shared (--shared-key) is not judged: another client may have opened the window', async () => {
    const run = runRec({
      target: { url: 'http://10.0.0.1', embedded: false, presentation: 'B' },
      keys: [{ label: K.test, merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: 'aaaa', shared: true } as KeyInfo],
    });
    expect(messages(await judgeOne('rate-window-fixed', [run, ...history(S + 20)]))).toEqual([]);
  });

  it('the first window of a second key is held to it too', async () => {
    const recs = [remote, ...history(S + 60), ...history(S + 30, 4, { key: K.test2 }).map((r, i) => ({ ...r, seq: 100 + i }))];
    const r = await judgeOne('rate-window-fixed', recs);
    expect(r.status).toBe('fail');
    expect(r.examples[0].keys).toEqual([K.test2]);
  });
});

describe('merged shards: rate rows span their clock slack', () => {
  const SLACK = 376;
  const slack = <T extends object>(r: T): T => ({ ...r, clockSlackMs: SLACK });

  it('RL-5: a request sent 100 ms after another was answered may truly have been counted first', async () => {
    const recs = [remote, slack(rl(1, 0, 200, 4, S + 60)), slack(rl(2, 990, 200, 2, S + 60)), slack(rl(3, 1100, 200, 3, S + 60))];
    expect(messages(await judgeOne('rate-remaining', recs))).toEqual([]);
    // On one clock the same order is a violation.
    expect((await judgeOne('rate-remaining', recs.map((r) => ({ ...r, clockSlackMs: undefined })))).status).toBe('fail');
  });

  it('RL-2: "reset went back" within the slack is no certain order', async () => {
    const recs = [remote, slack(rl(1, 0, 200, 4, S + 60)), slack(rl(2, 60_000, 200, 4, S + 121)), slack(rl(3, 60_100, 200, 3, S + 60))];
    expect(messages(await judgeOne('rate-window-fixed', recs))).toEqual([]);
    expect((await judgeOne('rate-window-fixed', recs.map((r) => ({ ...r, clockSlackMs: undefined })))).status).toBe('fail');
  });

  it('RL-8: a retry "after" Retry-After on another shard may truly have been sent before it elapsed', async () => {
    const recs = [remote, slack({ ...rl(1, 1000, 429, 0, S + 3), retryAfter: 2 }), slack({ ...rl(2, 3300, 429, 0, S + 3), retryAfter: 1 })];
    expect(messages(await judgeOne('retry-after-honest', recs))).toEqual([]);
    expect((await judgeOne('retry-after-honest', recs.map((r) => ({ ...r, clockSlackMs: undefined })))).status).toBe('fail');
  });

  it('RL-6: a reset in the past by less than the slack (plus tolerance) is no certain violation', async () => {
    // Embedded target: tolerance 1.1 s. Sent at 61 400 ms (merged clock) with reset S + 60: 1.4 s in the past, 1.02 s with the slack.
    const recs = [runRec(), slack(rl(1, 0, 200, 4, S + 60)), slack(rl(2, 61_400, 200, 3, S + 60))];
    expect(messages(await judgeOne('rate-reset-value', recs))).toEqual([]);
    expect((await judgeOne('rate-reset-value', recs.map((r) => ({ ...r, clockSlackMs: undefined })))).status).toBe('fail');
  });

  it('RL-9: a window is judged only when it opened after the latest the key\'s first request may have been sent', async () => {
    // K.test exhausted in a fresh window; K.test2's first request at 700 ms (±800 ms) may truly
    // have come at 1 500 ms, after its window (per the server) opened at 1 000 ms: possibly another run's.
    const big = 800;
    const recs = [
      runRec(),
      ...fill(1, 5, S + 60),
      rl(6, 600, 429, 0, S + 60),
      { ...rl(7, 700, 200, 4, S + 61, { key: K.test2 }), clockSlackMs: big },
      { ...rl(8, 800, 429, 0, S + 61, { key: K.test2 }), clockSlackMs: big },
    ];
    expect(messages(await judgeOne('rate-limit-per-key', recs))).toEqual([]);
    expect((await judgeOne('rate-limit-per-key', recs.map((r) => ({ ...r, clockSlackMs: undefined })))).status).toBe('fail');
  });
});

describe('idempotent replay repeating the original rate headers', () => {
  const P = 'pay_00000000-0000-4000-8000-0000000000a1';
  const orig = () => create({ seq: 1, id: P, t: 0, idemKey: 'idem-A', bodyDigest: 'dA', rate: rate(S + 60, 4) });
  const again = (seq: number, t: number, remaining = 4, reset = S + 60, o: { bodyDigest?: string; status?: number } = {}) =>
    create({ seq, id: P, t, idemKey: 'idem-A', bodyDigest: o.bodyDigest ?? 'dA', rate: rate(reset, remaining), ...(o.status ? { status: o.status } : {}) });

  it('RL-5: the replay in the same window repeats remaining 4: not a second count', async () => {
    const recs = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200), rl(4, 300, 200, 1, S + 60)];
    expect(messages(await judgeOne('rate-remaining', recs))).toEqual([]);
  });

  it('RL-6 / RL-2: the replay in the next window repeats the old reset', async () => {
    const recs = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), rl(3, 61_000, 200, 4, S + 121), again(4, 61_500)];
    expect(messages(await judgeOne('rate-reset-value', recs))).toEqual([]);
    expect(messages(await judgeOne('rate-window-fixed', recs))).toEqual([]);
  });

  it('a replay with headers of its own is judged as usual (both branches)', async () => {
    const recs = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200, 2), rl(4, 300, 200, 1, S + 60)];
    expect(messages(await judgeOne('rate-remaining', recs))).toEqual([]);
    // ... and a fresh answer repeating an older value is still caught.
    const bad = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200, 3), rl(4, 300, 200, 1, S + 60)];
    expect((await judgeOne('rate-remaining', bad)).status).toBe('fail');
  });

  it('not a replay: another body under the key (409 expected), or another key, keeps its headers', async () => {
    const diffBody = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200, 4, S + 60, { bodyDigest: 'dB' }), rl(4, 300, 200, 1, S + 60)];
    expect((await judgeOne('rate-remaining', diffBody)).status).toBe('fail');
    const otherKey = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), create({ seq: 3, id: P, t: 200, idemKey: 'idem-B', bodyDigest: 'dA', rate: rate(S + 60, 4) }), rl(4, 300, 200, 1, S + 60)];
    expect((await judgeOne('rate-remaining', otherKey)).status).toBe('fail');
  });

  it('RL-4 still sees the replay\'s headers; the ledger names the replay', async () => {
    const recs = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200)];
    expect((await judgeOne('rate-headers-present', recs)).status).toBe('pass');
    const ledger = new Ledger(new Map());
    for (const r of recs) ledger.observe(r);
    expect([1, 2, 3].map((s) => ledger.isReplayedRate(s))).toEqual([false, false, true]);
    // A key's table is read before the next key is asked for (the ledger reuses one table).
    const read: number[] = [];
    for (const [key, c] of ledger.rateTables()) if (key === K.test) read.push(c.col('reset')[2], c.col('status')[2]);
    expect(Number.isNaN(read[0])).toBe(true);
    expect(read[1]).toBe(201);
  });

  it('the whole RL set passes a history whose replays repeat their headers', async () => {
    const recs = [runRec(), orig(), rl(2, 100, 200, 3, S + 60), again(3, 200), rl(4, 300, 200, 2, S + 60), rl(5, 61_000, 200, 4, S + 121), again(6, 61_500)];
    const ids = ['rate-window-cap', 'rate-window-fixed', 'rate-burst-cap', 'rate-remaining', 'rate-reset-value', 'retry-after-honest', 'rate-no-early-429', 'rate-limit-per-key', 'rate-headers-present'];
    const { invariants } = await judge(recs, { only: ids });
    expect(invariants.filter((x) => x.status === 'fail' || x.status === 'error').map((x) => `${x.id}: ${x.examples[0]?.message ?? x.error}`)).toEqual([]);
  });
});
