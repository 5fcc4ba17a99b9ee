/**
 * The `burst` executor: N requests as fast as possible, aligned to a chosen
 * instant (e.g. just before a rate-window boundary). Raw request rate is the
 * point here, so this is autocannon's job; every response it gets is recorded
 * through the same record builder as the undici client (status, rate headers,
 * Retry-After, error object, normalized body).
 */
import autocannon from 'autocannon';
import { API_PATHS, type BurstSpec, type Operation } from '../spec/index.ts';
import { type Sent } from '../history/index.ts';
import { createHash } from 'node:crypto';
import { abortableSleep, classifyFailure, RunStoppedError, roundUs, type ClientFactory, type PickedHeaders } from '../client/index.ts';
import { failureRecord, responseRecord, type ExchangeMeta } from '../history/index.ts';

export interface BurstResult {
  sent: number;
  statuses: Record<number, number>;
}

/** The operation a burst's method and path perform. */
export function burstOperation(method: string, path: string): Operation {
  const p = path.split('?')[0];
  if (method === 'POST') {
    if (p === API_PATHS.payments) return 'create';
    if (p === API_PATHS.hosted) return 'create_hpp';
    if (p === API_PATHS.refunds) return 'refund_create';
    if (/^\/v1\/payments\/[^/]+\/refund$/.test(p)) return 'refund';
  } else if (method === 'GET') {
    if (p === API_PATHS.payments) return 'list';
    if (/^\/v1\/payments\/[^/]+$/.test(p)) return 'retrieve';
  }
  return 'raw';
}

function pickFromObject(h: Record<string, unknown>): PickedHeaders {
  const p: PickedHeaders = { contentType: null, rateLimit: null, rateRemaining: null, rateReset: null, retryAfter: null, location: null, date: null };
  for (const k in h) {
    const raw = h[k];
    const v = Array.isArray(raw) ? raw.join(', ') : raw === undefined ? null : String(raw);
    switch (k.toLowerCase()) {
      case 'content-type':
        p.contentType = v;
        break;
      case 'x-ratelimit-limit':
        p.rateLimit = v;
        break;
      case 'x-ratelimit-remaining':
        p.rateRemaining = v;
        break;
      case 'x-ratelimit-reset':
        p.rateReset = v;
        break;
      case 'retry-after':
        p.retryAfter = v;
        break;
      case 'location':
        p.location = v;
        break;
      case 'date':
        p.date = v;
        break;
    }
  }
  return p;
}

function sentOf(spec: BurstSpec, path: string): Sent {
  const sent: Sent = { method: spec.method, path };
  const b = spec.body as Record<string, unknown> | undefined;
  if (b && typeof b === 'object') {
    if ('amount' in b) sent.amount = b.amount;
    if ('currency' in b) sent.currency = b.currency;
    if ('description' in b) sent.description = b.description;
  }
  return sent;
}

export async function runBurst(factory: ClientFactory, spec: BurstSpec, timeoutMs: number): Promise<BurstResult> {
  const { clock, signal } = factory;
  // The run's request budget applies to bursts too: send only what it admits.
  if (signal?.aborted) throw new RunStoppedError(String(signal.reason ?? 'aborted'));
  let amount = 0;
  while (amount < spec.amount && (!factory.gate || factory.gate.admit())) amount++;
  if (amount === 0) throw new RunStoppedError(factory.gate?.stopReason ?? 'stopped');
  // Admitting the budget's last requests stops the run; those admitted still go out. Any other stop cancels the burst.
  const stoppedOtherwise = () => signal?.aborted === true && signal.reason !== 'cap:max-requests';

  const path = factory.basePath + spec.path;
  const op = burstOperation(spec.method, spec.path);
  const body = spec.body === undefined ? undefined : typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body);
  const bodyDigest = body === undefined ? undefined : createHash('sha256').update(body).digest('hex').slice(0, 16);
  const baseHeaders: Record<string, string> = { authorization: factory.authorizationFor(spec.key), accept: 'application/json' };
  if (body !== undefined) baseHeaders['content-type'] = 'application/json';
  const idempotent = spec.method === 'POST';
  const scenario = factory.scenario;
  const statuses: Record<number, number> = {};
  let recorded = 0;

  const record = (meta: ExchangeMeta, status: number, bodyText: string, headers: Record<string, unknown>) => {
    const tEnd = roundUs(clock.now());
    const parsed = responseRecord(meta, tEnd, { status, picked: pickFromObject(headers), body: bodyText }, factory.scanner);
    factory.sink(parsed.record);
    statuses[status] = (statuses[status] ?? 0) + 1;
    recorded++;
  };

  if (spec.startAtWall !== undefined) await abortableSleep(spec.startAtWall - clock.wall(), signal?.aborted ? undefined : signal);
  if (stoppedOtherwise()) throw new RunStoppedError(String(signal!.reason ?? 'aborted'));

  interface ConnContext {
    meta?: ExchangeMeta;
  }
  // Requests written and not yet answered, oldest first. autocannon reports a request that got no
  // answer (time-out, connection error) without saying which, after the connection has already
  // built its next request: the oldest pending one is the one whose time-out fires first.
  const pending = new Set<ExchangeMeta>();
  const burstStart = { tStart: roundUs(clock.now()), wall: roundUs(clock.wall()) };
  const newMeta = (idemKey: string | undefined): ExchangeMeta => {
    const tStart = roundUs(clock.now());
    const meta: ExchangeMeta = { scenario, op, key: spec.key.label, sent: sentOf(spec, spec.path), tIntended: tStart, tStart, wall: roundUs(clock.wall()) };
    if (spec.group !== undefined) meta.group = spec.group;
    if (idemKey !== undefined) meta.idemKey = idemKey;
    if (bodyDigest !== undefined) meta.bodyDigest = bodyDigest;
    return meta;
  };

  await new Promise<void>((resolve, reject) => {
    const instance = autocannon(
      {
        url: factory.origin,
        connections: Math.max(1, Math.min(spec.connections, amount)),
        amount,
        pipelining: 1,
        timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
        requests: [
          {
            method: spec.method,
            path,
            body,
            // Called as each request is built, just before it is written: a fresh key and its start time.
            setupRequest: (req: autocannon.Request, context: object) => {
              const idemKey = idempotent ? factory.newIdempotencyKey() : undefined;
              const meta = newMeta(idemKey);
              (context as ConnContext).meta = meta;
              pending.add(meta);
              return { ...req, headers: idemKey ? { ...baseHeaders, 'idempotency-key': idemKey } : baseHeaders };
            },
            onResponse: (status: number, resBody: string, context: object, headers?: Record<string, unknown>) => {
              const meta = (context as ConnContext).meta ?? newMeta(undefined);
              pending.delete(meta);
              record(meta, status, resBody ?? '', headers ?? {});
            },
          },
        ],
      },
      (err: Error | null) => (err ? reject(err) : resolve()),
    );
    instance.on('reqError', (err: unknown) => {
      // Sent when the oldest pending request was (or, with none pending, when the burst began), not
      // when the error surfaced: a request the server counted must not look sent after later answers.
      // Which request failed is not known, so it names no Idempotency-Key.
      const oldest = pending.values().next().value as ExchangeMeta | undefined;
      if (oldest) pending.delete(oldest);
      const meta = newMeta(undefined);
      const from = oldest ?? { tStart: burstStart.tStart, tIntended: burstStart.tStart, wall: burstStart.wall };
      meta.tStart = from.tStart;
      meta.tIntended = from.tIntended;
      meta.wall = from.wall;
      factory.sink(failureRecord(meta, roundUs(clock.now()), classifyFailure(err)));
      recorded++;
    });
    const onAbort = () => instance.stop();
    if (!signal?.aborted) signal?.addEventListener('abort', onAbort, { once: true });
    instance.on('done', () => signal?.removeEventListener('abort', onAbort));
  });
  return { sent: recorded, statuses };
}
