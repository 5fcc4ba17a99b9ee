/** Tiny node:http stub targets for engine and client tests (port 0, loopback only). */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Stub {
  url: string;
  port: number;
  server: Server;
  /** Requests received so far. */
  count: number;
  close(): Promise<void>;
}

export type StubHandler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => unknown;

export async function startStub(handler: StubHandler): Promise<Stub> {
  const stub = { count: 0 } as Stub;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = stub.count++;
      void handler(req, res, Buffer.concat(chunks).toString('utf8'), n);
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  stub.url = `http://127.0.0.1:${port}`;
  stub.port = port;
  stub.server = server;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}

export const RATE_HEADERS_OK = { 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '499', 'x-ratelimit-reset': '1900000000' };

/** A presentation-B payment body. */
export function paymentB(id: string, status = 'pending', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    object: 'payment',
    amount: 1000,
    currency: 'eur',
    status,
    created: 1_700_000_000,
    livemode: false,
    description: null,
    card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: null },
    customer: { email: 'a@b.c', name: 'A B' },
    metadata: {},
    decline_code: null,
    decline_message: null,
    redirect_url: null,
    refunded_at: null,
    succeeded_at: status === 'succeeded' ? 1_700_000_001 : null,
    failed_at: status === 'failed' ? 1_700_000_001 : null,
    next_action: null,
    refunded_amount: 0,
    refunds: [],
    ...extra,
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = RATE_HEADERS_OK): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export const PAY_ID = 'pay_0e5a1f2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
