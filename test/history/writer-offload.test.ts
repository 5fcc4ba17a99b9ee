/**
 * `paystorm run` builds, serializes and writes exchange records on the history
 * writer's worker thread (offload). The oracle judges whatever the file holds,
 * so the worker must write exactly the records the main thread would have: the
 * same traffic is recorded both ways here and the files compared line by line.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientFactory, carriesLivemodeTrue, makeKeySecrets } from '../../src/client/index.ts';
import { RunClock } from '../../src/engine/index.ts';
import { HistoryWriter, readHistory } from '../../src/history/index.ts';
import { parseKeyArg, type PaymentInput } from '../../src/spec/index.ts';
import { exchangeRecordSchema, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { PAY_ID, RATE_HEADERS_OK, paymentB, sendJson, startStub, type Stub } from '../engine/stub.ts';

const SECRET = 'svc_test_sk_offloadSECRETkey4321';
const KEYS = makeKeySecrets([parseKeyArg(`shop:${SECRET}`)]);
const CARD = '4000000000000002';
const LIVE_ID = 'pay_11111111-2222-4333-8444-555555555555';
const LEAK_ID = 'pay_66666666-7777-4888-8999-aaaaaaaaaaaa';
const TEXT_ID = 'pay_bbbbbbbb-cccc-4ddd-8eee-ffffffffffff';
const input: PaymentInput = {
  amount: 1500,
  currency: 'EUR',
  card: { number: CARD, exp_month: 12, exp_year: 2031, cvc: '123', holder_name: 'Pay Storm' },
  description: 'offload',
  metadata: { order: '7' },
  returnUrl: 'https://example.com/back',
};

let stub: Stub | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await stub?.close();
  stub = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A target answering a bit of everything a record is built from. */
async function variedTarget(): Promise<Stub> {
  return startStub((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'POST') return sendJson(res, 402, { error: { type: 'card_error', code: 'card_declined', message: 'declined', param: null, decline_code: 'do_not_honor', request_id: 'req_1' } });
    if (url.startsWith(`/v1/payments/${LIVE_ID}`)) return sendJson(res, 200, paymentB(LIVE_ID, 'succeeded', { livemode: true }));
    if (url.startsWith(`/v1/payments/${LEAK_ID}`)) return sendJson(res, 200, paymentB(LEAK_ID, 'succeeded', { description: `echo ${SECRET} ${CARD}` }));
    if (url.startsWith(`/v1/payments/${TEXT_ID}`)) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return res.end('upstream said no');
    }
    if (url.startsWith('/v1/payments?')) {
      return sendJson(res, 200, { object: 'list', url: '/v1/payments', has_more: false, data: [paymentB(PAY_ID), paymentB(LIVE_ID, 'succeeded', { livemode: true })] });
    }
    if (url.startsWith('/v1/payments/pay_ratelimited')) return sendJson(res, 429, { error: { type: 'rate_limit_error', code: 'rate_limited', message: 'slow down', param: null, request_id: 'req_2' } }, { ...RATE_HEADERS_OK, 'x-ratelimit-remaining': '0', 'retry-after': '7' });
    // A test payment whose description quotes the field: escaped quotes, not livemode true.
    return sendJson(res, 200, paymentB(PAY_ID, 'pending', { description: 'says "livemode":true in text' }));
  });
}

async function record(url: string, offload: boolean): Promise<{ lines: HistoryRecord[]; live: boolean[]; parsedByCheck: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-offload-'));
  dirs.push(dir);
  const path = join(dir, 'history.ndjson');
  const writer = HistoryWriter.open(path, { offload });
  expect(writer.offloading).toBe(offload);
  const live: boolean[] = [];
  // How many bodies the live-mode check parsed (building a record parses its body).
  let parsedByCheck = 0;
  writer.subscribe((r) => {
    if (r.kind !== 'exchange') return;
    const parse = JSON.parse;
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      parsedByCheck++;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      live.push(carriesLivemodeTrue(r));
    } finally {
      JSON.parse = parse;
    }
  });
  const f = new ClientFactory({ baseUrl: url, keys: KEYS, presentation: 'B', clock: new RunClock(), sink: (r) => writer.write(r), scenario: 'offload', timeoutMs: 5_000, ...(writer.offloading ? { offload: writer } : {}) });
  f.addCard(CARD);
  const c = f.client(KEYS[0].handle);
  await c.retrieve(PAY_ID);
  await c.retrieve(LIVE_ID);
  await c.retrieve(LEAK_ID);
  await c.retrieve(TEXT_ID);
  await c.retrieve('pay_ratelimited');
  await c.list({ limit: 2 });
  const created = await c.create(input);
  // A scenario reading a result gets the record built here, with the seq the file has.
  expect(created.record.status).toBe(402);
  for (const next of [() => c.retrieve(PAY_ID), () => c.retrieve(LIVE_ID), () => c.list({ limit: 2 })]) await next();
  await f.close();
  await writer.close();
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as HistoryRecord);
  return { lines, live, parsedByCheck };
}

/** Times (the server's Date too) and the Idempotency-Key differ from run to run; everything else must not. */
function comparable(r: HistoryRecord): unknown {
  const { tIntended: _a, tStart: _b, tEnd: _c, wall: _d, idemKey: _e, date, ...rest } = r as ExchangeRecord;
  // Both builders record the Date header, as whole seconds.
  return r.kind === 'exchange' && r.status > 0 ? { ...rest, date: Number.isInteger(date) } : rest;
}

describe('history offload (records built on the worker thread)', () => {
  it('writes the very records the main thread would, in the same order', async () => {
    stub = await variedTarget();
    const main = await record(stub.url, false);
    const worker = await record(stub.url, true);
    expect(worker.lines.length).toBe(10);
    expect(worker.lines.map(comparable)).toEqual(main.lines.map(comparable));
    for (const l of worker.lines) exchangeRecordSchema.parse(l);
    // What the comparison covers: leaks, errors, lists, non-JSON bodies, Retry-After.
    const byId = (id: string) => worker.lines.find((l) => (l as ExchangeRecord).sent.paymentId === id) as ExchangeRecord;
    expect(byId(LEAK_ID).leaks?.length).toBeGreaterThan(0);
    expect(JSON.stringify(worker.lines)).not.toContain(SECRET);
    expect(JSON.stringify(worker.lines)).not.toContain(CARD);
    expect(byId(TEXT_ID).json).toBe(false);
    expect(byId('pay_ratelimited').retryAfter).toBe(7);
    expect((worker.lines.find((l) => (l as ExchangeRecord).op === 'create') as ExchangeRecord).error?.decline_code).toBe('do_not_honor');
  });

  it('tells a live payment or list page from a test one without building every record', async () => {
    stub = await variedTarget();
    const main = await record(stub.url, false);
    const worker = await record(stub.url, true);
    // retrieve test, live, leak, text, 429; list (one live); create; then test, live, list.
    const expected = [false, true, false, false, false, true, false, false, true, true];
    expect(main.live).toEqual(expected);
    expect(worker.live).toEqual(expected);
    // Offload: only the four bodies that name livemode true (two payments, two list pages) were
    // built on the main thread; the escaped text in a description did not count.
    expect(worker.parsedByCheck).toBe(4);
  });
});

describe('history worker bundle', () => {
  it('loads no schema library: the worker holds only what building records needs (memory bound)', async () => {
    const { workerSource } = await import('../../src/history/writer.ts');
    const src = workerSource();
    expect(src).toContain('captureRecord');
    expect(src).not.toMatch(/node_modules\/zod/);
    expect(src.length).toBeLessThan(100_000);
  });
});

describe('offload back-pressure', () => {
  it('acknowledges compact records as they are written, not when the flush timer fires', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-offload-bp-'));
    dirs.push(dir);
    // A flush timer far beyond the test's time: only the cost-based flush can wake the writer.
    const w = new HistoryWriter({ path: join(dir, 'history.bin.gz'), offload: true, highWaterBytes: 256 * 1024, flushIntervalMs: 600_000 });
    const body = JSON.stringify({ id: 'pay_x', status: 'succeeded', amount: 1000, currency: 'EUR' });
    const meta = { scenario: 's', op: 'retrieve' as const, key: 'shop/test/…4321', sent: {}, tIntended: 0, tStart: 0, wall: 0 };
    const picked = { contentType: 'application/json', rateLimit: null, rateRemaining: null, rateReset: null, retryAfter: null, location: null };
    let waits = 0;
    for (let i = 0; i < 3000; i++) {
      w.writeCapture({ meta, tEnd: 1, status: 200, picked, body, failure: null });
      if (w.needsDrain) {
        waits++;
        await w.drained();
      }
    }
    await w.close();
    // The writer did wait; with acknowledgements tied to the 600 s timer it would never have woken
    // within the test's time-out (a liveness check, not a speed one).
    expect(waits).toBeGreaterThan(0);
    const back: unknown[] = [];
    for await (const r of readHistory(join(dir, 'history.bin.gz'))) back.push(r);
    expect(back).toHaveLength(3000);
  }, 30_000);
});
