/**
 * paystorm's webhook receiver (`--webhook-port`, `--webhook-secret`). Every POST on any
 * path is a delivery: it is verified (constant time, 5-minute tolerance, against any of the
 * endpoints' secrets, from the service's own signature header), read against
 * the envelope, deduplicated by event id, scanned for leaks, answered — 200, or by plan
 * 500 or a stall past the acknowledge time so retries happen — and recorded.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import {
  EXIT,
  HEADER_NAME_PATTERN,
  LIMITS,
  PaystormError,
  SIGNATURE_HEADER,
  SIGNATURE_HEADER_SUFFIX,
  parseSignatureHeader,
  startVerification,
  type SignatureCheck,
  type SignatureVerdict,
  type StreamingVerification,
} from '../spec/index.ts';
import { type WebhookRecord } from '../history/index.ts';
import type { LeakScanner } from '../history/leak-scanner.ts';
import { AnswerBook, type Answer } from './answer.ts';
import { readEnvelope, type EnvelopeReading } from './envelope.ts';
import { buildLeakScanner, findLeaks, redactParsed } from './leaks.ts';

/** Payment events are small; anything near this is not a webhook. */
export const MAX_BODY_BYTES = 1 << 20;
/**
 * Deepest JSON nesting read as an envelope. A payment event is a few levels deep; a body nested
 * deeper is recorded unread (`body: nested deeper than …`), so nothing downstream (the envelope,
 * the history writer, the oracle) walks a 200,000-deep structure.
 */
export const MAX_JSON_DEPTH = 64;
/** At most this many candidate signature headers are verified per delivery (default header matching). */
const MAX_SIGNATURE_CANDIDATES = 8;

export interface WebhookReceiverOptions {
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /**
   * The endpoints' signing secrets (`whsec_...`): one, or one per endpoint (each merchant's, the
   * live endpoint's). A delivery is verified when any of them matches; the record says which
   * (`secretIndex`, 0 = the first), never the secret.
   */
  secret: string | readonly string[];
  /**
   * The service's signature header name (`Acme-Signature`). Absent: `Service-Signature`, or any
   * header named `…-signature` whose value has the form `t=<unix>,v1=<hex>`.
   */
  signatureHeader?: string;
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
  /** The signature headers to verify (name, value, its running HMACs); none: `missing`. */
  candidates: { name: string; value: string; verification: StreamingVerification }[];
}

/** Node joins repeated headers with ', ' except a few it keeps as arrays. */
function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/**
 * The headers that may carry the delivery's signature. With a name given, that header only.
 * Otherwise `service-signature` (whatever its value, so a malformed one is reported as such) and
 * every other `…-signature` header whose value parses as `t=…,v1=…` (a foreign `X-Hub-Signature:
 * sha256=…` is not a candidate). Each is verified on its own: only a candidate that verifies makes
 * the delivery `ok`, so extra headers can never make an unsigned delivery pass.
 */
function signatureCandidates(headers: IncomingHttpHeaders, name: string | undefined): { name: string; value: string }[] {
  if (name !== undefined) {
    const value = headerText(headers[name]);
    return value ? [{ name, value }] : [];
  }
  const out: { name: string; value: string }[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (out.length >= MAX_SIGNATURE_CANDIDATES) break;
    const value = headerText(v);
    if (!value) continue;
    if (k === SIGNATURE_HEADER) out.unshift({ name: k, value });
    else if (k.endsWith(SIGNATURE_HEADER_SUFFIX) && k.length > SIGNATURE_HEADER_SUFFIX.length && parseSignatureHeader(value) !== null) out.push({ name: k, value });
  }
  return out;
}

/** How good a verdict is, to report the best candidate: ok, then stale (the signature matched), mismatch, malformed. */
const VERDICT_RANK: Record<SignatureVerdict, number> = { ok: 0, stale: 1, mismatch: 2, malformed: 3, missing: 4 };

/** Whether a JSON text nests deeper than `max` (brackets outside strings), without parsing it. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \\ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

/** A delivery's signature verdict and, when a header was read, its name. */
type Signed = SignatureCheck & { header?: string };

export async function startWebhookReceiver(opts: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const secrets: readonly string[] = typeof opts.secret === 'string' ? [opts.secret] : [...opts.secret];
  if (!secrets.length || secrets.some((s) => !s)) throw new PaystormError('webhook receiver: --webhook-secret is required (the endpoint signing secret, whsec_...)', EXIT.usage, '--webhook-secret');
  const headerName = opts.signatureHeader === undefined ? undefined : opts.signatureHeader.trim().toLowerCase();
  if (headerName !== undefined && !HEADER_NAME_PATTERN.test(headerName)) {
    throw new PaystormError(`webhook receiver: --webhook-signature-header must be an HTTP header name (such as Acme-Signature), got ${JSON.stringify(opts.signatureHeader)}`, EXIT.usage, '--webhook-signature-header');
  }
  const failShare = checkShare('failShare', opts.failShare ?? 0);
  const stallShare = checkShare('stallShare', opts.stallShare ?? 0);
  if (failShare + stallShare > 1) throw new PaystormError(`webhook receiver: failShare + stallShare must not exceed 1, got ${failShare + stallShare}`, EXIT.usage, 'stallShare');
  const ackTimeoutMs = opts.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs;
  const stallMs = opts.stallMs ?? ackTimeoutMs + 1000;
  const maxBody = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const wall = opts.wall ?? Date.now;
  const scanner = opts.leakScanner ?? buildLeakScanner(opts.secretsToScan, opts.cardNumbersToScan);
  const onError = opts.onError ?? ((err: unknown) => process.stderr.write(`paystorm: webhook receiver: ${(err as Error)?.message ?? String(err)}\n`));
  /** A delivery the receiver failed on (a bug): answered 500, recorded not at all, each distinct error reported once. */
  const reported = new Set<string>();
  const failed = (err: unknown) => {
    const msg = (err as Error)?.message ?? String(err);
    if (reported.has(msg)) return;
    reported.add(msg);
    onError(new Error(`a delivery could not be handled (answered 500, not recorded; reported once): ${msg}`));
  };

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

  const record = (d: Delivery, sig: Signed, env: EnvelopeReading, answered: number, extra: Partial<WebhookRecord>): boolean => {
    const rec: WebhookRecord = {
      v: 1,
      kind: 'webhook',
      seq: 0,
      tReceived: d.tReceived,
      wall: d.wall,
      path: d.path,
      signature: sig.verdict,
      t: sig.t,
      ...(sig.header !== undefined ? { signatureHeader: sig.header } : {}),
      ...(sig.secretIndex !== undefined ? { secretIndex: sig.secretIndex } : {}),
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

  /** The best verdict among the candidate headers (the first that verifies), and which header gave it. */
  const verify = (d: Delivery): Signed => {
    let best: Signed = { verdict: 'missing', t: null };
    for (const c of d.candidates) {
      const got: SignatureCheck = c.verification.finish(Math.floor(d.wall / 1000));
      if (VERDICT_RANK[got.verdict] < VERDICT_RANK[best.verdict]) best = { ...got, header: c.name };
    }
    return best;
  };

  const handle = (d: Delivery, res: http.ServerResponse) => {
    received++;
    const sig = verify(d);
    if (d.raw === null) {
      // Too large to keep, but its signature was computed as it streamed in: WH-1 judges it as any other.
      const env = readEnvelope(undefined);
      env.problems = [`body: larger than ${maxBody} bytes; not read (the signature was verified while it streamed in)`];
      record(d, sig, env, 413, {});
      reply(res, 413, { error: `body larger than ${maxBody} bytes` });
      return;
    }
    const text = d.raw.toString('utf8');
    let parsed: unknown = null;
    let json = true;
    let unread: string | null = null;
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      json = false;
      unread = `body: JSON nested deeper than ${MAX_JSON_DEPTH} levels; not read`;
    } else {
      try {
        parsed = JSON.parse(text);
      } catch {
        json = false;
      }
    }
    const leaks = findLeaks(scanner, text, json ? parsed : null);
    // The record is built from the redacted body: a leaked key must not reach the history. Redacted
    // in the parsed value, not the text: a card number echoed as a bare JSON number redacted as
    // text would leave invalid JSON.
    if (json && leaks.length) parsed = redactParsed(scanner, parsed);
    const env = json ? readEnvelope(parsed) : { ...readEnvelope(undefined), problems: [unread ?? 'body: not JSON'] };
    const verified = sig.verdict === 'ok';
    // Only a verified delivery counts as the event: a forged body must not mark an id as seen.
    const attempt = verified && env.eventId !== null ? (seen.get(env.eventId) ?? 0) : 0;
    if (verified && env.eventId !== null) seen.set(env.eventId, attempt + 1);
    const extra: Partial<WebhookRecord> = { duplicate: attempt > 0, ...(leaks.length ? { leaks } : {}) };

    if (!verified) {
      if (record(d, sig, env, 400, extra)) reply(res, 400, { error: `signature ${sig.verdict}` });
      else reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    if (!json) {
      if (record(d, sig, env, 400, extra)) reply(res, 400, { error: unread ?? 'body is not JSON' });
      else reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    const answer: Answer = answers.answer(env.eventId, attempt, env.livemode);
    if (answer === 'stall') {
      // A stall as long as the acknowledge time is no answer, whatever comes after it.
      const answered = stallMs >= ackTimeoutMs ? 0 : 200;
      record(d, sig, env, answered, { ...extra, stalledMs: stallMs });
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
    if (!record(d, sig, env, status, extra)) {
      settle(env.eventId, 500);
      reply(res, 500, { error: 'paystorm could not record the delivery' });
      return;
    }
    settle(env.eventId, status);
    reply(res, status, status === 200 ? { received: true } : { error: 'paystorm: planned failure to exercise retries' });
  };

  /** handle(), but a delivery it throws on (a receiver bug, a body no one foresaw) is answered 500 and the process lives on. */
  const handleSafely = (d: Delivery, res: http.ServerResponse) => {
    try {
      handle(d, res);
    } catch (err) {
      failed(err);
      try {
        reply(res, 500, { error: 'paystorm could not handle the delivery' });
      } catch {
        res.destroy();
      }
    }
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
    let d: Delivery;
    try {
      d = {
        tReceived: opts.now(),
        wall: wall(),
        path: req.url ?? '/',
        raw: null,
        candidates: signatureCandidates(req.headers, headerName).map((c) => ({ ...c, verification: startVerification(secrets, c.value) })),
      };
    } catch (err) {
      failed(err);
      req.resume();
      reply(res, 500, { error: 'paystorm could not handle the delivery' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      // The signature is computed as the body streams in, so one past the limit is still verified.
      for (const cand of d.candidates) cand.verification.update(c);
      // Past the limit keep draining (so the 413 can be read) but stop keeping bytes.
      if (size <= maxBody) chunks.push(c);
    });
    req.on('end', () => {
      if (size <= maxBody) d.raw = Buffer.concat(chunks, size);
      handleSafely(d, res);
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
