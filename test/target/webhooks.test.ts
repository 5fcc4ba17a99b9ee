import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EVENT_TYPES, SIGNATURE_HEADER, verifySignature } from '../../src/spec/index.ts';
import { DEFAULT_WEBHOOK_SECRET, SANDBOX_REFUND_FAIL_AMOUNT, parseWebhookUrlArg } from '../../src/target/index.ts';
import { CARDS, KEYS, card, client, closeAll, http, sleep, start, startReceiver, until, type Delivery } from './helpers.ts';

const receivers: { close(): Promise<void> }[] = [];
async function receiver(status?: (n: number, d: Delivery) => number) {
  const r = await startReceiver(status);
  receivers.push(r);
  return r;
}
afterEach(async () => {
  await closeAll();
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(closeAll);

const eventsOf = (ds: Delivery[], paymentId: string) => ds.filter((d) => (d.body?.data?.payment?.id ?? d.body?.data?.refund?.payment_id) === paymentId);

describe('webhooks (WH)', () => {
  it('WH-1..7/10: signed envelopes for every terminal move and settled refund, data as GET returns it, nothing for pending or requires_action', async () => {
    const rx = await receiver();
    const s = await start({ webhookUrls: [{ url: rx.url }], timeScale: 0.001 });
    const c = client(s, KEYS.acmeTest);
    const ok = await c.create({ amount: 5000 });
    const declined = await c.create({ card: card(CARDS.do_not_honor) });
    const challenged = await c.create({ card: card(CARDS.three_ds_challenge) });
    const hosted = await c.hosted();
    await http(s.url, 'POST', hosted.json.next_action.redirect_url, { key: null, idem: null, body: 'action=cancel', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await c.waitFor(ok.json.id, (p) => p.status === 'succeeded');
    await c.refund(ok.json.id, { amount: 100 });
    await c.refund(ok.json.id, { amount: SANDBOX_REFUND_FAIL_AMOUNT });
    await c.waitFor(challenged.json.id, (p) => p.status === 'expired', 5000);
    const expectTypes: [string, string[]][] = [
      [ok.json.id, ['payment.succeeded', 'refund.failed', 'refund.succeeded']],
      [declined.json.id, ['payment.failed']],
      [challenged.json.id, ['payment.expired']],
      [hosted.json.id, ['payment.canceled']],
    ];
    await until(() => expectTypes.every(([id, types]) => eventsOf(rx.deliveries, id).length === types.length));
    await sleep(50);
    for (const [id, types] of expectTypes) expect(eventsOf(rx.deliveries, id).map((d) => d.body.type).sort()).toEqual(types);
    expect(rx.deliveries).toHaveLength(6);
    const now = Math.floor(Date.now() / 1000);
    for (const d of rx.deliveries) {
      expect(d.headers['content-type']).toBe('application/json');
      expect(verifySignature(DEFAULT_WEBHOOK_SECRET, d.raw, d.headers[SIGNATURE_HEADER] as string, now).verdict).toBe('ok');
      expect(d.body.id).toMatch(/^evt_/);
      expect(EVENT_TYPES).toContain(d.body.type);
      expect(d.body.created_at).toEqual(expect.any(Number));
      expect(d.body.livemode).toBe(false);
      if (d.body.type.startsWith('payment.')) {
        expect(d.body.data.payment.status).toBe(d.body.type.split('.')[1]);
        const got = await c.get(`/v1/payments/${d.body.data.payment.id}`);
        if (d.body.type !== 'payment.succeeded') expect(d.body.data.payment).toEqual(got.json);
      } else {
        expect(d.body.data.refund.payment_id).toBe(ok.json.id);
        expect(d.body.data.refund.status).toBe(d.body.type.split('.')[1]);
      }
    }
    expect(new Set(rx.deliveries.map((d) => d.body.id)).size).toBe(6);
  });

  it('WH-10: endpoints per merchant and mode, with fallback to an endpoint without them', async () => {
    const acmeTest = await receiver();
    const acmeLive = await receiver();
    const other = await receiver();
    const s = await start({
      webhookUrls: [parseWebhookUrlArg(`acme:test=${acmeTest.url}/t`), parseWebhookUrlArg(`acme:live=${acmeLive.url}/l`), parseWebhookUrlArg(other.url)],
    });
    const live = { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123', holder_name: 'x' };
    await client(s, KEYS.acmeTest).create();
    await client(s, KEYS.acmeLive).create({ card: live });
    await client(s, KEYS.globexTest).create();
    await until(() => acmeTest.deliveries.length && acmeLive.deliveries.length && other.deliveries.length);
    expect(acmeTest.deliveries.map((d) => [d.path, d.body.livemode])).toEqual([['/t', false]]);
    expect(acmeLive.deliveries.map((d) => [d.path, d.body.livemode])).toEqual([['/l', true]]);
    expect(other.deliveries.map((d) => d.body.livemode)).toEqual([false]);
  });

  it('WH-8/9: non-2xx deliveries are retried with growing intervals, keeping the event id', async () => {
    const rx = await receiver((n) => (n < 2 ? 500 : 200));
    const s = await start({ webhookUrls: [{ url: rx.url }], timeScale: 0.05 });
    await client(s, KEYS.acmeTest).create();
    await until(() => rx.deliveries.length === 3);
    expect(new Set(rx.deliveries.map((d) => d.body.id)).size).toBe(1);
    const gaps = [rx.deliveries[1].at - rx.deliveries[0].at, rx.deliveries[2].at - rx.deliveries[1].at];
    // Backoff at time scale 0.05: 50 ms, then 100 ms (timers never fire early).
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    // Delivered: no further attempts.
    await sleep(300);
    expect(rx.deliveries).toHaveLength(3);
  });

  it('WH-9: a receiver that does not answer within the acknowledge time gets the event again', async () => {
    let n = 0;
    const { createServer } = await import('node:http');
    const ids: string[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        ids.push(JSON.parse(raw).id);
        if (n++ === 0) return; // never answers the first delivery
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    receivers.push({ close: () => new Promise<void>((r) => (server.close(() => r()), server.closeAllConnections())) });
    const port = (server.address() as { port: number }).port;
    const s = await start({ webhookUrls: [{ url: `http://127.0.0.1:${port}/` }], webhookTimeoutMs: 200, timeScale: 0.01 });
    await client(s, KEYS.acmeTest).create();
    await until(() => ids.length >= 2);
    expect(ids[1]).toBe(ids[0]);
  });

  it('close() cancels pending retries', async () => {
    const rx = await receiver(() => 500);
    const s = await start({ webhookUrls: [{ url: rx.url }], timeScale: 0.05 });
    await client(s, KEYS.acmeTest).create();
    await until(() => rx.deliveries.length >= 1);
    await s.close();
    const seen = rx.deliveries.length;
    await sleep(400);
    expect(rx.deliveries.length).toBe(seen);
  });

  it('parses --webhook-url forms', () => {
    expect(parseWebhookUrlArg('http://h:1/x')).toEqual({ url: 'http://h:1/x' });
    expect(parseWebhookUrlArg('acme:test=http://h:1/x')).toEqual({ merchant: 'acme', mode: 'test', url: 'http://h:1/x' });
    expect(parseWebhookUrlArg('acme=http://h:1/x')).toEqual({ merchant: 'acme', url: 'http://h:1/x' });
    expect(parseWebhookUrlArg('live=http://h:1/x')).toEqual({ mode: 'live', url: 'http://h:1/x' });
    expect(parseWebhookUrlArg(':test=http://h:1/x?a=b')).toEqual({ mode: 'test', url: 'http://h:1/x?a=b' });
    expect(() => parseWebhookUrlArg('acme:prod=http://h:1/x')).toThrow(/test or live/);
    expect(() => parseWebhookUrlArg('ftp://h/x')).toThrow(/--webhook-url/);
  });
});
