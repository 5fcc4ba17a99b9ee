import { afterEach, describe, expect, it } from 'vitest';
import { makeKeySecrets } from '../../src/client/index.ts';
import { RunClock, burstOperation, runScenarios } from '../../src/engine/index.ts';
import { HistoryWriter } from '../../src/history/index.ts';
import { parseKeyArg } from '../../src/spec/index.ts';
import { historyRecordSchema, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { PAY_ID, paymentB, sendJson, startStub, type Stub } from './stub.ts';

const SECRET = 'svc_test_sk_burstKEY5555';
const KEYS = makeKeySecrets([parseKeyArg(`m1:${SECRET}`)]);
let stub: Stub | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

/** A fixed-window limiter of `limit` requests, as the spec describes, answering 429 past it. */
function limitedStub(limit: number) {
  const idemKeys: string[] = [];
  let used = 0;
  return {
    idemKeys,
    start: () =>
      startStub((req, res) => {
        idemKeys.push(String(req.headers['idempotency-key']));
        used++;
        const remaining = Math.max(0, limit - used);
        const headers = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(remaining), 'X-RateLimit-Reset': '1900000000' };
        if (used > limit) sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow', param: null, decline_code: null, doc_url: null, request_id: 'req_r' } }, { ...headers, 'Retry-After': '42' });
        else sendJson(res, 201, paymentB(PAY_ID), headers);
      }),
  };
}

describe('burst (autocannon)', () => {
  it('records every response with its rate headers, Retry-After and a fresh Idempotency-Key', async () => {
    const limited = limitedStub(25);
    stub = await limited.start();
    const records: HistoryRecord[] = [];
    const clock = new RunClock();
    let result: { sent: number; statuses: Record<number, number> } | null = null;
    const startAtWall = clock.wall() + 150;
    await runScenarios({
      scenarios: [
        {
          name: 'burst',
          description: 'burst across the limit',
          rules: ['RL-1'],
          async run(ctx) {
            result = await ctx.burst({ key: ctx.keys[0], amount: 40, connections: 4, method: 'POST', path: '/v1/payments', body: { amount: 100, currency: 'EUR' }, startAtWall, group: 'edge' });
          },
        },
      ],
      target: { url: stub.url, embedded: false, presentation: 'B', rateLimit: null },
      keys: KEYS,
      cards: {},
      clock,
      writer: HistoryWriter.memory(records),
      caps: { maxRequests: 1000, maxDurationMs: 30_000 },
      seed: 1,
      timeScale: 1,
      log: () => {},
    });
    expect(result).toEqual({ sent: 40, statuses: { 201: 25, 429: 15 } });
    const ex = records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
    expect(ex.length).toBe(40);
    for (const r of ex) {
      historyRecordSchema.parse(JSON.parse(JSON.stringify(r)));
      expect(r).toMatchObject({ op: 'create', group: 'edge', key: 'm1/test/…5555', sent: { method: 'POST', path: '/v1/payments', amount: 100 } });
      expect(r.rate?.limit).toBe(25);
      expect(r.wall).toBeGreaterThanOrEqual(startAtWall - 5);
    }
    const limitedOnes = ex.filter((r) => r.status === 429);
    expect(limitedOnes.every((r) => r.retryAfter === 42 && r.rate?.remaining === 0 && r.error?.code === 'rate_limit_exceeded')).toBe(true);
    // Each request its own key, and the record names the key that was sent.
    expect(new Set(limited.idemKeys).size).toBe(40);
    expect(new Set(ex.map((r) => r.idemKey))).toEqual(new Set(limited.idemKeys));
    expect(JSON.stringify(records)).not.toContain(SECRET);
  });

  it('sends no more than the run budget admits', async () => {
    const limited = limitedStub(1000);
    stub = await limited.start();
    const records: HistoryRecord[] = [];
    const outcome = await runScenarios({
      scenarios: [{ name: 'b', description: '', rules: [], run: async (ctx) => void (await ctx.burst({ key: ctx.keys[0], amount: 100, connections: 10, method: 'GET', path: '/v1/payments' })) }],
      target: { url: stub.url, embedded: false, presentation: 'B', rateLimit: null },
      keys: KEYS,
      cards: {},
      clock: new RunClock(),
      writer: HistoryWriter.memory(records),
      caps: { maxRequests: 30, maxDurationMs: 30_000 },
      seed: 1,
      timeScale: 1,
      log: () => {},
    });
    expect(records.filter((r) => r.kind === 'exchange').length).toBe(30);
    expect(stub.count).toBe(30);
    expect(outcome.reason).toBe('cap:max-requests');
  });

  it('names the operation a burst performs', () => {
    expect(burstOperation('POST', '/v1/payments')).toBe('create');
    expect(burstOperation('POST', '/v1/payments/hpp')).toBe('create_hpp');
    expect(burstOperation('GET', '/v1/payments?limit=1')).toBe('list');
    expect(burstOperation('GET', '/v1/payments/pay_1')).toBe('retrieve');
    expect(burstOperation('POST', '/v1/payments/pay_1/refund')).toBe('refund');
    expect(burstOperation('POST', '/v1/refunds')).toBe('refund_create');
    expect(burstOperation('DELETE', '/v1/payments')).toBe('raw');
  });
});
