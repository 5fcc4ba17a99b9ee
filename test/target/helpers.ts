/** Shared helpers of the reference-service tests: real HTTP on loopback, bounded waits. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { DEFAULT_TEST_CARDS, directCreateBody, hostedCreateBody, type InputShape, type PaymentInput, normalizePayment, type CanonicalPayment } from '../../src/spec/index.ts';
import { DEFAULT_KEYS, startReferenceService, type RunningService, type ServiceOptions } from '../../src/target/index.ts';

export const KEYS = {
  acmeTest: DEFAULT_KEYS[0].key,
  acmeTestApi: DEFAULT_KEYS[1].key,
  acmeLive: DEFAULT_KEYS[2].key,
  acmeNoDirect: DEFAULT_KEYS[3].key,
  globexTest: DEFAULT_KEYS[4].key,
  globexTestApi: DEFAULT_KEYS[5].key,
  globexLive: DEFAULT_KEYS[6].key,
} as const;

export const CARDS = DEFAULT_TEST_CARDS;
export const RETURN_URL = 'https://example.com/return';
export const EXP_YEAR = new Date().getUTCFullYear() + 3;

export function card(number: string = CARDS.succeeds, cvc = '123') {
  return { number, exp_month: 12, exp_year: EXP_YEAR, cvc, holder_name: 'Pay Storm' };
}

export function input(over: Partial<PaymentInput> = {}): PaymentInput {
  return { amount: 1000, currency: 'EUR', card: card(), returnUrl: RETURN_URL, description: 'test order', metadata: { order: '42' }, ...over };
}

export function createBody(over: Partial<PaymentInput> = {}, shape: InputShape = 'B'): Record<string, unknown> {
  return directCreateBody(input(over), shape);
}
export function hostedBody(over: Partial<PaymentInput> = {}): Record<string, unknown> {
  const { card: _c, ...rest } = input(over);
  return hostedCreateBody(rest);
}

/** Services started by a test file; `closeAll` in afterAll/afterEach. */
const running = new Set<RunningService>();
export async function start(opts: Partial<ServiceOptions> = {}): Promise<RunningService> {
  const s = await startReferenceService({ port: 0, timeScale: 0.01, ...opts });
  running.add(s);
  return s;
}
export async function closeAll(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(all.map((s) => s.close()));
}

export interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

let idemCounter = 0;
export function freshIdem(): string {
  return `idem-${process.pid}-${Date.now()}-${++idemCounter}`;
}

export async function http(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  opts: { key?: string | null; authorization?: string; body?: unknown; idem?: string | null; headers?: Record<string, string> } = {},
): Promise<Res> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  else if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  if (method === 'POST' && opts.idem !== null) headers['idempotency-key'] = opts.idem ?? freshIdem();
  const url = path.startsWith('http') ? path : base + path;
  const r = await request(url, { method, headers, body });
  const text = await r.body.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: r.statusCode, headers: r.headers, text, json };
}

/** A client bound to one service and key. */
export function client(s: { url: string }, key: string) {
  return {
    get: (path: string, o: Parameters<typeof http>[3] = {}) => http(s.url, 'GET', path, { key, ...o }),
    post: (path: string, body: unknown, o: Parameters<typeof http>[3] = {}) => http(s.url, 'POST', path, { key, body, ...o }),
    create: (over: Partial<PaymentInput> = {}, o: Parameters<typeof http>[3] & { shape?: InputShape } = {}) =>
      http(s.url, 'POST', '/v1/payments', { key, body: createBody(over, o.shape ?? 'B'), ...o }),
    hosted: (over: Partial<PaymentInput> = {}, o: Parameters<typeof http>[3] = {}) => http(s.url, 'POST', '/v1/payments/hpp', { key, body: hostedBody(over), ...o }),
    payment: async (id: string): Promise<CanonicalPayment | null> => {
      const r = await http(s.url, 'GET', `/v1/payments/${id}`, { key });
      return r.status === 200 ? normalizePayment(r.json) : null;
    },
    refund: (id: string, body: unknown = {}, o: Parameters<typeof http>[3] = {}) => http(s.url, 'POST', `/v1/payments/${id}/refund`, { key, body, ...o }),
    /** Polls GET until `until` holds (bounded). */
    waitFor: async (id: string, until: (p: CanonicalPayment) => boolean, timeoutMs = 5000): Promise<CanonicalPayment> => {
      const deadline = Date.now() + timeoutMs;
      let last: CanonicalPayment | null = null;
      while (Date.now() < deadline) {
        last = await client(s, key).payment(id);
        if (last && until(last)) return last;
        await sleep(15);
      }
      throw new Error(`payment ${id} did not reach the condition in ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    },
  };
}
export type Client = ReturnType<typeof client>;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function until<T>(fn: () => T | Promise<T>, timeoutMs = 5000, stepMs = 15): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}

/** The rate headers of a response as numbers (undefined when absent). */
export function rateHeaders(r: Res) {
  const n = (h: string) => (r.headers[h] === undefined ? undefined : Number(r.headers[h]));
  return { limit: n('x-ratelimit-limit'), remaining: n('x-ratelimit-remaining'), reset: n('x-ratelimit-reset'), retryAfter: n('retry-after') };
}

// ---------------------------------------------------------------- webhooks

export interface Delivery {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
  path: string;
}

/** A webhook receiver on port 0: answers `status(delivery index)` (default 200). */
export async function startReceiver(status: (n: number, d: Delivery) => number = () => 200) {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      const d: Delivery = { headers: req.headers, raw, body, at: Date.now(), path: req.url ?? '/' };
      const code = status(deliveries.length, d);
      deliveries.push(d);
      res.writeHead(code, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------- faults

import { createServer as createTcpServer, connect, type Socket } from 'node:net';

/** A loopback TCP proxy in front of the processor whose behaviour a test switches: pass, reset or hang. */
export async function startTcpProxy(targetPort: number) {
  let mode: 'pass' | 'reset' | 'hang' = 'pass';
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };
  const server = createTcpServer((client) => {
    track(client);
    if (mode === 'reset') return void client.resetAndDestroy();
    if (mode === 'hang') return;
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const dropAll = () => {
    for (const s of sockets) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    /** Switches behaviour; open connections are cut so the change applies at once. */
    set(next: 'pass' | 'reset' | 'hang') {
      mode = next;
      dropAll();
    },
    close: () =>
      new Promise<void>((r) => {
        dropAll();
        server.close(() => r());
      }),
  };
}
