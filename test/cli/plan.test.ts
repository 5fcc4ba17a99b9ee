/**
 * The run's plan (src/cli/plan.ts): said before any load, from the scenarios' own sizing helpers.
 * A 60 s window and a limit of 500 (the spec's values) keep the default suite within 10 minutes,
 * with the rate-limit probe's window waits named; the scaled embedded default takes about a minute.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SUITE, scenarioByName } from '../../scenarios/index.ts';
import { snapshotEveryMs } from '../../src/cli/run-steps/judge.ts';
import { JUDGE_BYTES_PER_REQUEST, JUDGE_SCRATCH_BYTES_PER_REQUEST, judgeMemoryForecast, judgeScratchForecast } from '../../src/cli/live/judge-memory.ts';
import { DEFAULT_ENV } from '../../scenarios/lib/rules.ts';
import { capsForPlan, planSuite, type PlanInput } from '../../src/cli/plan.ts';

function input(o: { embedded: boolean; limit: number; windowMs: number; timeScale: number; webhooks: boolean; proxies?: string[] }): PlanInput {
  return {
    scenarios: DEFAULT_SUITE,
    env: { ...DEFAULT_ENV, embedded: o.embedded, webhooks: o.webhooks ? { wired: true, failShare: 0.2 } : null, ...(o.proxies ? { faultProxies: o.proxies } : {}) },
    embedded: o.embedded,
    limit: o.limit,
    windowMs: o.windowMs,
    timeScale: o.timeScale,
    ackTimeoutMs: o.embedded ? 500 : 10_000,
    faultRun: { timeScale: o.timeScale, embedded: o.embedded },
  };
}

const min = 60_000;

describe('run plan', () => {
  it('embedded at --window-ms 60000 --rate-limit 500: within 10 minutes, the rate-limit waits named in the line', () => {
    const plan = planSuite(input({ embedded: true, limit: 500, windowMs: 60_000, timeScale: 0.05, webhooks: true, proxies: ['upstream', 'client'] }));
    const rl = plan.scenarios.find((s) => s.name === 'rate-limit')!;
    expect(rl.ms).toBeGreaterThanOrEqual(3 * min);
    expect(rl.ms).toBeLessThan(4 * min);
    expect(plan.totalMs).toBeLessThanOrEqual(10 * min);
    expect(plan.line).toMatch(/^about [\d.]+ min: rate-limit waits about 3 windows of 60 s \([\d.]+ min\)/);
    expect(plan.scenarios.map((s) => s.name)).toEqual(DEFAULT_SUITE.map((s) => s.name));
  });

  it('a remote target with the spec\'s 500 per 60 s (no webhook receiver, no proxies): within 10 minutes; the chaos phase skipped', () => {
    const plan = planSuite(input({ embedded: false, limit: 500, windowMs: 60_000, timeScale: 1, webhooks: false, proxies: [] }));
    expect(plan.totalMs).toBeLessThanOrEqual(10 * min);
    expect(plan.totalMs).toBeGreaterThan(5 * min);
    const flows = plan.scenarios.find((s) => s.name === 'flows')!;
    expect(flows.ms).toBeLessThanOrEqual(2.5 * min); // the abandoned-challenge wait is capped on a remote target
    // A chaos phase of the default suite, if any, is skipped without its proxies.
    for (const s of plan.scenarios.filter((x) => x.name.startsWith('chaos'))) expect(s.why).toMatch(/skipped/);
    expect(plan.line).toContain('rate-limit waits about 3 windows of 60 s');
  });

  it('names the webhook retry wait when a receiver is wired (the longest wait on a remote target)', () => {
    const plan = planSuite(input({ embedded: false, limit: 500, windowMs: 60_000, timeScale: 1, webhooks: true, proxies: [] }));
    const wh = plan.scenarios.find((s) => s.name === 'webhooks')!;
    expect(wh.ms).toBeGreaterThan(5 * min);
    expect(plan.line).toMatch(/webhooks waits at most this long for deliveries and the retries of failed ones \([\d.]+ min\)/);
  });

  it('a declared first retry delay (--webhook-retry-within) sizes the webhook wait', () => {
    const base = input({ embedded: false, limit: 500, windowMs: 60_000, timeScale: 1, webhooks: true, proxies: [] });
    const wait = (retryWithinMs?: number) => planSuite({ ...base, ...(retryWithinMs !== undefined ? { retryWithinMs } : {}) }).scenarios.find((s) => s.name === 'webhooks')!.ms;
    expect(wait(3_600_000) - wait()).toBe(3_600_000 - 300_000);
    expect(wait(60_000) - wait()).toBe(60_000 - 300_000);
  });

  it('--duration bounds the load and the webhook waits', () => {
    const plan = planSuite({ ...input({ embedded: false, limit: 500, windowMs: 60_000, timeScale: 1, webhooks: true, proxies: [] }), durationMs: 30_000 });
    expect(plan.scenarios.find((s) => s.name === 'mixed')!.ms).toBe(30_000);
    expect(plan.scenarios.find((s) => s.name === 'webhooks')!.ms).toBeLessThan(60_000);
    expect(plan.totalMs).toBeLessThanOrEqual(10 * min);
  });

  it('the scaled embedded default (120 per 3 s) takes about a minute or two', () => {
    const plan = planSuite(input({ embedded: true, limit: 120, windowMs: 3_000, timeScale: 0.05, webhooks: true, proxies: ['upstream', 'client'] }));
    expect(plan.totalMs).toBeLessThan(3 * min);
    expect(plan.totalMs).toBeGreaterThan(20_000);
  });

  it('soak: its own 30 minutes by default (so a default soak gets snapshots every 5 minutes), or --duration', () => {
    const soak = (durationMs?: number) => planSuite({ ...input({ embedded: true, limit: 120, windowMs: 3_000, timeScale: 0.02, webhooks: false }), scenarios: [scenarioByName('soak')!], ...(durationMs !== undefined ? { durationMs } : {}) });
    // It said "about 6 s" (mixed's default length) for a soak that ran 30 minutes.
    expect(soak().totalMs).toBe(30 * min);
    expect(soak().line).toBe('about 30 min: soak load (30 min)');
    expect(snapshotEveryMs({ snapshotEveryMs: undefined }, soak().totalMs)).toBe(5 * min);
    expect(soak(2 * min).totalMs).toBe(2 * min);
    expect(snapshotEveryMs({ snapshotEveryMs: undefined }, soak(2 * min).totalMs)).toBeNull();
  });
});

describe("the judge's memory, forecast before the load", () => {
  it('the plan counts the load scenarios\' requests at their rate for their length', () => {
    const soak = planSuite({ ...input({ embedded: true, limit: 120, windowMs: 3_000, timeScale: 0.02, webhooks: false }), scenarios: [scenarioByName('soak')!], durationMs: 24 * 60 * min, rate: 150 });
    // --rate is iterations a second, 3.5 requests each.
    expect(soak.requests).toBe(150 * 3.5 * 24 * 3600);
    const suite = planSuite(input({ embedded: true, limit: 120, windowMs: 3_000, timeScale: 0.02, webhooks: true, proxies: ['upstream', 'client'] }));
    expect(suite.requests).toBe(suite.scenarios.reduce((a, x) => a + x.requests, 0));
    expect(suite.requests).toBeGreaterThan(500);
    expect(suite.requests).toBeLessThan(100_000);
  });

  it('says nothing while the run fits in 80% of the judge\'s limit; past it, how much it needs, where it would stop, and the fix', () => {
    const perMb = 2 ** 20 / JUDGE_BYTES_PER_REQUEST;
    expect(judgeMemoryForecast(0.79 * 1000 * perMb, 1000, 24_000)).toBeNull();
    // A 24-hour soak at 525 requests a second: 45.4 million requests at 75 B, about 3.2 GB; 80% of 3,000 MB holds 33.6 million.
    expect(judgeMemoryForecast(45_360_000, 8_000, 48_000)).toBeNull();
    const roomy = judgeMemoryForecast(45_360_000, 3_000, 48_000)!;
    expect(roomy).toMatch(/^this run plans about 45\.4 million requests, and the judge keeps about 75 bytes a request \(docs\/oracle\.md, Memory\): about 3\.2 GB, more than it can use of its 2\.9 GB limit \(--judge-memory\)\. Past about 33\.6 million requests it would stop, and the invariants would be "error" \(the metrics are kept\): give it --judge-memory (\d+)\.$/);
    const want = Number(/--judge-memory (\d+)\.$/.exec(roomy)![1]);
    expect(judgeMemoryForecast(45_360_000, want, 48_000)).toBeNull();
    expect(judgeMemoryForecast(45_360_000, 3_000, 3_500)).toMatch(/this machine has 3\.4 GB: run it on one with about 4\.0 GB or more, or make it shorter\.$/);
  });
});

describe("the judge's scratch files, from the plan", () => {
  it('says nothing while they fit in 90% of the free space of TMPDIR; past it, how much, where, where it would stop, and the fix', () => {
    const GB = 2 ** 30;
    // A 24-hour soak at 525 requests a second: 45.4 million requests, about 12 GB of scratch files.
    expect(judgeScratchForecast(45_360_000, '/var/tmp', 100 * GB)).toBeNull();
    expect(judgeScratchForecast(Math.floor((0.89 * GB) / JUDGE_SCRATCH_BYTES_PER_REQUEST), '/var/tmp', GB)).toBeNull();
    expect(judgeScratchForecast(45_360_000, '/tmp', 2 * GB)).toBe(
      'this run plans about 45.4 million requests, and the judge writes about 290 bytes a request of scratch files (docs/oracle.md, Memory): about 12 GB in /tmp, which has 2.0 GB free. ' +
        'Past about 6.7 million requests its invariants would be "error" (the metrics are kept): free some space there, or set TMPDIR to a directory with room.',
    );
    // A directory that is not there (TMPDIR misspelled) is said whatever the run's length.
    expect(judgeScratchForecast(1_000, '/no/such/dir')).toBe(
      'this run plans about 1,000 requests, and the judge writes its scratch files in /no/such/dir (TMPDIR), which it cannot read: set TMPDIR to a directory it can write, with room for about 290 bytes a request.',
    );
  });
});

describe("the run's caps, from the plan", () => {
  const defaults = { maxRequests: 2_000_000, maxDurationMs: 4 * 60 * min };
  it('a plan within the defaults keeps them; a longer one stretches them with room, so a 24-hour soak is not cut at 4 hours', () => {
    expect(capsForPlan({ totalMs: 30 * min, requests: 40_000 }, {}, defaults)).toEqual({ caps: defaults, warnings: [] });
    const day = capsForPlan({ totalMs: 24 * 60 * min, requests: 45_360_000 }, {}, defaults);
    expect(day.warnings).toEqual([]);
    expect(day.caps.maxDurationMs).toBe(30 * 60 * min + 10 * min);
    expect(day.caps.maxRequests).toBe(Math.ceil(45_360_000 * 1.25));
  });
  it('a cap given below the plan stands, and the run says where it will stop and what would run it whole', () => {
    const r = capsForPlan({ totalMs: 5 * 60 * min, requests: 3_000_000 }, { maxDurationMs: 4 * 60 * min, maxRequests: 2_500_000 }, defaults);
    expect(r.caps).toEqual({ maxDurationMs: 4 * 60 * min, maxRequests: 2_500_000 });
    expect(r.warnings).toEqual([
      'the plan (about 300 min) is longer than --max-duration (240 min): the run will stop there and be judged on what it measured. To run it whole: --max-duration 385m',
      'the plan makes about 3,000,000 requests, more than --max-requests (2,500,000): the run will stop there and be judged on what it measured. To run it whole: --max-requests 3750000',
    ]);
    expect(capsForPlan({ totalMs: 5 * 60 * min, requests: 3_000_000 }, { maxDurationMs: 6 * 60 * min, maxRequests: 4_000_000 }, defaults).warnings).toEqual([]);
  });
});
