/**
 * rate-limit: drives one key past its limit inside one fixed window and checks the
 * 429 form and the window arithmetic:
 *  - every 429 has rate_limit_exceeded, Retry-After in seconds, X-RateLimit-Remaining 0 (RL-7);
 *  - every authenticated response carries the three rate headers (RL-4), Remaining is
 *    never negative (RL-5), Reset is Unix seconds not in the past (RL-6);
 *  - per window (responses grouped by their X-RateLimit-Reset), the non-429 responses
 *    never exceed X-RateLimit-Limit (RL-1);
 *  - another key is not limited meanwhile (RL-9), and after Retry-After a request is
 *    accepted again (RL-8).
 * The key is the last test key of the first merchant (paystorm's rule). Run it on one
 * machine (plain `k6 run`): it is one VU by design.
 *
 *   k6 run -e TARGET=… -e KEYS=m1:svc_test_sk_…,m1:svc_test_sk_… dist/k6/rate-limit.js
 */
import type { Options } from 'k6/options';
import { sleep } from 'k6';
import { API_PATHS } from '../../src/spec/operations.ts';
import { LIMITS, RATE_HEADERS } from '../../src/spec/limits.ts';
import { Api, header, type ApiResult } from '../lib/api.ts';
import { expect } from '../lib/checks.ts';
import { parseKeys, parseNumber, parseTarget, rateLimitKeyOf, testKeysOf } from '../lib/config.ts';
import { metricKey } from '../lib/thresholds.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';
import { recordEnd, recordRun, setScript, windowMsOf } from '../lib/record.ts';

setScript('rate-limit');

const KEYS = parseKeys(__ENV);
/** Requests sent in parallel per step. */
const BATCH = parseNumber(__ENV, 'RL_BATCH', 10, 1, 100);
/** Give up after this many times X-RateLimit-Limit requests without a 429. */
const MAX_FACTOR = parseNumber(__ENV, 'RL_MAX_FACTOR', 2.5, 1.1, 10);
/** 429s to collect before stopping. */
const WANT_429 = parseNumber(__ENV, 'RL_429S', 3, 1, 1000);

export const options: Options = {
  scenarios: {
    'rate-limit': { executor: 'per-vu-iterations', vus: 1, iterations: 1, maxDuration: '5m', exec: 'rateLimit' },
  },
  thresholds: {
    // Every check must hold, and the run must actually have been refused at least once.
    [metricKey('checks')]: ['rate==1'],
    [metricKey('rate_limited')]: ['rate>0'],
    [metricKey('http_req_failed')]: ['rate<0.01'],
  },
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(99)'],
  userAgent: 'paystorm-k6',
  systemTags: [...K6_SYSTEM_TAGS],
};

interface Sample {
  status: number;
  limit: number;
  remaining: number;
  reset: number;
  /** Unix seconds when the response arrived. */
  at: number;
}

function sample(r: ApiResult): Sample {
  return {
    status: r.status,
    limit: Number(header(r, RATE_HEADERS.limit)),
    remaining: Number(header(r, RATE_HEADERS.remaining)),
    reset: Number(header(r, RATE_HEADERS.reset)),
    at: (r.sentAt + r.durationMs) / 1000,
  };
}

function sampleChecks(s: Sample): void {
  if (s.status === 0 || s.status === 401) return;
  expect('RL-5: X-RateLimit-Remaining is never negative', Number.isInteger(s.remaining) && s.remaining >= 0);
  expect(
    'RL-6: X-RateLimit-Reset is Unix seconds, not in the past',
    Number.isInteger(s.reset) && s.reset >= Math.floor(s.at) - 1 && s.reset <= s.at + LIMITS.rateWindowMs / 1000 + 1,
  );
}

interface SetupData {
  /** Wall time (epoch ms) at setup's end, for teardown's end marker. */
  setupWall: number;
}

export function setup(): SetupData {
  parseTarget(__ENV);
  if (!rateLimitKeyOf(KEYS)) throw new Error('rate-limit: KEYS has no test key. Set KEYS=[merchant:]svc_test_sk_…');
  // The limit is learned from the records' X-RateLimit-Limit; the window is WINDOW_MS (default 60 s).
  const setupWall = recordRun({ target: parseTarget(__ENV), presentation: null, rateLimit: null, keys: KEYS, cardOutcomes: [], windowMs: windowMsOf(__ENV) });
  return { setupWall };
}

/** The end marker: the plan (one iteration) that paystorm check compares with the iterations k6 wrote. */
export function teardown(data: SetupData | undefined): void {
  recordEnd(options.scenarios, data ? data.setupWall : undefined);
}

export function rateLimit(): void {
  const target = parseTarget(__ENV);
  const key = rateLimitKeyOf(KEYS);
  if (!key) return;
  const api = new Api(target, key);
  const once = { retries: 0, retry429: false };
  const first = api.list({ limit: 1 }, once);
  const limit = Number(header(first, RATE_HEADERS.limit));
  if (!(Number.isInteger(limit) && limit > 0)) {
    expect('RL-4: X-RateLimit-Limit is a positive integer', false);
    return;
  }
  console.log(`rate-limit: exhausting ${key.label} (X-RateLimit-Limit ${limit}) on ${target}`);
  const samples: Sample[] = [sample(first)];
  let last429: ApiResult | null = first.status === 429 ? first : null;
  let count429 = first.status === 429 ? 1 : 0;
  const cap = Math.ceil(limit * MAX_FACTOR) + BATCH;
  while (samples.length < cap && count429 < WANT_429) {
    const batch = api.batch(Array.from({ length: BATCH }, () => ({ method: 'GET' as const, path: API_PATHS.payments, op: 'list' as const, opts: { query: { limit: 1 } } })));
    for (const r of batch) {
      samples.push(sample(r));
      if (r.status === 429) {
        count429++;
        last429 = r;
      }
    }
  }
  for (const s of samples) sampleChecks(s);
  expect('RL-7: going past X-RateLimit-Limit inside one window gives 429', count429 > 0);

  // RL-1: per window (one X-RateLimit-Reset value), non-429 answers <= the limit in effect.
  const perWindow: Record<string, { ok: number; limit: number }> = {};
  for (const s of samples) {
    if (s.status === 0 || s.status === 401 || !Number.isFinite(s.reset)) continue;
    const w = perWindow[String(s.reset)] || (perWindow[String(s.reset)] = { ok: 0, limit: 0 });
    if (s.status !== 429) w.ok++;
    if (Number.isFinite(s.limit)) w.limit = Math.max(w.limit, s.limit);
  }
  for (const reset of Object.keys(perWindow)) {
    const w = perWindow[reset];
    expect('RL-1: non-429 responses in one window never exceed X-RateLimit-Limit', w.ok <= w.limit);
    if (w.ok > w.limit) console.error(`rate-limit: window resetting at ${reset} answered ${w.ok} non-429 responses, limit ${w.limit}`);
  }

  // RL-9: another key (test or live) is not limited by this key's exhaustion.
  const other = testKeysOf(KEYS).find((k) => k.secret !== key.secret);
  if (other) {
    const r = new Api(target, other).list({ limit: 1 }, once);
    expect('RL-9: exhausting one key never gives 429 to another key', r.status !== 429);
  }

  // RL-8: after Retry-After has elapsed the key is served again.
  if (last429) {
    const ra = Number(header(last429, RATE_HEADERS.retryAfter));
    if (Number.isFinite(ra) && ra >= 0 && ra <= LIMITS.rateWindowMs / 1000 + 1) {
      const elapsed = (Date.now() - (last429.sentAt + last429.durationMs)) / 1000;
      sleep(Math.max(0, ra - elapsed) + 0.25);
      const again = api.list({ limit: 1 }, once);
      expect('RL-8: a request sent after Retry-After has elapsed is not refused', again.status !== 429);
    } else {
      expect('RL-8: Retry-After is at most one window length', false);
    }
  }
}

export default rateLimit;
