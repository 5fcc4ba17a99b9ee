import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_BODY_FIELDS } from '../../src/spec/index.ts';
import { KEYS, client, closeAll, http, rateHeaders, sleep, start } from './helpers.ts';

afterEach(closeAll);
const WINDOW = 2000;

describe('rate limit (RL)', () => {
  it('RL-1/5/6/7: remaining falls by one, reset is constant and ahead, the request over the limit gets a full 429', async () => {
    const s = await start({ rateLimit: 5, windowMs: WINDOW });
    const c = client(s, KEYS.acmeTest);
    const seen = [];
    for (let i = 0; i < 5; i++) seen.push(rateHeaders(await c.get('/v1/payments')));
    expect(seen.map((h) => h.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(new Set(seen.map((h) => h.limit))).toEqual(new Set([5]));
    expect(new Set(seen.map((h) => h.reset)).size).toBe(1);
    expect(seen[0].reset!).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    const r = await c.get('/v1/payments');
    expect(r.status).toBe(429);
    expect(r.json.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'rate_limit_error', param: null, decline_code: null });
    expect(Object.keys(r.json.error).sort()).toEqual([...ERROR_BODY_FIELDS].sort());
    const h = rateHeaders(r);
    expect(h.remaining).toBe(0);
    expect(h.reset).toBe(seen[0].reset);
    expect(h.retryAfter).toBeGreaterThanOrEqual(1);
    expect(h.retryAfter).toBeLessThanOrEqual(WINDOW / 1000);
  });

  it('RL-2/8: the window is fixed from the first request, refused requests do not count, and Retry-After is honest', async () => {
    const s = await start({ rateLimit: 3, windowMs: WINDOW });
    const c = client(s, KEYS.acmeTest);
    const first = rateHeaders(await c.get('/v1/payments'));
    await sleep(800);
    // Later requests do not restart the window.
    expect(rateHeaders(await c.get('/v1/payments')).reset).toBe(first.reset);
    await c.get('/v1/payments');
    let refused = await c.get('/v1/payments');
    for (let i = 0; i < 5; i++) refused = await c.get('/v1/payments');
    expect(refused.status).toBe(429);
    await sleep(rateHeaders(refused).retryAfter! * 1000 + 50);
    // After Retry-After the key has a fresh, full window.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await c.get('/v1/payments')).status);
    expect(statuses).toEqual([200, 200, 200]);
    expect((await c.get('/v1/payments')).status).toBe(429);
  });

  it('RL-4: rate headers on 2xx, 4xx and 5xx of authenticated requests', async () => {
    // upstream on a closed port and a backlog of 1: the second create is shed with 503.
    const s = await start({ rateLimit: 100, windowMs: WINDOW, upstreamUrl: 'http://127.0.0.1:9', upstreamBacklogLimit: 1 });
    const c = client(s, KEYS.acmeTest);
    const responses = [
      await c.get('/v1/payments'),
      await c.create({ amount: 0 }),
      await c.get('/v1/payments/pay_nope'),
      await c.get('/v1/nothing-here'),
      await c.create({}, { idem: null }),
      await client(s, KEYS.acmeNoDirect).create(),
    ];
    const first = await c.create();
    expect(first.status).toBe(201);
    let shed = first;
    for (let i = 0; i < 50 && shed.status !== 503; i++) {
      await sleep(10);
      shed = await c.create();
    }
    expect(shed.status).toBe(503);
    responses.push(shed);
    expect(responses.map((r) => r.status)).toEqual([200, 400, 404, 404, 400, 403, 503]);
    for (const r of responses) {
      const h = rateHeaders(r);
      expect(h.limit).toBe(100);
      expect(h.remaining).toBeGreaterThanOrEqual(0);
      expect(h.reset).toBeGreaterThan(0);
    }
  });

  it('RL-9: counters are per API key, also between one merchant\'s test and live keys', async () => {
    const s = await start({ rateLimit: 2, windowMs: WINDOW });
    const a = client(s, KEYS.acmeTest);
    for (let i = 0; i < 3; i++) await a.get('/v1/payments');
    expect((await a.get('/v1/payments')).status).toBe(429);
    for (const k of [KEYS.acmeTestApi, KEYS.acmeLive, KEYS.globexTest]) {
      const r = await http(s.url, 'GET', '/v1/payments', { key: k });
      expect(r.status).toBe(200);
      expect(rateHeaders(r).remaining).toBe(1);
    }
  });

  it('RL-1/RL-3: concurrent requests never get more than the limit admitted in one window', async () => {
    const s = await start({ rateLimit: 20, windowMs: 3000 });
    const c = client(s, KEYS.acmeTest);
    const rs = await Promise.all(Array.from({ length: 60 }, () => c.get('/v1/payments')));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(20);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(40);
    expect(Math.min(...rs.map((r) => rateHeaders(r).remaining!))).toBe(0);
  });
});
