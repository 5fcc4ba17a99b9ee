/**
 * A response body far larger than any answer of this API (a list page from a service that ignores
 * `limit`) must not cost the run its history: the offload worker's heap is capped (64 MB), so a body
 * over BODY_PARSE_MAX_CHARS is recorded unparsed, and a worker that dies anyway must release the
 * executors waiting on drained() and make close() fail with a clear message.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BODY_PARSE_MAX_CHARS, isJsonText, responseRecord, type ExchangeMeta, type PickedHeaders } from '../../src/history/exchange-record.ts';
import { LeakScanner } from '../../src/history/leak-scanner.ts';
import { HistoryWriter, HISTORY_VERSION, exchangeRecordSchema, readHistory, type HistoryRecord } from '../../src/history/index.ts';

const SECRET = 'svc_test_sk_oversizedSECRETkey55';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempPath(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-oversized-'));
  dirs.push(dir);
  return join(dir, name);
}

const meta = (i: number): ExchangeMeta => ({ scenario: 's', op: 'list', key: 'shop', sent: { amount: 100 }, tIntended: i, tStart: i, wall: 1_700_000_000_000 + i });
const picked: PickedHeaders = { contentType: 'application/json', rateLimit: '100', rateRemaining: '99', rateReset: '1900000000', retryAfter: null, location: null, date: null };
const runRecord = { v: HISTORY_VERSION, kind: 'run', runId: 'r', wall: 0, target: { url: 'x', embedded: false, presentation: 'B' }, rateLimit: null, keys: [], scenarios: [], seed: 1, timeScale: 1, settleBoundMs: 1, webhooks: null, cardOutcomes: [] } as unknown as HistoryRecord;

/** A ~12 MB list page (60,000 payments), one of which echoes the key. */
function hugeListPage(): string {
  const item = JSON.stringify({ id: 'pay_00000000-0000-4000-8000-000000000000', object: 'payment', status: 'pending', amount: 100, currency: 'eur', description: 'x'.repeat(120), metadata: { a: 'b' } });
  return `{"object":"list","url":"/v1/payments","has_more":false,"data":[${Array(60_000).fill(item).join(',')},{"description":"${SECRET}"}]}`;
}

async function readAll(path: string): Promise<HistoryRecord[]> {
  const out: HistoryRecord[] = [];
  for await (const r of readHistory(path)) out.push(r);
  return out;
}

describe('an oversized response body', () => {
  it('is recorded unparsed by a real offloaded writer (~12 MB body): the worker survives and every record is in the file', async () => {
    const path = tempPath('history.bin.gz');
    const w = new HistoryWriter({ path, offload: true });
    w.write(runRecord);
    w.addScanKey(SECRET, 'shop');
    const big = hugeListPage();
    expect(big.length).toBeGreaterThan(BODY_PARSE_MAX_CHARS);
    w.writeCapture({ meta: meta(1), tEnd: 2, status: 200, picked, body: '{"object":"list","url":"/v1/payments","has_more":false,"data":[]}', failure: null });
    w.writeCapture({ meta: meta(2), tEnd: 3, status: 200, picked, body: big, failure: null });
    for (let i = 3; i < 50; i++) w.writeCapture({ meta: meta(i), tEnd: i + 1, status: 200, picked, body: '{}', failure: null });
    await w.drained();
    await w.close();

    const back = await readAll(path);
    expect(back).toHaveLength(50);
    const rec = exchangeRecordSchema.parse(back.find((r) => r.kind === 'exchange' && r.seq === 2));
    // Status, headers, times and what was sent as always; the body marked, not read; json still honest.
    expect(rec).toMatchObject({ status: 200, tEnd: 3, sent: { amount: 100 }, rate: { limit: 100, remaining: 99 }, json: true, list: null, payment: null, error: null, oversizedBodyChars: big.length });
    expect(rec.leaks).toEqual(['api key shop echoed']);
    expect(rec.bodySnippet?.startsWith('{"object":"list"')).toBe(true);
    // The main thread builds the very same record (a scenario reading the result gets it).
    const local = responseRecord(meta(2), 3, { status: 200, picked, body: big }, new LeakScanner([{ secret: SECRET, label: 'shop' }]));
    expect({ ...local.record, seq: 2 }).toEqual(rec);
    expect(local.body).toBeNull();
  }, 60_000);

  it('marks a long body that is not JSON as not JSON', () => {
    const text = '<html>' + 'x'.repeat(BODY_PARSE_MAX_CHARS) + '</html>';
    const r = responseRecord(meta(1), 2, { status: 200, picked: { ...picked, contentType: 'text/html' }, body: text }, new LeakScanner()).record;
    expect(r).toMatchObject({ json: false, oversizedBodyChars: text.length });
  });

  it('checks JSON text exactly as JSON.parse does, without building it', () => {
    const cases = ['{}', '[]', ' {"a" : [1, -0.5e3, true, null, "\\u00e9\\n"]} ', '"s"', '0', '{"a":1,}', '[1,]', '01', '1.', '{"a"}', '{"a":1 "b":2}', "{'a':1}", '"\\x"', '"\u0001"', '[1]]', '', ' ', 'nul', 'true false', '{"a":{"b":[{}]}}', '"\\u12G4"'];
    for (const c of cases) {
      let ok = true;
      try {
        JSON.parse(c);
      } catch {
        ok = false;
      }
      expect(isJsonText(c), c).toBe(ok);
    }
    // Multi-MB strings and nesting: no regex or call stack to overflow.
    expect(isJsonText(JSON.stringify({ s: 'y\n'.repeat(3_000_000) }))).toBe(true);
    expect(isJsonText('['.repeat(200_000) + ']'.repeat(200_000))).toBe(true);
  });
});

describe('a history worker that dies', () => {
  it('releases drained(), keeps what it wrote, and makes close() fail saying the history is incomplete', async () => {
    const path = tempPath('history.ndjson.gz');
    const w = new HistoryWriter({ path, offload: true, flushIntervalMs: 5 });
    w.write(runRecord);
    for (let i = 1; i <= 20; i++) w.writeCapture({ meta: meta(i), tEnd: i + 1, status: 200, picked, body: '{}', failure: null });
    // Wait until the worker acknowledged all 21 records as written.
    while (w.queued > 0) await new Promise((r) => setTimeout(r, 5));
    // The worker dies (as on running out of its heap) with work queued and an executor waiting.
    const big = 'x'.repeat(3 * 1024 * 1024);
    w.writeCapture({ meta: meta(21), tEnd: 22, status: 200, picked, body: big, failure: null });
    expect(w.needsDrain).toBe(true);
    const waiting = w.drained();
    await (w as unknown as { worker: Worker }).worker.terminate();
    await waiting;
    expect(w.needsDrain).toBe(false);
    // The run goes on to its end: writes after the loss do not throw.
    w.writeCapture({ meta: meta(22), tEnd: 23, status: 200, picked, body: '{}', failure: null });
    await expect(w.close()).rejects.toThrow(/history worker failed .*incomplete/);
    // Every record acknowledged before the death is there (the one queued at it may be, if the worker
    // wrote it first); the one written after is not.
    const seqs = (await readAll(path)).flatMap((r) => (r.kind === 'exchange' ? [r.seq] : []));
    expect(seqs.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(seqs).not.toContain(22);
  }, 30_000);
});
