/**
 * The service clock switch (ServiceOptions.clockOffsetMs, the server-clock-ahead/-behind
 * variants): everything the service reports as a time is on its own clock, durations are not.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER } from '../../src/spec/index.ts';
import { variantByName } from '../../src/target/index.ts';
import { KEYS, client, closeAll, rateHeaders, start, startReceiver, until } from './helpers.ts';

const receivers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(closeAll);

/** What the service says the time is (Date, reset, created, webhook t), minus ours, in seconds. */
async function reportedOffsets(clockOffsetMs: number | undefined) {
  const rx = await startReceiver();
  receivers.push(rx);
  const s = await start({ rateLimit: 3, windowMs: 10_000, webhookUrls: [{ url: rx.url }], timeScale: 0.001, ...(clockOffsetMs === undefined ? {} : { clockOffsetMs }) });
  const c = client(s, KEYS.acmeTest);
  const before = Date.now();
  const created = await c.create({ amount: 1200 });
  const after = Date.now();
  const mid = (before + after) / 2 / 1000;
  const rl = rateHeaders(created);
  const date = Date.parse(String(created.headers.date)) / 1000;
  await until(() => rx.deliveries.length > 0);
  const d = rx.deliveries[0];
  const t = Number(/t=(\d+)/.exec(String(d.headers[SIGNATURE_HEADER]))![1]);
  // Three more requests exhaust the window (limit 3): Retry-After is a duration, on no clock.
  const refused = (await Promise.all([c.get('/v1/payments'), c.get('/v1/payments'), c.get('/v1/payments')])).find((r) => r.status === 429)!;
  return {
    date: date - mid,
    reset: rl.reset! - 10 - mid,
    created: created.json.created - mid,
    webhookT: t - d.at / 1000,
    retryAfter: rateHeaders(refused).retryAfter!,
  };
}

describe('service clock offset (variants server-clock-ahead/-behind)', () => {
  it('shifts Date, X-RateLimit-Reset, created and the webhook t by the offset, and nothing else', async () => {
    const clean = await reportedOffsets(undefined);
    const ahead = await reportedOffsets(variantByName('server-clock-ahead')!.options.clockOffsetMs);
    const behind = await reportedOffsets(variantByName('server-clock-behind')!.options.clockOffsetMs);
    for (const [o, want] of [[clean, 0], [ahead, 3], [behind, -3]] as const) {
      // Whole seconds: within a second (plus the round trip) of the offset.
      for (const k of ['date', 'reset', 'created', 'webhookT'] as const) {
        expect(o[k], `${k} of offset ${want}`).toBeGreaterThan(want - 1.2);
        expect(o[k], `${k} of offset ${want}`).toBeLessThan(want + 1.2);
      }
      expect(o.retryAfter).toBeGreaterThanOrEqual(9);
      expect(o.retryAfter).toBeLessThanOrEqual(10);
    }
  });
});
