/**
 * The autocannon burst on the wire: the headers it sends, content-coded answers, and servers that
 * close connections (RFC 9112 §9.6 `Connection: close`, or a keep-alive close racing the next
 * request). Every request of a burst is answered and recorded, or recorded as paystorm's own loss.
 * Loopback stubs on port 0.
 */
import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { makeKeySecrets } from '../../src/client/index.ts';
import { RunClock, runScenarios } from '../../src/engine/index.ts';
import { HistoryWriter, historyRecordSchema, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { parseKeyArg, type BurstSpec } from '../../src/spec/index.ts';
import { PAY_ID, RATE_HEADERS_OK, paymentB, startStub, type Stub } from './stub.ts';

const SECRET = 'svc_test_sk_burstWIRE3333';
const KEYS = makeKeySecrets([parseKeyArg(`m1:${SECRET}`)]);
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

let stub: Stub | null = null;
const nets: NetServer[] = [];
afterEach(async () => {
  await stub?.close();
  stub = null;
  for (const s of nets.splice(0)) await new Promise((r) => s.close(r));
});

type Result = { sent: number; statuses: Record<number, number>; lost?: number; serverClosed?: number };

async function burst(url: string, spec: Omit<BurstSpec, 'key'>, logs: string[] = []) {
  const records: HistoryRecord[] = [];
  let result: Result | null = null;
  await runScenarios({
    scenarios: [{ name: 'b', description: '', rules: [], run: async (ctx) => void (result = (await ctx.burst({ key: ctx.keys[0], ...spec })) as Result) }],
    target: { url, embedded: false, presentation: 'B', rateLimit: null },
    keys: KEYS,
    cards: {},
    clock: new RunClock(),
    writer: HistoryWriter.memory(records),
    caps: { maxRequests: 1000, maxDurationMs: 20_000 },
    seed: 1,
    timeScale: 1,
    log: (m) => logs.push(m),
    timeoutMs: 5_000,
  });
  const ex = records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
  for (const r of ex) historyRecordSchema.parse(JSON.parse(JSON.stringify(r)));
  return { ex, result: result! };
}

const POST = { amount: 6, connections: 2, method: 'POST', path: '/v1/payments', body: { amount: 100, currency: 'EUR' } } as const;

/**
 * A node:net server on loopback (port 0) that reads each complete request (head and Content-Length
 * body) off each connection and hands it to `onRequest` with its Idempotency-Key; the caller answers.
 */
async function rawServer(onRequest: (sock: Socket, idemKey: string) => void): Promise<string> {
  const srv = createNetServer((sock) => {
    let buf = '';
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      // The complete requests this chunk ends (pipelining is 1: rarely more than one).
      for (let i = 0; i < 16; i++) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const len = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buf.length < end + 4 + len) return;
        buf = buf.slice(end + 4 + len);
        onRequest(sock, /idempotency-key:\s*(\S+)/i.exec(head)?.[1] ?? '');
      }
    });
    sock.on('error', () => undefined);
  });
  nets.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

/** A raw 201 payment answer; `close` ends the connection after it without saying so. */
function answer201(sock: Socket, close = false): void {
  const text = JSON.stringify(paymentB(PAY_ID));
  const rate = Object.entries(RATE_HEADERS_OK).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const res = `HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n${rate}\r\n${text}`;
  if (close) sock.end(res);
  else sock.write(res);
}

describe('burst: headers and content codings', () => {
  it('sends `user-agent: paystorm/<version>` and `accept-encoding: identity` on every request', async () => {
    const seen: { ua: unknown; ae: unknown }[] = [];
    stub = await startStub((req, res) => {
      seen.push({ ua: req.headers['user-agent'], ae: req.headers['accept-encoding'] });
      const text = JSON.stringify(paymentB(PAY_ID));
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...RATE_HEADERS_OK });
      res.end(text);
    });
    const { ex } = await burst(stub.url, POST);
    expect(ex.length).toBe(6);
    expect(seen).toEqual(Array.from({ length: 6 }, () => ({ ua: `paystorm/${VERSION}`, ae: 'identity' })));
  });

  for (const [coding, encode] of [
    ['gzip', gzipSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`a ${coding}-coded answer is decoded before it is recorded (JSON, payment, leak scan)`, async () => {
      stub = await startStub((_req, res, _b, n) => {
        const obj =
          n % 2 === 0 ? paymentB(PAY_ID) : { error: { type: 'invalid_request_error', code: 'parameter_invalid', message: `bad key ${SECRET}`, param: null, decline_code: null, doc_url: null, request_id: 'r' } };
        const body = encode(Buffer.from(JSON.stringify(obj)));
        res.writeHead(n % 2 === 0 ? 201 : 400, { 'Content-Type': 'application/json', 'Content-Encoding': coding, 'content-length': body.length, ...RATE_HEADERS_OK });
        res.end(body);
      });
      const { ex } = await burst(stub.url, POST);
      expect(ex.length).toBe(6);
      expect(ex.every((r) => r.json === true)).toBe(true);
      expect(ex.filter((r) => r.status === 201).map((r) => r.payment?.id)).toEqual([PAY_ID, PAY_ID, PAY_ID]);
      expect(ex.filter((r) => r.status === 400).map((r) => [r.error?.code, r.leaks?.length])).toEqual(Array.from({ length: 3 }, () => ['parameter_invalid', 1]));
      expect(JSON.stringify(ex)).not.toContain(SECRET);
    });
  }

  it('an unknown coding is recorded as not JSON, saying why', async () => {
    stub = await startStub((_req, res) => {
      const body = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 1, 2]);
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'zstd', 'content-length': body.length, ...RATE_HEADERS_OK });
      res.end(body);
    });
    const { ex } = await burst(stub.url, { ...POST, amount: 2 });
    expect(ex.map((r) => [r.status, r.json])).toEqual([
      [201, false],
      [201, false],
    ]);
    expect(ex[0].bodySnippet).toMatch(/zstd.*not supported/);
  });
});

describe('burst: servers that close connections', () => {
  it('`Connection: close` on every answer: the server gets all `amount` requests, each answer recorded with its own key', async () => {
    const idemKeys: string[] = [];
    stub = await startStub((req, res) => {
      idemKeys.push(String(req.headers['idempotency-key']));
      const text = JSON.stringify(paymentB(PAY_ID));
      res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), connection: 'close', ...RATE_HEADERS_OK });
      res.end(text);
    });
    const { ex, result } = await burst(stub.url, { ...POST, amount: 20 });
    expect(idemKeys.length).toBe(20);
    expect(ex.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 201));
    expect(new Set(ex.map((r) => r.idemKey))).toEqual(new Set(idemKeys));
    expect({ sent: result.sent, lost: result.lost ?? 0 }).toEqual({ sent: 20, lost: 0 });
  });

  it('a server that closes after each answer without saying so: lost requests are made up, and recorded as aborted (not the service)', async () => {
    // Answers each connection's first request, then closes it; a request written meanwhile is never read.
    const idemKeys: string[] = [];
    const answeredOn = new WeakSet<Socket>();
    const url = await rawServer((sock, idemKey) => {
      if (answeredOn.has(sock)) return;
      answeredOn.add(sock);
      idemKeys.push(idemKey);
      answer201(sock, true);
    });
    const logs: string[] = [];
    const { ex, result } = await burst(url, { ...POST, amount: 10 }, logs);
    const answered = ex.filter((r) => r.status === 201);
    const aborted = ex.filter((r) => r.status === 0 && r.failure === 'aborted');
    expect(idemKeys.length).toBe(10);
    expect(answered.length).toBe(10);
    expect(new Set(answered.map((r) => r.idemKey))).toEqual(new Set(idemKeys));
    expect(ex.length).toBe(answered.length + aborted.length);
    expect(aborted.length).toBeGreaterThan(0);
    expect({ sent: result.sent, lost: result.lost }).toEqual({ sent: 10, lost: aborted.length });
    // Aborted records name the key the lost request carried, which the server never saw.
    for (const r of aborted) expect(idemKeys).not.toContain(r.idemKey);
    expect(logs.join('\n')).toMatch(new RegExp(`${aborted.length} request\\(s\\).*lost.*closed`));
  });

  it('a connection reset while others wait: exactly the request on that connection is recorded as failed, once; the others get their answers', async () => {
    // Holds every answer until all three requests are in, then resets the connection of the last to arrive
    // (a burst's oldest pending request is its first); the others are answered once that reset is seen.
    const CONNS = 3;
    const held: { sock: Socket; idemKey: string }[] = [];
    const idemKeys: string[] = [];
    let victim: string | null = null;
    const url = await rawServer((sock, idemKey) => {
      idemKeys.push(idemKey);
      if (victim !== null) return answer201(sock);
      held.push({ sock, idemKey });
      if (held.length < CONNS) return;
      const last = held[CONNS - 1];
      victim = last.idemKey;
      last.sock.once('close', () => setTimeout(() => held.slice(0, -1).forEach((h) => answer201(h.sock)), 20));
      last.sock.resetAndDestroy();
    });
    const { ex, result } = await burst(url, { ...POST, amount: CONNS, connections: CONNS });
    expect(victim).not.toBeNull();
    // The one on the reset connection failed, as a reset, under its own key; the others' answers were recorded.
    expect(ex.filter((r) => r.status === 0).map((r) => [r.idemKey, r.failure])).toEqual([[victim, 'reset']]);
    expect(ex.filter((r) => r.status === 201).map((r) => r.idemKey).sort()).toEqual(idemKeys.filter((k) => k !== victim).sort());
    // Each request recorded once, and the server was sent the burst's requests, nothing made up.
    expect(ex.map((r) => r.idemKey).sort()).toEqual([...idemKeys].sort());
    expect(idemKeys.length).toBe(CONNS);
    expect({ sent: result.sent, statuses: result.statuses, lost: result.lost ?? 0 }).toEqual({ sent: CONNS, statuses: { 201: CONNS - 1 }, lost: 0 });
  });
});
