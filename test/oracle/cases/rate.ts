import type { ExchangeRecord } from '../../../src/history/index.ts';
import { err, ex, K, rate } from '../fixtures.ts';
import type { CaseTable } from './types.ts';

/** Run start in Unix seconds; the first window (opened at t=0) resets at S + 60. */
export const S = 1_700_000_000;

/** An authenticated GET at t ms answered `status` with the given rate headers. */
export function rl(seq: number, t: number, status: number, remaining: number, reset: number, o: Partial<ExchangeRecord> = {}): ExchangeRecord {
  return ex({
    seq,
    t,
    op: 'retrieve',
    status,
    rate: rate(reset, remaining),
    ...(status === 429 ? { retryAfter: Math.max(0, Math.ceil(reset - S - t / 1000)), error: err('rate_limit_exceeded') } : {}),
    sent: { paymentId: 'pay_x' },
    ...o,
  });
}
export const fill = (from: number, n: number, reset: number, t0 = 0, key: string = K.test) =>
  Array.from({ length: n }, (_, i) => rl(from + i, t0 + i * 100, 200, 4 - i, reset, { key }));

export const RATE_CASES: CaseTable = {
  'rate-window-cap': {
    keeps: () => [...fill(1, 5, S + 60), rl(6, 600, 429, 0, S + 60)],
    violates: () => [...fill(1, 5, S + 60), rl(6, 600, 200, 0, S + 60)],
    seqs: [1, 2, 3, 4, 5, 6].slice(0, 3),
    message: /6 requests.*limit 5/,
  },
  'rate-window-fixed': {
    keeps: () => [rl(1, 0, 200, 4, S + 60), rl(2, 1000, 200, 3, S + 60), rl(3, 70_000, 200, 4, S + 130)],
    violates: () => [rl(1, 0, 200, 4, S + 60), rl(2, 10_000, 200, 4, S + 70)],
    seqs: [1, 2],
    message: /slid or restarted/,
  },
  'rate-burst-cap': {
    keeps: () => [...fill(1, 5, S + 60, 50_000), ...fill(6, 5, S + 120, 60_100)],
    violates: () => [...fill(1, 5, S + 60, 50_000), ...fill(6, 5, S + 120, 60_100), rl(11, 61_000, 200, 0, S + 120)],
    seqs: [1, 2, 3],
    message: /11 requests/,
  },
  'rate-headers-present': {
    keeps: () => [rl(1, 0, 200, 4, S + 60), rl(2, 10, 404, 3, S + 60, { error: err('resource_missing') })],
    violates: () => [rl(1, 0, 200, 4, S + 60), { ...rl(2, 10, 500, 3, S + 60, { error: err('internal_error') }), rate: null }],
    seqs: [2],
  },
  'rate-remaining': {
    keeps: () => [rl(1, 0, 200, 4, S + 60), rl(2, 100, 200, 3, S + 60), rl(3, 200, 200, 2, S + 60)],
    violates: () => [rl(1, 0, 200, 4, S + 60), rl(2, 100, 200, 4, S + 60)],
    seqs: [1, 2],
  },
  'rate-reset-value': {
    keeps: () => [rl(1, 0, 200, 4, S + 60)],
    violates: () => [rl(1, 0, 200, 4, S + 60), rl(2, 20_000, 200, 3, S + 10)],
    seqs: [2],
    message: /in the past/,
  },
  'rate-limited-response': {
    keeps: () => [rl(1, 0, 429, 0, S + 60)],
    violates: () => [{ ...rl(1, 0, 429, 0, S + 60), retryAfter: null }],
    seqs: [1],
    message: /Retry-After/,
  },
  'retry-after-honest': {
    keeps: () => [rl(1, 1000, 429, 0, S + 60), rl(2, 61_000, 200, 4, S + 121)],
    violates: () => [{ ...rl(1, 1000, 429, 0, S + 60), retryAfter: 1 }, rl(2, 4000, 429, 0, S + 60)],
    seqs: [1, 2],
    message: /refused again in the same window/,
  },
  'rate-no-early-429': {
    // A fresh window (the first answer says remaining = limit - 1): 429 only after the limit.
    keeps: () => [...fill(1, 5, S + 60), rl(6, 600, 429, 0, S + 60)],
    violates: () => [...fill(1, 4, S + 60), rl(5, 500, 429, 0, S + 60)],
    seqs: [5],
    message: /429 after only 4 counted request\(s\).*X-RateLimit-Limit 5/,
  },
  'rate-limit-per-key': {
    keeps: () => [...fill(1, 5, S + 60), rl(6, 600, 429, 0, S + 60), rl(7, 700, 200, 4, S + 61, { key: K.test2 })],
    violates: () => [...fill(1, 5, S + 60), rl(6, 600, 429, 0, S + 60), rl(7, 700, 200, 4, S + 61, { key: K.test2 }), rl(8, 800, 429, 0, S + 61, { key: K.test2 })],
    seqs: [8],
    message: /only 1 of its own/,
  },
};
