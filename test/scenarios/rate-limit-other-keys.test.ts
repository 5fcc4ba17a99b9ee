/**
 * RL-9 in `rate-limit`: the other keys (second test key, live key) are each used once before the
 * rate-limit key's window opens (`rl-other-key-pre`). Otherwise their first request of the run is
 * the `rl-other-key` probe sent while the rate-limit key is exhausted, and with counters shared by
 * the merchant (seeded bug rl-shared-merchant-counter) its 429 lies in a window that "may have
 * opened before the run": skipped, so RL-9 passed a service that breaks it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { judge } from '../../src/oracle/index.ts';
import type { RunRecord } from '../../src/history/index.ts';
import { scenarioByName } from '../../scenarios/index.ts';
import { inGroup, runAgainstReference, WINDOW_MS, type ScenarioRun } from './harness.ts';

const RL_IDS = ['rate-window-cap', 'rate-window-fixed', 'rate-burst-cap', 'rate-remaining', 'rate-reset-value', 'rate-limited-response', 'retry-after-honest', 'rate-no-early-429', 'rate-limit-per-key', 'rate-headers-present'];

describe('rate-limit: other keys used before the exhaustion', () => {
  let ok: ScenarioRun;
  let shared: ScenarioRun;
  beforeAll(async () => {
    [ok, shared] = await Promise.all([
      runAgainstReference([scenarioByName('rate-limit')!], { presentation: 'B' }),
      runAgainstReference([scenarioByName('rate-limit')!], { presentation: 'B', bugs: ['rl-shared-merchant-counter'] }),
    ]);
  }, 120_000);

  it('each other key probed later is used once before the rate-limit key opens window 1', () => {
    const xs = ok.exchanges;
    const fresh = inGroup(xs, 'rl-fresh');
    const pre = xs.filter((x) => x.group === 'rl-other-key-pre');
    const probed = [...new Set(xs.filter((x) => x.group === 'rl-other-key').map((x) => x.key))];
    expect(probed.length).toBe(2);
    expect(pre.map((x) => x.key).sort()).toEqual([...probed].sort());
    expect(pre.every((x) => x.status === 200 && x.tEnd < fresh[0].tStart)).toBe(true);
    expect(ok.outcome.scenarioErrors).toEqual([]);
  });

  it('a conforming service passes every RL invariant', async () => {
    const { invariants } = await judge(ok.records, { only: RL_IDS });
    expect(invariants.filter((x) => x.status === 'fail' || x.status === 'error').map((x) => `${x.id}: ${x.examples[0]?.message ?? x.error}`)).toEqual([]);
    expect(invariants.find((x) => x.id === 'rate-limit-per-key')!.checked).toBeGreaterThan(0);
  });

  it('counters shared by the merchant: the other keys\' 429s lie in a window certainly opened after their first request', () => {
    // Judged whatever the whole-second rounding of X-RateLimit-Reset (the window began up to 1 s before reset - window).
    const xs = shared.exchanges;
    const run = shared.records.find((r): r is RunRecord => r.kind === 'run')!;
    const epoch = (t: number) => run.wall + t;
    const probes = xs.filter((x) => x.group === 'rl-other-key' && x.status === 429);
    expect(probes.length).toBeGreaterThan(0);
    for (const q of probes) {
      const first = Math.min(...xs.filter((x) => x.key === q.key).map((x) => x.tStart));
      expect(q.rate!.reset! * 1000 - WINDOW_MS - 1000).toBeGreaterThan(epoch(first));
    }
  });

  it('counters shared by the merchant fail RL-9', async () => {
    const { invariants } = await judge(shared.records, { only: ['rate-limit-per-key'] });
    expect(invariants[0].status).toBe('fail');
    expect(invariants[0].examples[0].message).toMatch(/got 429 after only 0 of its own requests .* while .* was exhausted/);
  });
});
