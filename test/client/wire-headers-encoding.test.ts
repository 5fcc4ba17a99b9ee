/**
 * What paystorm's client says on the wire about itself and the codings it takes, and how it reads a
 * compressed answer (RFC 9110 §10.1.5 User-Agent, §12.5.3 Accept-Encoding, §8.4 Content-Encoding).
 * Loopback stubs on port 0.
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeKeySecrets, probeRateLimit } from '../../src/client/index.ts';
import { BODY_PARSE_MAX_CHARS } from '../../src/history/exchange-record.ts';
import { parseKeyArg, type PaymentInput } from '../../src/spec/index.ts';
import { PAY_ID, RATE_HEADERS_OK, paymentB, sendJson } from '../engine/stub.ts';
import { roundTrip, stubServers } from './stub-server.ts';

const SECRET = 'svc_test_sk_wireHEADERSkey4321';
const KEYS = makeKeySecrets([parseKeyArg(`shop:${SECRET}`)]);
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const input: PaymentInput = {
  amount: 1000,
  currency: 'EUR',
  card: { number: '4242424242424242', exp_month: 12, exp_year: 2031, cvc: '123', holder_name: 'Pay Storm' },
  returnUrl: 'https://example.com/back',
};

const { stubbed, factory } = stubServers(KEYS);
const client = (url: string) => factory(url).c;

/** Every value a header had in the request as received (raw, so a repeated header shows twice). */
function values(raw: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i].toLowerCase() === name) out.push(raw[i + 1]);
  return out;
}

describe('User-Agent and Accept-Encoding on every request', () => {
  it('API calls, sandbox-driver calls and probes send `user-agent: paystorm/<version>` and `accept-encoding: identity`, once each', async () => {
    const seen: { path: string; ua: string[]; ae: string[] }[] = [];
    const s = await stubbed((req, res) => {
      seen.push({ path: req.url!.split('?')[0], ua: values(req.rawHeaders, 'user-agent'), ae: values(req.rawHeaders, 'accept-encoding') });
      sendJson(res, 200, paymentB(PAY_ID, 'pending'));
    });
    const c = client(s.url);
    await c.create(input, { cardOutcome: 'succeeds' });
    await c.createHosted(input);
    await c.retrieve(PAY_ID);
    await c.list({ limit: 1 });
    await c.refund(PAY_ID, { amount: 10 });
    await c.refund(PAY_ID, {}, { path: 'refunds' });
    await c.complete3ds(`${s.url}/sandbox/3ds/${PAY_ID}`, 'success');
    await c.submitHosted(`${s.url}/sandbox/pay/${PAY_ID}`, input.card!);
    await c.raw({ method: 'GET', path: '/v1/payments', auth: 'missing' });
    await probeRateLimit(s.url, SECRET);
    expect(seen.length).toBe(10);
    for (const r of seen) expect({ path: r.path, ua: r.ua, ae: r.ae }).toEqual({ path: r.path, ua: [`paystorm/${VERSION}`], ae: ['identity'] });
  });

  it("a probe's own User-Agent / Accept-Encoding is sent as written, not doubled", async () => {
    const seen: IncomingHttpHeaders[] = [];
    const raws: string[][] = [];
    const s = await stubbed((req, res) => {
      seen.push(req.headers);
      raws.push(req.rawHeaders);
      sendJson(res, 200, paymentB(PAY_ID, 'pending'));
    });
    const c = client(s.url);
    await c.raw({ method: 'GET', path: '/v1/payments', headers: { 'User-Agent': 'curl/8.0', 'Accept-Encoding': 'gzip' } });
    expect(values(raws[0], 'user-agent')).toEqual(['curl/8.0']);
    expect(values(raws[0], 'accept-encoding')).toEqual(['gzip']);
  });
});

describe('Content-Encoding of answers', () => {
  const payment = Buffer.from(JSON.stringify(paymentB(PAY_ID, 'pending')));
  for (const [coding, encode] of [
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
    ['GZIP', gzipSync],
  ] as const) {
    it(`a ${coding} answer is decoded: JSON, its payment read`, async () => {
      const s = await stubbed((_req, res) => {
        const body = encode(payment);
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': body.length, ...RATE_HEADERS_OK });
        res.end(body);
      });
      const r = await client(s.url).create(input, { cardOutcome: 'succeeds' });
      const rec = roundTrip(r.record);
      expect({ status: rec.status, json: rec.json, payment: rec.payment?.id ?? null, snippet: rec.bodySnippet }).toEqual({ status: 201, json: true, payment: PAY_ID, snippet: undefined });
    });
  }

  it('codings applied in turn (`gzip, br`) are undone in reverse order', async () => {
    const s = await stubbed((_req, res) => {
      const body = brotliCompressSync(gzipSync(payment));
      res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip, br', 'content-length': body.length, ...RATE_HEADERS_OK });
      res.end(body);
    });
    const r = await client(s.url).create(input, { cardOutcome: 'succeeds' });
    expect({ json: r.record.json, payment: r.record.payment?.id ?? null }).toEqual({ json: true, payment: PAY_ID });
  });

  it('an API key echoed in a gzip-encoded answer is found by the leak scanner and kept out of the record', async () => {
    const s = await stubbed((_req, res) => {
      const body = gzipSync(Buffer.from(JSON.stringify({ error: { type: 'invalid_request_error', code: 'parameter_invalid', message: `bad key ${SECRET}`, param: 'amount', decline_code: null, doc_url: null, request_id: 'req_1' } })));
      res.writeHead(400, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length, ...RATE_HEADERS_OK });
      res.end(body);
    });
    const r = await client(s.url).create(input, { cardOutcome: 'succeeds' });
    expect(r.record.leaks?.length).toBe(1);
    expect(r.record.error?.code).toBe('parameter_invalid');
    expect(JSON.stringify(r.record)).not.toContain(SECRET);
  });

  for (const [what, coding, bytes, reason] of [
    ['an unknown coding', 'zstd', Buffer.from('(\xb5/\xfd binary', 'latin1'), /zstd.*not supported/i],
    ['a corrupt gzip body', 'gzip', Buffer.from('{"not":"gzip"}'), /gzip.*could not be decoded/i],
  ] as const) {
    it(`${what} is recorded as not JSON, with a snippet that says why (no crash)`, async () => {
      const s = await stubbed((_req, res) => {
        res.writeHead(201, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': bytes.length, ...RATE_HEADERS_OK });
        res.end(bytes);
      });
      const r = await client(s.url).create(input, { cardOutcome: 'succeeds' });
      const rec = roundTrip(r.record);
      expect({ status: rec.status, failure: rec.failure, json: rec.json, payment: rec.payment ?? null }).toEqual({ status: 201, failure: null, json: false, payment: null });
      expect(rec.bodySnippet).toMatch(reason);
    });
  }

  it('a decoded body over the parse limit is an oversized answer (json still judged), like an identity one', async () => {
    const big = Buffer.from(JSON.stringify({ object: 'list', data: [], has_more: false, url: '/v1/payments', pad: 'x'.repeat(BODY_PARSE_MAX_CHARS + 10) }));
    const s = await stubbed((_req, res) => {
      const body = gzipSync(big);
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': body.length, ...RATE_HEADERS_OK });
      res.end(body);
    });
    const r = await client(s.url).list({ limit: 1 });
    expect({ json: r.record.json, oversized: r.record.oversizedBodyChars }).toEqual({ json: true, oversized: big.length });
  });

  it('a decompression bomb is not inflated past the cap: recorded as not JSON, saying so', async () => {
    // 64 MiB of zeros gzip to ~64 KiB.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    const s = await stubbed((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length, ...RATE_HEADERS_OK });
      res.end(bomb);
    });
    const r = await client(s.url).list({ limit: 1 });
    expect({ status: r.record.status, json: r.record.json, oversized: r.record.oversizedBodyChars }).toEqual({ status: 200, json: false, oversized: undefined });
    expect(r.record.bodySnippet).toMatch(/gzip.*more than \d+ bytes/i);
  });
});
