/**
 * paystorm's webhook receiver (`--webhook-port`, `--webhook-secret`). Every POST on any
 * path is a delivery: it is verified (constant time, 5-minute tolerance), read against
 * the envelope, deduplicated by event id, scanned for leaks, answered — 200, or by plan
 * 500 or a stall past the acknowledge time so retries happen — and recorded.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import { EXIT, LIMITS, PaystormError, SIGNATURE_HEADER, verifySignature, type SignatureVerdict } from '../spec/index.ts';
import { type WebhookRecord } from '../history/index.ts';
import type { LeakScanner } from '../history/leak-scanner.ts';
import { AnswerBook, type Answer } from './answer.ts';
import { readEnvelope, type EnvelopeReading } from './envelope.ts';
import { buildLeakScanner, findLeaks, redactBody } from './leaks.ts';

/** Payment events are small; anything near this is not a webhook. */
export const MAX_BODY_BYTES = 1 << 20;

export interface WebhookReceiverOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** The endpoint's signing secret (`whsec_...`). */
  secret: string;
  /** Share of test-mode events whose first delivery is answered 500 (0..1); a few of them fail `failAttempts` attempts in a row. */
  failShare?: number;
  /** Attempts in a row answered 500 for the failing events chosen to repeat (default 3; 1 = first delivery only). */
  failAttempts?: number;
  /** Share of test-mode events whose first delivery is held for `stallMs` (0..1). */
  stallShare?: number;
  /** How long a stalled delivery is held; default the acknowledge time + 1 s. */
  stallMs?: number;
  /** The sender's acknowledge time (spec: 10 s); a stall at least this long counts as no answer. */
  ackTimeoutMs?: number;
  seed: number;
  /** Run-monotonic ms. */
  now: () => number;
  /** Epoch ms, for the record and the signature's 5-minute tolerance; default Date.now. */
  wall?: () => number;
  sink: (rec: WebhookRecord) => void;
  /** The run's API keys: a delivery carrying one is a leak (SEC-2). */
  secretsToScan?: readonly string[];
  /** The full card numbers the run sent (PAY-9, SEC-2). */
  cardNumbersToScan?: readonly string[];
  /** The engine's own scanner (keys with their labels); replaces the two lists above. */
  leakScanner?: LeakScanner;
  maxBodyBytes?: number;
  /** Where a failing sink is reported (default: stderr). */
  onError?: (err: unknown) => void;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Deliveries received (every POST, verified or not). */
  count(): number;
  /** Distinct event ids among verified deliveries. */
  uniqueEvents(): number;
  /**
   * Events (by id) whose latest verified delivery was not answered 2xx in time (a planned 500, a
   * stall past the acknowledge time, a delivery that could not be recorded): the retries the
   * target still owes. A retry under a new event id does not settle the old one.
   */
  awaitingRetry(): number;
  close(): Promise<void>;
}

function checkShare(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0 || v > 1) throw new PaystormError(`webhook receiver: ${name} must be between 0 and 1, got ${v}`, EXIT.usage, name);
  return v;
}

interface Delivery {
  tReceived: number;
  wall: number;
  path: string;
  raw: Buffer | null;
  signatureHeader: string | undefined;
}

export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<WebhookReceiver> {
  if (!opts.secret) throw new PaystormError('webhook receiver: --webhook-secret is required (the endpoint signing secret, whsec_...)', EXIT.usage, '--webhook-secret');
  const failShare = checkShare('failShare', opts.failShare ?? 0);
  const stallShare = checkShare('stallShare', opts.stallShare ?? 0);
  if (failShare + stallShare > 1) throw new PaystormError(`webhook receiver: failShare + stallShare must not exceed 1, got ${failShare + stallShare}`, EXIT.usage, 'stallShare');
  const ackTimeoutMs = opts.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs;
  const stallMs = opts.stallMs ?? ackTimeoutMs + 1000;
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const wall = opts.wall ?? Date.now;
  const scanner = opts.leakScanner ?? buildLeakScanner(opts.secretsToScan, opts.cardNumbersToScan);
  const onError = opts.onError ?? ((err: unknown) => process.stderr.write(`paystorm: webhook receiver: ${(err as Error)?.message ?? String(err)}\n`));

  /** Verified deliveries seen per event id: the next one's attempt number. */
  const seen = new Map<string, number>();
  const answers = new AnswerBook({ seed: opts.seed, failShare, stallShare, ...(opts.failAttempts !== undefined ? { failAttempts: opts.failAttempts } : {}) });
  let received = 0;
  const stalls = new Set<{ timer: NodeJS.Timeout; socket: Socket }>();
  /** Event ids whose latest verified delivery got no 2xx in time (see awaitingRetry). */
  const awaiting = new Set<string>();
  const settle = (eventId: string | null, answered: number) => {
    if (eventId === null) return;
    if (answered >= 200 && answered < 300) awaiting.delete(eventId);
    else awaiting.add(eventId);
  };

  const record = (d: Delivery, signature: SignatureVerdict, t: number | null, env: EnvelopeReading, answered: number, extra: Partial<WebhookRecord>): boolean => {
    const rec: WebhookRecord = {
      v: 1,
      kind: 'webhook',
      seq: 0,
      tReceived: d.tReceived,
      wall: d.wall,
      path: d.path,
      signature,
      t,
      eventId: env.eventId,
      type: env.type,
      createdAt: env.createdAt,
      livemode: env.livemode,
      envelopeProblems: env.problems,
      payment: env.payment,
      refund: env.refund,
      answered,
      duplicate: false,
      ...extra,
    };
    try {
      opts.sink(rec);
      return true;
    } catch (err) {
      onError(err);
      return false;
    }
  };

  const reply = (res: http.ServerResponse, status: number, body: unknown) => {
    if (res.destroyed || res.writableEnded) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  };

  const handle = (d: Delivery, res: http.ServerResponse) => {
    received++;
    if (d.raw === null) {
      const env = readEnvelope(undefined);
      env.problems = [`body: larger than ${maxBody} bytes; not read, so the signature was not verified`];
      record(d, d.signatureHeader ? 'malformed' : 'missing', null, env, 413, {});
      reply(res, 413, { error: `body larger than ${maxBody} bytes` });
      return;
    }
    const sig = verifySignature(opts.secret, d.raw, d.signatureHeader, Math.floor(d.wall / 1000));
    const text = d.raw.toString('utf8');
    let parsed: unknown;
    let json = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      json = false;
    }
    const leaks = findLeaks(scanner, text, json ? parsed : null);
    // The record is built from the redacted body: a leaked key must not reach the history.
    if (json && leaks.length) parsed = JSON.parse(redactBody(scanner, text));
    const env = json ? readEnvelope(parsed) : { ...readEnvelope(undefined), problems: ['body: not JSON'] };
    const verified = sig.verdict === 'ok';
    // Only a verified delivery counts as the event: a forged body must not mark an id as seen.
    const attempt = verified && env.eventId !== null ? (seen.get(env.eventId) ?? 0) : 0;
    if (verified && env.eventId !== null) seen.set(env.eventId, attempt + 1);
    const extra: Partial<WebhookRecord> = { duplicate: attempt > 0, ...(leaks.length ? { leaks } : {}) };

    if (!verified) {
      if (record(d, sig.verdict, sig.t, env, 400, extra)) reply(res, 400, { error: `signature ${sig.verdict}` });
      else reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    if (!json) {
      if (record(d, sig.verdict, sig.t, env, 400, extra)) reply(res, 400, { error: 'body is not JSON' });
      else reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    const answer: Answer = answers.answer(env.eventId, attempt, env.livemode);
    if (answer === 'stall') {
      // A stall as long as the acknowledge time is no answer, whatever comes after it.
      const answered = stallMs >= ackTimeoutMs ? 0 : 200;
      record(d, sig.verdict, sig.t, env, answered, { ...extra, stalledMs: stallMs });
      settle(env.eventId, answered);
      const entry = {
        socket: res.socket!,
        timer: setTimeout(() => {
          stalls.delete(entry);
          reply(res, 200, { received: true, stalledMs: stallMs });
        }, stallMs),
      };
      stalls.add(entry);
      return;
    }
    const status = answer === 'fail' ? 500 : 200;
    if (!record(d, sig.verdict, sig.t, env, status, extra)) {
      settle(env.eventId, 500);
      reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    settle(env.eventId, status);
    reply(res, status, status === 200 ? { received: true } : { error: 'paystorm: planned failure to exercise retries' });
  };

  const server = http.createServer((req, res) => {
    // GET answers a reachability check (e.g. through a tunnel); it is no delivery.
    if (req.method === 'GET' || req.method === 'HEAD') {
      req.resume();
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('paystorm webhook receiver: POST deliveries to any path\n');
      return;
    }
    if (req.method !== 'POST') {
      req.resume();
      res.writeHead(405, { Allow: 'POST, GET' });
      res.end();
      return;
    }
    const d: Delivery = {
      tReceived: opts.now(),
      wall: wall(),
      path: req.url ?? '/',
      raw: null,
      signatureHeader: req.headers[SIGNATURE_HEADER] as string | undefined,
    };
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // Past the limit keep draining (so the 413 can be read) but stop keeping bytes.
      if (size <= maxBody) chunks.push(c);
    });
    req.on('end', () => {
      if (size <= maxBody) d.raw = Buffer.concat(chunks, size);
      handle(d, res);
    });
    req.on('error', () => res.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as { port: number }).port;
  const host = opts.host ?? '127.0.0.1';
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${urlHost}:${port}`,
    port,
    count: () => received,
    uniqueEvents: () => seen.size,
    awaitingRetry: () => awaiting.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of stalls) {
          clearTimeout(s.timer);
          s.socket.destroy();
        }
        stalls.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
