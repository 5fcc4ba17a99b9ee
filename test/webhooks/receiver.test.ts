import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver, type WebhookReceiverOptions } from '../../src/webhooks/index.ts';
import { COPY_GAP_MS } from '../../src/webhooks/answer.ts';
import { signPayload } from '../../src/spec/index.ts';
import { webhookRecordSchema, type WebhookRecord } from '../../src/history/index.ts';

const SECRET = 'whsec_paystorm_test_secret';
const API_KEY = 'svc_test_sk_4f9a8b7c6d5e3456';
const CARD = '4242424242424242';

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

const t0 = performance.now();
const now = () => performance.now() - t0;
/**
 * A retry of the same event id comes at least COPY_GAP_MS after the delivery before it: nearer,
 * the receiver reads it as an at-least-once copy, a new delivery chain with failures of its own.
 */
const pause = () => new Promise((r) => setTimeout(r, COPY_GAP_MS + 20));

async function start(over: Partial<WebhookReceiverOptions> = {}): Promise<{ rx: WebhookReceiver; records: WebhookRecord[] }> {
  const records: WebhookRecord[] = [];
  const rx = await startWebhookReceiver({ secret: SECRET, seed: 7, now, sink: (r) => records.push(r), ...over });
  receivers.push(rx);
  return { rx, records };
}

const paymentB = (status = 'succeeded') => ({
  id: 'pay_0a1b2c3d-1111-4222-8333-444455556666',
  object: 'payment',
  amount: 1250,
  currency: 'eur',
  status,
  created: 1_700_000_000,
  livemode: false,
  card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'DE' },
  decline_code: null,
  redirect_url: null,
  refunded_amount: 0,
  refunds: [],
  succeeded_at: status === 'succeeded' ? 1_700_000_003 : null,
  failed_at: null,
  refunded_at: null,
});

let evtCounter = 0;
const event = (over: Record<string, unknown> = {}) => ({
  id: `evt_${++evtCounter}`,
  type: 'payment.succeeded',
  created_at: 1_700_000_004,
  livemode: false,
  data: { payment: paymentB() },
  ...over,
});

interface Send {
  path?: string;
  secret?: string;
  t?: number;
  header?: string | null;
  raw?: string;
}
/** POSTs a delivery signed like the service signs it; `raw` overrides the body text sent (after signing). */
async function deliver(rx: WebhookReceiver, body: unknown, o: Send = {}): Promise<{ status: number; ms: number }> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const t = o.t ?? Math.floor(Date.now() / 1000);
  const header = o.header === undefined ? signPayload(o.secret ?? SECRET, text, t) : o.header;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (header !== null) headers['Service-Signature'] = header;
  const start = performance.now();
  const res = await fetch(`${rx.url}${o.path ?? '/webhooks'}`, { method: 'POST', headers, body: o.raw ?? text });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - start };
}

describe('webhook receiver: signatures', () => {
  it('records a signed delivery as ok, with the envelope read and the payment normalized', async () => {
    const { rx, records } = await start();
    const tBefore = now();
    const evt = event();
    const t = Math.floor(Date.now() / 1000);
    expect((await deliver(rx, evt, { t })).status).toBe(200);
    expect(records).toHaveLength(1);
    const rec = webhookRecordSchema.parse(records[0]);
    expect(rec).toMatchObject({
      v: 1,
      kind: 'webhook',
      seq: 0,
      path: '/webhooks',
      signature: 'ok',
      t,
      eventId: evt.id,
      type: 'payment.succeeded',
      createdAt: 1_700_000_004,
      livemode: false,
      envelopeProblems: [],
      answered: 200,
      duplicate: false,
      refund: null,
    });
    expect(rec.payment).toMatchObject({ id: paymentB().id, presentation: 'B', status: 'succeeded', amount: 1250, currency: 'EUR' });
    expect(rec.tReceived).toBeGreaterThanOrEqual(tBefore);
    expect(rec.tReceived).toBeLessThanOrEqual(now());
    expect(Math.abs(rec.wall - Date.now())).toBeLessThan(60_000);
    expect(rec.leaks).toBeUndefined();
    expect(rx.count()).toBe(1);
    expect(rx.uniqueEvents()).toBe(1);
  });

  it('a tampered body is a mismatch, answered 400 and still recorded', async () => {
    const { rx, records } = await start();
    const evt = event();
    const res = await deliver(rx, evt, { raw: JSON.stringify({ ...evt, livemode: true }) });
    expect(res.status).toBe(400);
    expect(records[0]).toMatchObject({ signature: 'mismatch', answered: 400, eventId: evt.id, livemode: true });
  });

  it('a t older than 5 minutes is stale; one just inside the tolerance is ok', async () => {
    const { rx, records } = await start();
    const nowS = Math.floor(Date.now() / 1000);
    expect((await deliver(rx, event(), { t: nowS - 301 })).status).toBe(400);
    expect((await deliver(rx, event(), { t: nowS - 290 })).status).toBe(200);
    expect(records.map((r) => r.signature)).toEqual(['stale', 'ok']);
    expect(records[0].t).toBe(nowS - 301);
  });

  it('judges t against the wall clock it is given', async () => {
    const { rx, records } = await start({ wall: () => Date.now() + 10 * 60_000 });
    await deliver(rx, event());
    expect(records[0].signature).toBe('stale');
  });

  it('a missing header, or one that does not parse, is recorded as such', async () => {
    const { rx, records } = await start();
    expect((await deliver(rx, event(), { header: null })).status).toBe(400);
    expect((await deliver(rx, event(), { header: 'sha256=abc' })).status).toBe(400);
    expect(records.map((r) => [r.signature, r.t])).toEqual([
      ['missing', null],
      ['malformed', null],
    ]);
  });

  it('a signature made with another secret is a mismatch', async () => {
    const { rx, records } = await start();
    expect((await deliver(rx, event(), { secret: 'whsec_someone_else' })).status).toBe(400);
    expect(records[0].signature).toBe('mismatch');
  });

  it('accepts a delivery on any path and records the path', async () => {
    const { rx, records } = await start();
    await deliver(rx, event(), { path: '/' });
    await deliver(rx, event(), { path: '/hooks/card-payments?endpoint=we_1' });
    expect(records.map((r) => [r.path, r.answered])).toEqual([
      ['/', 200],
      ['/hooks/card-payments?endpoint=we_1', 200],
    ]);
  });

  it('answers a GET (a reachability check) without counting it as a delivery', async () => {
    const { rx, records } = await start();
    const res = await fetch(`${rx.url}/anything`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/paystorm webhook receiver/);
    expect(records).toHaveLength(0);
    expect(rx.count()).toBe(0);
  });
});

describe('webhook receiver: at-least-once delivery', () => {
  it('flags a repeated event id as a duplicate, records it, and counts the event once', async () => {
    const { rx, records } = await start();
    const evt = event();
    await deliver(rx, evt);
    await deliver(rx, evt, { path: '/again' });
    expect(records.map((r) => [r.eventId, r.duplicate])).toEqual([
      [evt.id, false],
      [evt.id, true],
    ]);
    expect(rx.count()).toBe(2);
    expect(rx.uniqueEvents()).toBe(1);
  });

  it('a forged delivery does not mark an event id as seen', async () => {
    const { rx, records } = await start();
    const evt = event();
    await deliver(rx, evt, { secret: 'whsec_forger' });
    await deliver(rx, evt);
    expect(records.map((r) => [r.signature, r.duplicate])).toEqual([
      ['mismatch', false],
      ['ok', false],
    ]);
    expect(rx.uniqueEvents()).toBe(1);
  });

  it('failShare 1, failAttempts 1: the first delivery of each event gets 500, its retry 200; a copy after the 2xx is failed once too', async () => {
    const { rx, records } = await start({ failShare: 1, failAttempts: 1 });
    const a = event();
    const b = event();
    expect((await deliver(rx, a)).status).toBe(500);
    expect((await deliver(rx, b)).status).toBe(500);
    await pause();
    expect((await deliver(rx, a)).status).toBe(200);
    await pause();
    // After the 2xx, a delivery of a is a copy (at-least-once): its own first delivery, failed like the first.
    expect((await deliver(rx, a)).status).toBe(500);
    await pause();
    expect((await deliver(rx, a)).status).toBe(200);
    // Two chains of a got their failure: nothing more is failed.
    expect((await deliver(rx, a)).status).toBe(200);
    expect(records.map((r) => [r.eventId, r.answered, r.duplicate])).toEqual([
      [a.id, 500, false],
      [b.id, 500, false],
      [a.id, 200, true],
      [a.id, 500, true],
      [a.id, 200, true],
      [a.id, 200, true],
    ]);
  });

  it('awaitingRetry counts the events whose latest delivery failed, until a retry is answered 200', async () => {
    const { rx } = await start({ failShare: 1, failAttempts: 2, stallShare: 0 });
    const a = event();
    const b = event();
    expect(rx.awaitingRetry()).toBe(0);
    await deliver(rx, a); // 500
    await deliver(rx, b); // 500
    expect(rx.awaitingRetry()).toBe(2);
    await pause();
    await deliver(rx, a); // 500 again (2 attempts in a row)
    expect(rx.awaitingRetry()).toBe(2);
    await pause();
    expect((await deliver(rx, a)).status).toBe(200);
    expect(rx.awaitingRetry()).toBe(1);
    // A retry under a new event id does not settle b (and is itself an event failed on first delivery).
    expect((await deliver(rx, { ...b, id: 'evt_new_id_for_b' })).status).toBe(500);
    expect(rx.awaitingRetry()).toBe(2);
    expect((await deliver(rx, b)).status).toBe(500);
    await pause();
    expect((await deliver(rx, b)).status).toBe(200);
    expect(rx.awaitingRetry()).toBe(1);
    // A forged delivery counts for nothing.
    expect((await deliver(rx, event(), { secret: 'whsec_other' })).status).toBe(400);
    expect(rx.awaitingRetry()).toBe(1);
  });

  it('a stalled delivery awaits its retry until one is answered in time', async () => {
    const { rx } = await start({ stallShare: 1, stallMs: 300, ackTimeoutMs: 200 });
    const evt = event();
    await deliver(rx, evt);
    expect(rx.awaitingRetry()).toBe(1);
    expect((await deliver(rx, evt)).status).toBe(200);
    expect(rx.awaitingRetry()).toBe(0);
  });

  it('failShare 1: the first 3 failing events get 500 on 3 attempts in a row, then every 5th failing event does; the rest fail once', async () => {
    const { rx, records } = await start({ failShare: 1 });
    const evts = Array.from({ length: 9 }, () => event());
    const answers: number[][] = evts.map(() => []);
    // Attempt by attempt, each event's attempts COPY_GAP_MS apart (retries, not copies); first attempts in event order.
    // Each event is retried until it is answered 200 (after that, a delivery would be a copy: a new chain).
    for (let i = 0; i < 4; i++) {
      if (i > 0) await pause();
      for (const [j, e] of evts.entries()) if (!answers[j].includes(200)) answers[j].push((await deliver(rx, e)).status);
    }
    const thrice = [500, 500, 500, 200];
    const once = [500, 200];
    expect(answers).toEqual([thrice, thrice, thrice, once, once, once, once, thrice, once]);
    // The record says what the receiver answered each attempt.
    expect(records.filter((r) => r.eventId === evts[0].id).map((r) => [r.answered, r.duplicate])).toEqual([
      [500, false],
      [500, true],
      [500, true],
      [200, true],
    ]);
  });

  it('never fails or stalls a live-mode event (test deliveries only)', async () => {
    const { rx, records } = await start({ failShare: 0.5, stallShare: 0.5 });
    for (let i = 0; i < 10; i++) expect((await deliver(rx, event({ livemode: true }))).status).toBe(200);
    expect(records.map((r) => r.answered)).toEqual(Array(10).fill(200));
    // A test-mode event in the same receiver still fails or stalls.
    const pending = deliver(rx, event()).catch(() => null);
    await expect.poll(() => records.length, { timeout: 5000 }).toBe(11);
    expect([0, 500]).toContain(records[10].answered);
    await rx.close();
    await pending;
  });

  it('stallShare 1: the first delivery is held for stallMs (no answer within the ack time), the retry is answered at once', async () => {
    const { rx, records } = await start({ stallShare: 1, stallMs: 400, ackTimeoutMs: 300 });
    const evt = event();
    const first = await deliver(rx, evt);
    expect(first.ms).toBeGreaterThanOrEqual(390);
    expect(records[0]).toMatchObject({ eventId: evt.id, answered: 0, stalledMs: 400, duplicate: false });
    const retry = await deliver(rx, evt);
    expect(retry.status).toBe(200);
    expect(records[1]).toMatchObject({ answered: 200, duplicate: true });
    expect(records[1].stalledMs).toBeUndefined();
  });

  it('a stall shorter than the ack time is an answer: recorded as 200 with its delay', async () => {
    const { rx, records } = await start({ stallShare: 1, stallMs: 200 });
    const res = await deliver(rx, event());
    expect(res.status).toBe(200);
    expect(res.ms).toBeGreaterThanOrEqual(190);
    expect(records[0]).toMatchObject({ answered: 200, stalledMs: 200 });
  });

  it('the default stall outlasts the spec acknowledge time of 10 s', async () => {
    const { rx, records } = await start({ stallShare: 1 });
    const pending = deliver(rx, event()).catch(() => null);
    await expect.poll(() => records.length, { timeout: 5000 }).toBe(1);
    expect(records[0]).toMatchObject({ answered: 0, stalledMs: 11_000 });
    // close() releases a held delivery instead of waiting it out.
    const closing = performance.now();
    await rx.close();
    expect(performance.now() - closing).toBeLessThan(5000);
    await pending;
  });

  it('which deliveries fail is decided by the seed and the event id, about the configured share', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `evt_share_${i}`);
    const run = async (seed: number) => {
      const { rx, records } = await start({ failShare: 0.5, seed });
      for (const id of ids) await deliver(rx, event({ id }));
      return records.map((r) => r.answered);
    };
    const a = await run(11);
    const b = await run(11);
    const c = await run(12);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const failed = a.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(8);
    expect(failed).toBeLessThan(32);
  });

  it('rejects shares outside 0..1', async () => {
    await expect(start({ failShare: 1.5 })).rejects.toThrow(/failShare must be between 0 and 1/);
    await expect(start({ failShare: 0.6, stallShare: 0.6 })).rejects.toThrow(/must not exceed 1/);
    await expect(start({ secret: '' })).rejects.toThrow(/--webhook-secret/);
  });
});

describe('webhook receiver: envelope (WH-3)', () => {
  it('lists each problem of a bad envelope and still answers 200', async () => {
    const { rx, records } = await start();
    const res = await deliver(rx, { id: 'event_1', type: 'payment.pending', created_at: '2024-01-01', livemode: 'false', data: { payment: paymentB() } });
    expect(res.status).toBe(200);
    const p = records[0].envelopeProblems.join('\n');
    expect(p).toMatch(/^id: expected a string starting evt_, got "event_1"/m);
    expect(p).toMatch(/^type: expected one of payment\.succeeded, .*got "payment\.pending"/m);
    expect(p).toMatch(/^created_at: expected Unix seconds/m);
    expect(p).toMatch(/^livemode: expected a boolean/m);
    expect(records[0].eventId).toBe('event_1');
  });

  it('a payment event needs data.payment, a refund event data.refund with payment_id', async () => {
    const { rx, records } = await start();
    await deliver(rx, event({ type: 'payment.failed', data: { refund: { payment_id: 'pay_1' } } }));
    await deliver(rx, event({ type: 'payment.failed', data: { payment: { hello: 1 } } }));
    await deliver(rx, event({ type: 'refund.succeeded', data: { refund: { id: 're_1', status: 'succeeded', amount: 5 } } }));
    await deliver(rx, event({ type: 'refund.failed', data: {} }));
    await deliver(rx, event({ data: null }));
    expect(records.map((r) => r.envelopeProblems)).toEqual([
      ['data.payment: missing for a payment event'],
      [expect.stringMatching(/^data\.payment: not a Payment object/)],
      ['data.refund.payment_id: expected the payment\'s id, got nothing'],
      ['data.refund: expected an object for a refund event, got nothing'],
      ['data: expected an object, got null'],
    ]);
  });

  it('reads a refund event, also one that carries only payment_id', async () => {
    const { rx, records } = await start();
    await deliver(rx, event({ type: 'refund.succeeded', data: { refund: { id: 're_9', payment_id: 'pay_9', status: 'succeeded', amount: 300 } } }));
    await deliver(rx, event({ type: 'refund.failed', data: { refund: { payment_id: 'pay_8' } } }));
    expect(records.map((r) => [r.envelopeProblems, r.refund, r.payment])).toEqual([
      [[], { id: 're_9', paymentId: 'pay_9', amount: 300, status: 'succeeded', created: null }, null],
      [[], { id: '', paymentId: 'pay_8', amount: null, status: 'failed', created: null }, null],
    ]);
    for (const r of records) webhookRecordSchema.parse(r);
  });

  it('a signed body that is not JSON is answered 400 and recorded', async () => {
    const { rx, records } = await start();
    expect((await deliver(rx, 'not json at all')).status).toBe(400);
    expect(records[0]).toMatchObject({ signature: 'ok', answered: 400, envelopeProblems: ['body: not JSON'], eventId: null });
  });

  it('refuses a body over the size limit with 413, recording it unread but verified (the HMAC streams)', async () => {
    const { rx, records } = await start({ maxBodyBytes: 2000 });
    const res = await deliver(rx, event({ padding: 'x'.repeat(5000) }));
    expect(res.status).toBe(413);
    expect(records[0]).toMatchObject({ answered: 413, signature: 'ok', eventId: null });
    expect(records[0].envelopeProblems[0]).toMatch(/larger than 2000 bytes/);
    expect((await deliver(rx, event())).status).toBe(200);
  });
});

describe('webhook receiver: leaks (SEC-2, PAY-9)', () => {
  it('names leaked keys and card numbers by their last four, never in full', async () => {
    const { rx, records } = await start({ secretsToScan: [API_KEY], cardNumbersToScan: [CARD] });
    const payment = { ...paymentB(), description: `charged with ${API_KEY}`, card: { ...paymentB().card, number: CARD } };
    await deliver(rx, event({ data: { payment }, note: 'other key svc_live_sk_zzzzzzzz9999' }));
    await deliver(rx, event());
    const leaks = records[0].leaks ?? [];
    expect(leaks).toEqual(
      expect.arrayContaining([
        'api key …3456 echoed',
        'full number of card …4242 echoed',
        'full card number at data.payment.card.number',
        'secret key svc_live_sk_…9999 in body',
      ]),
    );
    const text = JSON.stringify(records);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(CARD);
    expect(text).not.toContain('svc_live_sk_zzzzzzzz9999');
    expect(records[1].leaks).toBeUndefined();
  });
});
