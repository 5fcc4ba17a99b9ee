/**
 * Keys marked shared (`--shared-key`, run record `keys[].shared`) are used by other clients too:
 * their requests count in the key's windows. Found in review: RL-2 said a window "began before
 * any request of the key" when another client opened it, and RL-9 blamed another key for a 429
 * that other clients' traffic explains. rate-no-early-429 already observed such keys only.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { judgeOne, K, resetSeq, runRec } from './fixtures.ts';
import { fill, rl, S } from './cases/rate.ts';
import type { HistoryRecord } from '../../src/history/index.ts';

beforeEach(() => resetSeq());

const run = (sharedLabel?: string) => {
  const r = runRec();
  return { ...r, keys: r.keys.map((k) => (k.label === sharedLabel ? { ...k, shared: true } : k)) };
};

describe('RL-2 (rate-window-fixed) on a shared key', () => {
  // The second window opened at t=70 s; the run's first request after the first window is at t=100 s.
  const records = (): HistoryRecord[] => [rl(1, 0, 200, 4, S + 60), rl(2, 1000, 200, 3, S + 60), rl(3, 100_000, 200, 4, S + 130)];

  it('an owned key: the window began 30 s before any of its requests, a violation', async () => {
    const r = await judgeOne('rate-window-fixed', [run(), ...records()]);
    expect(r.examples.map((e) => e.message)).toEqual([expect.stringMatching(/began 30 s before any request/)]);
  });

  it('a shared key: another client may have opened it, so it is not judged', async () => {
    const r = await judgeOne('rate-window-fixed', [run(K.test), ...records()]);
    expect(r.violations).toBe(0);
    expect(r.checked).toBeGreaterThan(0);
  });
});

describe('RL-9 (rate-limit-per-key) on a shared key', () => {
  // K.test is exhausted; K.test2 gets a 429 after one request of its own.
  const records = (): HistoryRecord[] => [...fill(1, 5, S + 60), rl(6, 600, 429, 0, S + 60), rl(7, 700, 200, 4, S + 61, { key: K.test2 }), rl(8, 800, 429, 0, S + 61, { key: K.test2 })];

  it('an owned key: a violation', async () => {
    expect((await judgeOne('rate-limit-per-key', [run(), ...records()])).status).toBe('fail');
  });

  it('a shared key: other clients may have used up its window, so it is not judged', async () => {
    expect((await judgeOne('rate-limit-per-key', [run(K.test2), ...records()])).violations).toBe(0);
  });
});
