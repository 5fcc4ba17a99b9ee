import { gunzipSync } from 'node:zlib';
import { exchangeRecord, historyRecords, historyText } from '../history-file.ts';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeKeySecrets } from '../../src/client/index.ts';
import { RunClock, historyPath, makeRunRecord, newRunId, runScenarios } from '../../src/engine/index.ts';
import { MetricsAggregator } from '../../src/history/metrics.ts';
import { HistoryWriter } from '../../src/history/index.ts';
import { parseKeyArg } from '../../src/spec/index.ts';
import { HISTORY_VERSION, historyRecordSchema, type ExchangeRecord, type HistoryRecord, type WebhookRecord } from '../../src/history/index.ts';
import { PAY_ID, paymentB, sendJson, startStub, type Stub } from '../engine/stub.ts';

const SECRET = 'svc_test_sk_historyKEY4321';
const KEYS = makeKeySecrets([parseKeyArg(`m1:${SECRET}`), parseKeyArg('m2:svc_live_sk_otherKEY0000')]);
let dir = '';
let stub: Stub | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

function tmp(): string {
  dir = mkdtempSync(join(tmpdir(), 'paystorm-history-'));
  return dir;
}

function exchange(i: number): ExchangeRecord {
  return exchangeRecord({ key: 'm1/test/…0001', sent: { paymentId: `pay_${i}` }, tStart: i, wall: 1_700_000_000_000 + i });
}

function webhook(): WebhookRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'webhook',
    seq: 0,
    tReceived: 5,
    wall: 1,
    path: '/hooks',
    signature: 'ok',
    t: 1,
    eventId: 'evt_1',
    type: 'payment.succeeded',
    createdAt: 1,
    livemode: false,
    envelopeProblems: [],
    payment: null,
    refund: null,
    answered: 200,
    duplicate: false,
  };
}

function readLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l));
}

describe('HistoryWriter', () => {
  it('streams a whole run to reports/<run-id>/history.bin.gz; every record validates as history v1', async () => {
    stub = await startStub((req, res) => (req.method === 'POST' ? sendJson(res, 201, paymentB(PAY_ID)) : sendJson(res, 200, paymentB(PAY_ID, 'succeeded'))));
    const runId = newRunId();
    const path = historyPath(runId, join(tmp(), 'reports'));
    expect(path.endsWith(join(runId, 'history.bin.gz'))).toBe(true);
    const writer = HistoryWriter.open(path);
    const clock = new RunClock();
    const target = { url: stub.url, embedded: false, presentation: 'B' as const, rateLimit: { limit: 500, windowMs: 60_000 } };
    const scenarios = [
      {
        name: 'mixed',
        description: 'creates, polls, lists, fails',
        rules: ['PAY-1'],
        async run(ctx: import('../../src/spec/index.ts').ScenarioContext) {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute({ executor: 'per-vu-iterations', vus: 4, iterations: 25, maxDurationMs: 20_000 }, async () => {
            const r = await c.create({ amount: 100, currency: 'EUR', card: { number: '4242424242424242', exp_month: 1, exp_year: 2040, cvc: '123', holder_name: 'x' } });
            await c.retrieve(r.payment!.id);
          });
          await c.list({ limit: 3 });
          await ctx.client(ctx.keys[1]).retrieve('pay_missing', { timeoutMs: 1 }).catch(() => undefined);
        },
      },
    ];
    const runRecord = makeRunRecord({ runId, clock, target, keys: KEYS.map((k) => k.handle), scenarios, seed: 3, timeScale: 1, settleBoundMs: 30_000, cardOutcomes: ['succeeds'] });
    const metrics = new MetricsAggregator();
    const outcome = await runScenarios({ scenarios, target, keys: KEYS, cards: {}, clock, writer, caps: { maxRequests: 1000, maxDurationMs: 30_000 }, seed: 3, timeScale: 1, metrics, log: () => {}, runRecord });
    await writer.close();

    const lines = await historyRecords(path);
    expect(lines.length).toBe(1 + outcome.requests + 1);
    const parsed = lines.map((l) => historyRecordSchema.parse(l));
    expect(parsed[0].kind).toBe('run');
    expect(parsed.at(-1)).toMatchObject({ kind: 'end', complete: true, reason: 'done', requests: 202 });
    const seqs = parsed.filter((r) => r.kind === 'exchange').map((r) => (r as ExchangeRecord).seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    // Neither in the records nor anywhere in the file's bytes (strings are stored as UTF-8).
    const text = (await historyText(path)) + gunzipSync(readFileSync(path)).toString('latin1');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('4242424242424242');
    expect(parsed[0]).toMatchObject({ keys: [{ label: 'm1/test/…4321', merchant: 'm1', mode: 'test' }, { mode: 'live' }] });

    // A saved history rebuilds the same metrics as the live run.
    const replay = new MetricsAggregator();
    for (const r of parsed) replay.add(r);
    expect(replay.snapshot()).toEqual(metrics.snapshot());
  });

  it('shares one seq across exchanges and webhooks and leaves other kinds without one', () => {
    const records: HistoryRecord[] = [];
    const w = HistoryWriter.memory(records);
    expect(w.write(exchange(1))).toBe(1);
    expect(w.write(webhook())).toBe(2);
    expect(w.write({ v: 1, kind: 'end', tEnd: 1, wall: 1, complete: true, reason: 'done', requests: 1, dropped: 0 })).toBe(-1);
    expect(w.write(exchange(2))).toBe(3);
    expect(records.map((r) => ('seq' in r ? r.seq : null))).toEqual([1, 2, null, 3]);
    expect('seq' in records[2]).toBe(false);
  });

  it('hands records to a callback sink and to subscribers', () => {
    const seen: string[] = [];
    const w = HistoryWriter.memory((r) => seen.push(`cb:${r.kind}`));
    const off = w.subscribe((r) => seen.push(`sub:${r.kind}`));
    w.write(exchange(1));
    off();
    w.write(webhook());
    expect(seen).toEqual(['cb:exchange', 'sub:exchange', 'cb:webhook']);
  });

  it('applies back-pressure without dropping a record, and keeps the order', async () => {
    const path = join(tmp(), 'bp', 'history.ndjson');
    const w = HistoryWriter.open(path, { highWaterBytes: 16 * 1024, batchBytes: 1024 });
    let sawPressure = false;
    const n = 5_000;
    for (let i = 0; i < n; i++) {
      w.write(exchange(i));
      if (w.needsDrain) {
        sawPressure = true;
        await w.drained();
        expect(w.needsDrain).toBe(false);
      }
    }
    await w.close();
    expect(sawPressure).toBe(true);
    const lines = readLines(path) as ExchangeRecord[];
    expect(lines.length).toBe(n);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
  });

  it('offload mode: the worker thread writes every line in seq order, with back-pressure', async () => {
    const path = join(tmp(), 'offload', 'history.ndjson');
    const w = HistoryWriter.open(path, { highWaterBytes: 16 * 1024, batchBytes: 1024, offload: true });
    const seen: number[] = [];
    w.subscribe((r) => seen.push('seq' in r ? r.seq : -1));
    let sawPressure = false;
    const n = 3_000;
    for (let i = 0; i < n; i++) {
      w.write(exchange(i));
      if (w.needsDrain) {
        sawPressure = true;
        await w.drained();
      }
    }
    await w.close();
    expect(sawPressure).toBe(true);
    const lines = readLines(path) as ExchangeRecord[];
    expect(lines.length).toBe(n);
    expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
    expect(seen).toEqual(lines.map((l) => l.seq));
  });

  it('encodes non-ASCII text exactly, in full batches and in lines larger than a batch', async () => {
    const path = join(tmp(), 'utf8', 'history.ndjson');
    const w = HistoryWriter.open(path, { batchBytes: 4096 });
    const texts = ['plain', 'Zahlung für Bücher – 10 €', '支付 ✓', 'x'.repeat(5000) + '…'];
    for (let i = 0; i < 400; i++) {
      const r = exchange(i);
      r.sent = { paymentId: `pay_${i}`, description: texts[i % texts.length] };
      w.write(r);
    }
    await w.close();
    const lines = readLines(path) as ExchangeRecord[];
    expect(lines.length).toBe(400);
    lines.forEach((l, i) => expect(l.sent.description).toBe(texts[i % texts.length]));
  });

  it('flushes synchronously at exit without reordering lines already in flight', () => {
    const path = join(tmp(), 'sync', 'history.ndjson');
    const w = HistoryWriter.open(path, { batchBytes: 512 });
    for (let i = 0; i < 1_000; i++) w.write(exchange(i));
    w.closeSync();
    // The in-flight async batch lands at its own offset; read after it settles.
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        const lines = readLines(path) as ExchangeRecord[];
        expect(lines.length).toBe(1_000);
        expect(lines.map((l) => l.seq)).toEqual(lines.map((_, i) => i + 1));
        resolve();
      }, 200),
    );
  });

  it('refuses writes after close', async () => {
    const w = HistoryWriter.memory([]);
    await w.close();
    expect(() => w.write(exchange(1))).toThrow(/after close/);
  });
});
