/**
 * A burst request that gets no answer (time-out, connection error) is recorded from when it was
 * sent, not from when autocannon reported the error (up to the request time-out later): the rate
 * rules (RL-1/RL-7/RL-9) count a request the server may have counted by when it was sent.
 * Loopback stub on port 0.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeKeySecrets } from '../../src/client/index.ts';
import { RunClock, runScenarios } from '../../src/engine/index.ts';
import { HistoryWriter, historyRecordSchema, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { parseKeyArg } from '../../src/spec/index.ts';
import { judgeOne, runRec } from '../oracle/fixtures.ts';
import { sendJson, startStub, type Stub } from './stub.ts';

const SECRET = 'svc_test_sk_burstKEY7777';
const KEYS = makeKeySecrets([parseKeyArg(`m1:${SECRET}`)]);
const LIMIT = 5;
const RESET = Math.ceil(Date.now() / 1000) + 60;
let stub: Stub | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

describe('burst: a request with no answer', () => {
  it('is recorded from when it was sent, and the oracle counts it before the first 429', async () => {
    const clock = new RunClock();
    let lostArrived = -1;
    // A fresh fixed window of LIMIT: the 2nd request is counted but never answered; past the limit, 429.
    stub = await startStub((_req, res, _b, n) => {
      if (n === 1) {
        lostArrived = clock.now();
        return;
      }
      const remaining = LIMIT - 1 - n;
      const h = { 'X-RateLimit-Limit': String(LIMIT), 'X-RateLimit-Remaining': String(Math.max(0, remaining)), 'X-RateLimit-Reset': String(RESET) };
      if (remaining < 0) {
        sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', param: null, decline_code: null, doc_url: null, request_id: `req_${n}` } }, { ...h, 'Retry-After': '60' });
      } else sendJson(res, 200, { object: 'list', data: [], has_more: false, url: '/v1/payments' }, h);
    });
    const records: HistoryRecord[] = [];
    const startAtWall = clock.wall() + 100;
    const label = KEYS[0].handle.label;
    await runScenarios({
      scenarios: [
        {
          name: 'b',
          description: 'b',
          rules: ['RL-1'],
          async run(ctx) {
            await ctx.burst({ key: ctx.keys[0], amount: 7, connections: 2, method: 'GET', path: '/v1/payments?limit=1', startAtWall, group: 'rl-burst' });
          },
        },
      ],
      target: { url: stub.url, embedded: false, presentation: 'B', rateLimit: null },
      keys: KEYS,
      cards: {},
      clock,
      writer: HistoryWriter.memory(records),
      caps: { maxRequests: 100, maxDurationMs: 30_000 },
      seed: 1,
      timeScale: 1,
      log: () => {},
      timeoutMs: 1000,
    });
    const ex = records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
    for (const r of ex) expect(historyRecordSchema.safeParse(r).success).toBe(true);
    const lost = ex.filter((r) => r.status === 0);
    expect(lost.length).toBe(1);
    expect(lostArrived).toBeGreaterThan(0);
    // Sent before it reached the stub; the error surfaced about the time-out (1 s) after it was
    // sent (measured from the send: on a loaded machine the stub may see the request late).
    expect(lost[0].tStart).toBeLessThanOrEqual(lostArrived);
    expect(lost[0].tIntended).toBe(lost[0].tStart);
    expect(lost[0].tEnd - lost[0].tStart).toBeGreaterThan(900);
    const first429 = ex.filter((r) => r.status === 429).sort((a, b) => a.tEnd - b.tEnd)[0];
    expect(first429).toBeDefined();
    expect(lost[0].tStart).toBeLessThan(first429.tEnd);
    // The history as recorded: the window's first 429 came after LIMIT counted requests, one of them unanswered.
    const run = runRec({
      wall: clock.wall() - clock.now(),
      target: { url: stub.url, embedded: false, presentation: 'B' },
      rateLimit: { limit: LIMIT, windowMs: 60_000 },
      keys: [{ label, merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: '7777' }],
    });
    const r = await judgeOne('rate-no-early-429', [run, ...ex]);
    expect(r.checked).toBeGreaterThan(0);
    expect(r.examples.map((e) => e.message)).toEqual([]);
  });
});
