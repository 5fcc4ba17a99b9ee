/**
 * The receiver against real services' signing: their own header name, one secret per endpoint,
 * `t` as sent, bodies past the size limit, and bodies that used to crash it (deep nesting, a card
 * number echoed as a bare JSON number, a scanner that throws).
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver, type WebhookReceiverOptions } from '../../src/webhooks/index.ts';
import { signPayload, verifySignature } from '../../src/spec/index.ts';
import { webhookRecordSchema, type WebhookRecord } from '../../src/history/index.ts';
import type { LeakScanner } from '../../src/history/leak-scanner.ts';
import { endRec, judgeOne } from '../oracle/fixtures.ts';

const SECRET_A = 'whsec_endpoint_A_secret_0001';
const SECRET_B = 'whsec_endpoint_B_secret_0002';
const SECRET_OTHER = 'whsec_someone_else_0003';

const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
const t0 = performance.now();
const now = () => performance.now() - t0;
const nowS = () => Math.floor(Date.now() / 1000);

async function start(over: Partial<WebhookReceiverOptions> = {}): Promise<{ rx: WebhookReceiver; records: WebhookRecord[] }> {
  const records: WebhookRecord[] = [];
  const rx = await startWebhookReceiver({ host: '127.0.0.1', port: 0, secret: SECRET_A, seed: 7, now, sink: (r) => records.push(r), ...over });
  receivers.push(rx);
  return { rx, records };
}

const payment = () => ({
  id: 'pay_0a1b2c3d-1111-4222-8333-444455556666', object: 'payment', amount: 1250, currency: 'eur', status: 'succeeded',
  created: 1_700_000_000, livemode: false, card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'DE' },
  decline_code: null, redirect_url: null, refunded_amount: 0, refunds: [], succeeded_at: 1_700_000_003, failed_at: null, refunded_at: null,
});
let n = 0;
const event = (over: Record<string, unknown> = {}) => ({ id: `evt_sig${++n}`, type: 'payment.succeeded', created_at: nowS(), livemode: false, data: { payment: payment() }, ...over });

async function post(rx: WebhookReceiver, raw: string, headers: Record<string, string>): Promise<number> {
  const res = await fetch(`${rx.url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  await res.arrayBuffer();
  return res.status;
}

describe('webhook receiver: the service\'s own signature header (Service-Signature is a neutral name)', () => {
  it('by default reads any …-signature header of the form t=…,v1=… and records its name', async () => {
    const { rx, records } = await start();
    const raw = JSON.stringify(event());
    expect(await post(rx, raw, { 'Acme-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(records[0]).toMatchObject({ signature: 'ok', signatureHeader: 'acme-signature', answered: 200 });
    expect(webhookRecordSchema.parse(records[0]).signatureHeader).toBe('acme-signature');
    expect((await judgeOne('webhook-signature', [records[0], endRec()])).status).toBe('pass');
    // Service-Signature itself still works, and says so.
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(records[1]).toMatchObject({ signature: 'ok', signatureHeader: 'service-signature' });
  });

  it('never accepts a delivery none of whose headers verifies; one that does among several is enough', async () => {
    const { rx, records } = await start();
    const raw = JSON.stringify(event());
    const forged = signPayload(SECRET_OTHER, raw, nowS());
    // Two candidates, neither verifies: mismatch.
    expect(await post(rx, raw, { 'Acme-Signature': forged, 'X-Relay-Signature': forged })).toBe(400);
    expect(records[0].signature).toBe('mismatch');
    // A foreign signature header not of the form t=…,v1=… is no candidate: missing.
    expect(await post(rx, raw, { 'X-Hub-Signature': 'sha256=' + 'a'.repeat(64) })).toBe(400);
    expect(records[1]).toMatchObject({ signature: 'missing' });
    expect(records[1].signatureHeader).toBeUndefined();
    // No header at all: missing.
    expect(await post(rx, raw, {})).toBe(400);
    expect(records[2].signature).toBe('missing');
    // A forged candidate next to a valid one: the valid one verifies it.
    expect(await post(rx, raw, { 'X-Relay-Signature': forged, 'Acme-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(records[3]).toMatchObject({ signature: 'ok', signatureHeader: 'acme-signature' });
    // A malformed Service-Signature is still reported as malformed.
    expect(await post(rx, raw, { 'Service-Signature': 'garbage' })).toBe(400);
    expect(records[4]).toMatchObject({ signature: 'malformed', signatureHeader: 'service-signature' });
  });

  it('with signatureHeader given, reads that header only', async () => {
    const { rx, records } = await start({ signatureHeader: 'Acme-Signature' });
    const raw = JSON.stringify(event());
    expect(await post(rx, raw, { 'Acme-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(400);
    expect(records.map((r) => [r.signature, r.signatureHeader])).toEqual([
      ['ok', 'acme-signature'],
      ['missing', undefined],
    ]);
    await expect(startWebhookReceiver({ secret: SECRET_A, signatureHeader: 'not a header', seed: 1, now, sink: () => {} })).rejects.toThrow(/header name/);
  });
});

describe('webhook receiver: one signing secret per endpoint', () => {
  it('verifies with any of the secrets and records which one (by index), never the secret', async () => {
    const { rx, records } = await start({ secret: [SECRET_A, SECRET_B] });
    const raw = JSON.stringify(event());
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_B, raw, nowS()) })).toBe(200);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_OTHER, raw, nowS()) })).toBe(400);
    expect(records.map((r) => [r.signature, r.secretIndex])).toEqual([
      ['ok', 1],
      ['ok', 0],
      ['mismatch', undefined],
    ]);
    const text = JSON.stringify(records);
    expect(text).not.toContain(SECRET_A);
    expect(text).not.toContain(SECRET_B);
    expect((await judgeOne('webhook-signature', [records[0], records[1], endRec()])).status).toBe('pass');
    await expect(startWebhookReceiver({ secret: [], seed: 1, now, sink: () => {} })).rejects.toThrow(/webhook-secret/);
  });
});

describe('webhook receiver: t as sent', () => {
  it('computes the HMAC over the t text received (leading zeros kept), not a re-serialised number', async () => {
    const { rx, records } = await start();
    const raw = JSON.stringify(event());
    const tText = '0' + String(nowS());
    const over = (t: string) => createHmac('sha256', SECRET_A).update(`${t}.${raw}`).digest('hex');
    expect(await post(rx, raw, { 'Service-Signature': `t=${tText},v1=${over(tText)}` })).toBe(200);
    expect(await post(rx, raw, { 'Service-Signature': `t=${tText},v1=${over(String(Number(tText)))}` })).toBe(400);
    expect(records.map((r) => [r.signature, r.t])).toEqual([
      ['ok', Number(tText)],
      ['mismatch', Number(tText)],
    ]);
    expect(verifySignature(SECRET_A, raw, `t=${tText},v1=${over(tText)}`).verdict).toBe('ok');
  });
});

describe('webhook receiver: a body over the size limit', () => {
  it('is still verified (the HMAC is computed as it streams in): signed is ok for WH-1, a bad signature is still bad', async () => {
    const { rx, records } = await start({ maxBodyBytes: 2000 });
    const raw = JSON.stringify(event({ data: { payment: { ...payment(), metadata: { k: 'x'.repeat(3000) } } } }));
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(413);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_OTHER, raw, nowS()) })).toBe(413);
    expect(await post(rx, raw, {})).toBe(413);
    expect(records.map((r) => [r.signature, r.answered, r.eventId])).toEqual([
      ['ok', 413, null],
      ['mismatch', 413, null],
      ['missing', 413, null],
    ]);
    expect(records[0].envelopeProblems[0]).toMatch(/larger than 2000 bytes/);
    expect((await judgeOne('webhook-signature', [records[0], endRec()])).status).toBe('pass');
  });
});

describe('webhook receiver: bodies that must not crash it', () => {
  it('an unsigned body nested 200,000 deep is answered 400 and recorded unread', async () => {
    const { rx, records } = await start();
    const depth = 200_000;
    expect(await post(rx, '['.repeat(depth) + ']'.repeat(depth), {})).toBe(400);
    // Deep inside a signed payment's metadata: not read either, so the record stays serialisable.
    const deep = `{"id":"evt_deep","type":"payment.succeeded","created_at":1,"livemode":false,"data":{"payment":{"id":"pay_x","status":"succeeded","amount":1,"metadata":${'{"a":'.repeat(depth / 2)}1${'}'.repeat(depth / 2)}}}}`;
    expect(await post(rx, deep, { 'Service-Signature': signPayload(SECRET_A, deep, nowS()) })).toBe(400);
    expect(records.map((r) => [r.signature, r.payment, r.envelopeProblems])).toEqual([
      ['missing', null, [expect.stringMatching(/nested deeper than \d+ levels/)]],
      ['ok', null, [expect.stringMatching(/nested deeper than \d+ levels/)]],
    ]);
    expect(() => JSON.stringify(records)).not.toThrow();
    // Still serving.
    const raw = JSON.stringify(event());
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
  });

  it('a card number echoed as a bare JSON number is recorded as a leak, redacted, not a crash', async () => {
    const card = '4000000000003220';
    const { rx, records } = await start({ cardNumbersToScan: [card] });
    const raw = JSON.stringify(event()).replace('"amount":1250', `"amount":1250,"pan":${card}`);
    expect(raw).toContain(`"pan":${card}`);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(200);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ signature: 'ok', envelopeProblems: [] });
    expect(records[0].payment).toMatchObject({ id: payment().id, amount: 1250 });
    expect(records[0].leaks).toContain('full number of card …3220 echoed');
    expect(JSON.stringify(records)).not.toContain(card);
  });

  it('a delivery the receiver throws on is answered 500, recorded not at all, and reported once', async () => {
    const errors: unknown[] = [];
    const throwing = { scan: () => { throw new Error('scanner exploded'); }, redact: (t: string) => t } as unknown as LeakScanner;
    const { rx, records } = await start({ leakScanner: throwing, onError: (e) => errors.push(e) });
    const raw = JSON.stringify(event());
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(500);
    expect(await post(rx, raw, { 'Service-Signature': signPayload(SECRET_A, raw, nowS()) })).toBe(500);
    expect(records).toHaveLength(0);
    expect(errors).toHaveLength(1);
    expect(String((errors[0] as Error).message)).toMatch(/scanner exploded/);
    expect(rx.uniqueEvents()).toBe(0);
  });
});
