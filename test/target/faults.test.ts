import { afterEach, describe, expect, it } from 'vitest';
import { normalizePayment } from '../../src/spec/index.ts';
import { startProcessor, type RunningProcessor } from '../../src/target/index.ts';
import { KEYS, client, closeAll, freshIdem, http, sleep, start, startTcpProxy } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll();
  for (const c of cleanups.splice(0)) await c();
});

async function processor(): Promise<RunningProcessor> {
  const p = await startProcessor({ timeScale: 0.01 });
  cleanups.push(() => p.close());
  return p;
}

describe('faults between the service and the processor (FT)', () => {
  for (const fault of ['reset', 'hang'] as const) {
    it(`FT-1/2/4 / REF-1: with the processor link ${fault === 'reset' ? 'resetting' : 'hanging'}, creates answer 201 pending, none is lost, all settle after it heals`, async () => {
      const proc = await processor();
      const proxy = await startTcpProxy(proc.port);
      cleanups.push(proxy.close);
      const s = await start({ upstreamUrl: proxy.url, timeScale: 0.01 });
      expect(s.processor).toBeUndefined();
      const c = client(s, KEYS.acmeTest);
      const paid = await c.create({ amount: 900 });
      await c.waitFor(paid.json.id, (p) => p.status === 'succeeded');
      proxy.set(fault);
      const refund = await c.refund(paid.json.id, { amount: 300 });
      expect(refund.status).toBe(201);
      const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => c.create({ amount: 100 + i })));
      for (const r of rs) {
        expect(r.status).toBe(201);
        expect(r.headers['content-type']).toBe('application/json');
        expect(normalizePayment(r.json)!.status).toBe('pending');
      }
      await sleep(400);
      for (const r of rs) expect((await c.payment(r.json.id))!.status).toBe('pending');
      proxy.set('pass');
      for (const r of rs) expect((await c.waitFor(r.json.id, (p) => p.status === 'succeeded', 10_000)).amount).toBe(r.json.amount);
      expect((await c.waitFor(paid.json.id, (p) => p.refunds![0].status !== 'pending', 10_000)).amountRefunded).toBe(300);
    });
  }

  it('FT-2: a processor that is down at first and then starts on its port settles every pending payment', async () => {
    const proc = await processor();
    const port = proc.port;
    await proc.close();
    const s = await start({ upstreamUrl: `http://127.0.0.1:${port}`, timeScale: 0.01 });
    const c = client(s, KEYS.acmeTest);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await c.create()).json.id);
    await sleep(200);
    const again = await startProcessor({ port, timeScale: 0.01 });
    cleanups.push(() => again.close());
    for (const id of ids) await c.waitFor(id, (p) => p.status === 'succeeded', 10_000);
  });

  it('FT-3/4/5: load shedding answers 503 service_unavailable; a retry with the same key after recovery creates exactly one payment', async () => {
    const proc = await processor();
    const proxy = await startTcpProxy(proc.port);
    cleanups.push(proxy.close);
    const s = await start({ upstreamUrl: proxy.url, timeScale: 0.01, upstreamBacklogLimit: 2 });
    const c = client(s, KEYS.acmeTest);
    proxy.set('reset');
    const first = [await c.create(), await c.create()];
    for (const r of first) expect(r.status).toBe(201);
    const idem = freshIdem();
    let shed = await c.create({ description: idem }, { idem });
    for (let i = 0; i < 50 && shed.status === 201; i++) shed = await c.create({ description: idem }, { idem: freshIdem() });
    expect(shed.status).toBe(503);
    expect(shed.json.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    // Auth and idempotency behave the same while the upstream fails.
    expect((await http(s.url, 'GET', '/v1/payments', { key: 'svc_test_sk_unknownKey000000000000000000' })).status).toBe(401);
    proxy.set('pass');
    for (const r of first) await c.waitFor(r.json.id, (p) => p.status === 'succeeded', 10_000);
    const retryIdem = freshIdem();
    const a = await c.create({ description: retryIdem }, { idem: retryIdem });
    const b = await c.create({ description: retryIdem }, { idem: retryIdem });
    expect(a.status).toBe(201);
    expect(b.json.id).toBe(a.json.id);
    const list = (await c.get('/v1/payments?limit=100')).json.data.filter((p: any) => p.description === retryIdem);
    expect(list).toHaveLength(1);
  });
});
