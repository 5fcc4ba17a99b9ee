/**
 * A realistic Summary v1 for the report tests: a failed 60-second run against the
 * embedded target (rate window scaled to 30 s), with every invariant status, a
 * breached and a met threshold, two fault windows, a per-second timeline with latency
 * per operation, and rate-limit samples for two keys across two windows.
 */
import type { LatencySummary, RateSample, RunMetrics, TimelinePoint } from '../../src/spec/scenario.ts';
import type { Summary } from '../../src/spec/summary.ts';
import { seededRandom } from '../../src/spec/random.ts';

/** Seeded, so the fixture and its screenshot are stable. */
const rng = seededRandom;

export const KEY_A = 'm1/test/…a1b2';
export const KEY_B = 'm2/test/…c3d4';
export const LEAKED_SECRET = 'svc_test_sk_9f8e7d6c5b4a3210LEAK';
export const WINDOW_MS = 30_000;
export const LIMIT = 100;

const FAULTS: Summary['faults'] = [
  { proxy: 'processor', link: 'upstream', type: 'latency', name: 'slow-processor', stream: 'downstream', toxicity: 1, attributes: { latency: 1500, jitter: 300 }, tStart: 20_000, tEnd: 35_000 },
  { proxy: 'api', link: 'client', type: 'reset_peer', name: 'drop-connections', stream: 'upstream', toxicity: 0.3, attributes: { timeout: 0 }, tStart: 45_000, tEnd: 48_000 },
];

function timeline(): TimelinePoint[] {
  const r = rng(7);
  const points: TimelinePoint[] = [];
  const base: Record<string, number> = { create: 120, retrieve: 35, refund: 140, list: 60 };
  for (let t = 0; t < 60; t++) {
    const slow = t >= 20 && t < 35;
    const resets = t >= 45 && t < 48;
    const requests = Math.round(38 + 8 * Math.sin(t / 6) + r() * 6);
    const s429 = t >= 19 && t < 30 ? Math.round(requests * 0.35) : 0;
    const s5xx = slow ? Math.round(1 + r() * 4) : 0;
    const failures = resets ? Math.round(4 + r() * 4) : slow && r() < 0.3 ? 1 : 0;
    const s4xx = Math.round(2 + r() * 3);
    const s2xx = Math.max(0, requests - s429 - s5xx - s4xx - failures);
    const latency: TimelinePoint['latency'] = {};
    for (const [op, ms] of Object.entries(base)) {
      const factor = slow && op !== 'list' && op !== 'retrieve' ? 12 + r() * 4 : 1;
      const p50 = Math.round(ms * factor * (0.9 + r() * 0.2));
      latency[op] = { p50, p99: Math.round(p50 * (2.2 + r())), count: Math.round(requests / 4) };
    }
    points.push({ t, requests, s2xx, s4xx, s5xx, s429, failures, inFlight: Math.round((slow ? 28 : 6) + r() * 4), latency });
  }
  return points;
}

/**
 * Key A is driven hard: remaining falls to 0 and 429s follow until its window resets
 * at 30.2 s. Key B is light and starts later, so its edge (35.0 s) differs.
 */
function rateSamples(): RateSample[] {
  const samples: RateSample[] = [];
  const wallStart = 1_736_936_430; // Unix seconds at run start
  const key = (name: string, first: number, every: number, perWindow: number) => {
    for (let t = first; t < 60_000; t += every) {
      const win = Math.floor((t - first) / WINDOW_MS);
      const winStart = first + win * WINDOW_MS;
      const used = Math.floor(((t - winStart) / WINDOW_MS) * perWindow) + 1;
      const remaining = Math.max(0, LIMIT - used);
      const status = used > LIMIT ? 429 : 201;
      samples.push({ t, key: name, limit: LIMIT, remaining, reset: wallStart + Math.ceil((winStart + WINDOW_MS) / 1000), status });
    }
  };
  key(KEY_A, 200, 250, 160);
  key(KEY_B, 5_000, 500, 40);
  return samples.sort((a, b) => a.t - b.t);
}

function lat(count: number, p50: number): LatencySummary {
  return { count, min: p50 * 0.4, mean: p50 * 1.2, p50, p90: p50 * 2, p99: p50 * 3.4, p999: p50 * 5.1, max: p50 * 6.3, hdr: '' };
}

export function fixtureMetrics(): RunMetrics {
  const tl = timeline();
  const requests = tl.reduce((n, p) => n + p.requests, 0);
  return {
    requests,
    dropped: 3,
    failures: tl.reduce((n, p) => n + p.failures, 0),
    durationMs: 60_000,
    latency: {
      create: { '2xx': lat(520, 131), '429': lat(140, 4.2), '5xx': lat(31, 1840) },
      retrieve: { '2xx': lat(610, 36.5), '4xx': lat(12, 20.1) },
      refund: { '2xx': lat(300, 150.2), '4xx': lat(44, 61.9), failure: lat(18, 10_000) },
      list: { '2xx': lat(590, 63) },
    },
    timeline: tl,
    rate: rateSamples(),
    trends: {
      settle_time: { count: 480, min: 210, mean: 1330, p50: 1100, p90: 2400, p99: 4800, p999: 5200, max: 5300 },
      webhook_lag: { count: 470, min: 4, mean: 38, p50: 22, p90: 80, p99: 310, p999: 400, max: 420 },
    },
  };
}

export function fixtureSummary(): Summary {
  return {
    version: 1,
    runId: '2025-01-15T10-20-30Z-7f3a',
    verdict: 'fail',
    reason: 'failed: 3 invariants violated (rate-limit-window, idempotency-single-object, secret-echo)',
    complete: true,
    exitCode: 1,
    target: { url: 'http://127.0.0.1:41234', embedded: true, presentation: 'B' },
    started_at: '2025-01-15T10:20:30.000Z',
    duration_ms: 60_412,
    scenarios: [
      { name: 'rate-limit', rules: ['RL-1', 'RL-2', 'RL-3', 'RL-7', 'RL-9'] },
      { name: 'idempotency-race', rules: ['IDEM-3', 'IDEM-5', 'IDEM-6'] },
      { name: 'upstream-latency', rules: ['FT-1', 'FT-2', 'FT-4'] },
      { name: 'list-walk', rules: ['LIST-5', 'LIST-8'] },
    ],
    invariants: [
      {
        id: 'auth-401',
        title: 'Bad credentials give 401 invalid_api_key',
        rules: ['AUTH-1', 'AUTH-2', 'AUTH-3'],
        status: 'pass',
        violations: 0,
        examples: [],
        reason: null,
        error: null,
        checked: 24,
      },
      {
        id: 'rate-limit-window',
        title: 'No fixed window holds more responses than the limit',
        rules: ['RL-1', 'RL-2'],
        status: 'fail',
        violations: 2,
        examples: [
          {
            message: 'window starting at 30.2 s for m1/test/…a1b2 held 104 non-429 responses (limit 100)',
            requestIds: ['req_8c1f0a9e2b', 'req_8c1f0a9e2c'],
            seqs: [1812, 1813],
            times: [30_212.4, 30_219.9],
            keys: [KEY_A],
            bodies: ['{"id":"pay_5b0e…","status":"pending"}'],
          },
          {
            message: 'window starting at 0.2 s for m1/test/…a1b2 held 101 non-429 responses (limit 100)',
            requestIds: ['req_11aa22bb33'],
            times: [18_904],
            keys: [KEY_A],
          },
        ],
        reason: '2 windows exceeded X-RateLimit-Limit',
        error: null,
        checked: 4,
      },
      {
        id: 'idempotency-single-object',
        title: 'Concurrent requests with one Idempotency-Key create at most one payment',
        rules: ['IDEM-3', 'IDEM-6'],
        status: 'fail',
        violations: 1,
        examples: [
          {
            message: 'Key "race-12" created 2 payments <pay_a & pay_b> | both 201',
            requestIds: ['req_race12_a', 'req_race12_b'],
            times: [40_100.5, 40_101.2],
            keys: [KEY_B],
            idemKeys: ['race-12'],
            paymentIds: ['pay_0d6c2f1e-aaaa', 'pay_0d6c2f1e-bbbb'],
            bodies: ['{"id":"pay_0d6c2f1e-aaaa","amount":1000,"note":"</script><script>alert(1)</script>"}'],
          },
        ],
        reason: null,
        error: null,
        checked: 40,
      },
      {
        id: 'secret-echo',
        title: 'No response echoes an API key or a full card number',
        rules: ['SEC-2'],
        status: 'fail',
        violations: 1,
        examples: [{ message: 'error message echoed the API key', requestIds: ['req_leak01'], bodies: [`{"error":{"message":"bad key ${LEAKED_SECRET}"}}`] }],
        reason: null,
        error: null,
        checked: 3120,
      },
      {
        id: 'webhook-terminal-events',
        title: 'Every terminal payment gets an event',
        rules: ['WH-4', 'WH-5'],
        status: 'not-exercised',
        violations: 0,
        examples: [],
        reason: 'no webhook receiver was wired to the target (--webhook-url not set)',
        error: null,
        checked: 0,
      },
      {
        id: 'list-walk-once',
        title: 'Walking pages yields each payment exactly once',
        rules: ['LIST-5', 'LIST-8'],
        status: 'error',
        violations: 0,
        examples: [],
        reason: 'the oracle threw while reading list pages',
        error: "TypeError: Cannot read properties of undefined (reading 'ids')\n    at walkPages (src/oracle/list.ts:88:21)\n    at checkListWalk (src/oracle/list.ts:41:9)",
        checked: 0,
      },
      {
        id: 'state-machine',
        title: 'Observed status sequences follow the transition table',
        rules: ['SM-1', 'SM-2'],
        status: 'pass',
        violations: 0,
        examples: [],
        reason: '612 payments, 2107 observations',
        error: null,
        checked: 612,
      },
      {
        id: 'refund-sum',
        title: 'Succeeded refunds never exceed the amount',
        rules: ['REF-3'],
        status: 'pass',
        violations: 0,
        examples: [],
        reason: null,
        error: null,
        checked: 88,
      },
    ],
    thresholds: [
      { metric: 'http_req_failed', expr: 'rate<0.05', value: 0.0213, ok: true },
      { metric: 'http_req_duration{op:create}', expr: 'p(99)<800', value: 1234.5, ok: false },
      { metric: 'checks', expr: 'rate>0.99', value: 0.9952, ok: true },
    ],
    faults: FAULTS,
    metrics: fixtureMetrics() as unknown as Record<string, unknown>,
    keys: [
      { label: KEY_A, merchant: 'm1', mode: 'test' },
      { label: KEY_B, merchant: 'm2', mode: 'test' },
    ],
    findings: [
      { id: 'rate-limit-checked', level: 'info', text: 'checked 100 / 30 s: the embedded reference service runs a scaled limit and window.', rules: ['RL-1', 'RL-2'] },
      { id: 'processor-unreachable', level: 'warning', text: 'The processor looks unreachable: 31 creates answered 502.', rules: ['FT-4'] },
      { id: 'refund-path', level: 'observation', text: 'The service serves refunds at POST /v1/payments/{id}/refunds.' },
    ],
    rateBoundary: fixtureRateBoundary(),
    load: [{ scenario: 'upstream-latency', executor: 'constant-arrival-rate', targetRate: 40, achievedRate: 38.5, iterations: 2310, dropped: 3, tStart: 20_000, tEnd: 80_000 }],
  };
}

/** A rate-limit probe result: the edge, then bursts of 60 + 100 admitted across the next boundary at 41.0 s. */
export function fixtureRateBoundary(): NonNullable<Summary['rateBoundary']> {
  const binMs = 50;
  const bins = Array.from({ length: 40 }, (_, i) => {
    const t = 40_000 + i * binMs;
    const before = i < 10;
    const after = i >= 20 && i < 26;
    return { t, admitted: before ? 6 : after ? 17 : 0, refused: before ? 0 : i >= 10 && i < 14 ? 8 : i >= 26 && i < 30 ? 5 : 0 };
  });
  return {
    key: KEY_A,
    limit: LIMIT,
    windowMs: WINDOW_MS,
    why: 'checked 100 / 30 s: the embedded reference service runs a scaled limit and window (--rate-limit, --window-ms) so the default suite takes about a minute, not the spec\'s 500 / 60 s',
    edge: { from: 10_990, to: 11_012, afterOpenMin: 29_990, afterOpenMax: 30_012 },
    burst: { boundary: 41_000, before: 60, after: 102, sent: 220, spanMs: 1_310 },
    bins,
    binMs,
    text: '100 / 30 s: window edge at 29990-30012 ms after the window opened; 60 + 102 admitted across the next boundary within 1310 ms (limit 100, at most 200 allowed)',
  };
}
