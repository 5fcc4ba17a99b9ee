/**
 * The `burst` executor: N requests as fast as possible, aligned to a chosen
 * instant (e.g. just before a rate-window boundary). Raw request rate is the
 * point here, so this is autocannon's job; every response it gets is recorded
 * through the same record builder as the undici client (status, rate headers,
 * Retry-After, error object, normalized body), its body decoded first when it
 * came content-coded (client/wire.ts).
 *
 * Servers close connections under a burst (`Connection: close` on every answer,
 * nginx's keepalive_requests, an idle close racing the next request). autocannon
 * on its own writes the next request on such a connection, where it is never
 * read, and counts it towards `amount`. Here (a) a connection whose answer said
 * it closes is replaced before the next request is written; (b) a request still
 * unanswered when the server closes its connection (or when the burst ends) is
 * recorded as paystorm's own loss (failure 'aborted', not judged) and made up in
 * a further round, a bounded number of times within the request time-out, so the
 * server is sent `amount` requests in all.
 */
import autocannon from 'autocannon';
import { API_PATHS, type BurstSpec, type Operation } from '../spec/index.ts';
import { type Sent } from '../history/index.ts';
import { createHash } from 'node:crypto';
import { abortableSleep, classifyFailure, decodeBody, RunStoppedError, roundUs, WIRE_HEADER_OBJECT, type ClientFactory, type FailureKind, type PickedHeaders } from '../client/index.ts';
import { failureRecord, responseRecord, type ExchangeMeta } from '../history/index.ts';

export interface BurstResult {
  /** Requests answered or failed (recorded as such); requests paystorm lost itself are not among them. */
  sent: number;
  statuses: Record<number, number>;
  /**
   * Requests written on a connection the server closed without reading them (recorded with failure
   * 'aborted'); each was made up by a further request while the burst's bounds allowed. Present when above 0.
   */
  lost?: number;
  /** Connections the server closed during the burst (with `Connection: close` or silently). Present when above 0. */
  serverClosed?: number;
  /** Lost requests that could not be made up within the burst's bounds. Present when above 0. */
  unsent?: number;
}

/** Rounds of a burst: the first, then at most this many minus one to make up lost requests. */
const MAX_ROUNDS = 8;

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

/** The recorded headers of autocannon's header object; `coding` gets its Content-Encoding (null when absent). */
function pickFromObject(h: Record<string, unknown>, coding: { value: string | null }): PickedHeaders {
  const p: PickedHeaders = { contentType: null, rateLimit: null, rateRemaining: null, rateReset: null, retryAfter: null, location: null, date: null };
  coding.value = null;
  for (const k in h) {
    const raw = h[k];
    const v = Array.isArray(raw) ? raw.join(', ') : raw === undefined ? null : String(raw);
    switch (k.toLowerCase()) {
      case 'content-encoding':
        coding.value = v;
        break;
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

/** What the burst reaches of an autocannon client (lib/httpClient.js, autocannon 8); each part is used only when present. */
interface AcClient {
  destroyed?: boolean;
  reqsMade?: number;
  responseMax?: number;
  conn?: { prependListener?: (ev: 'end', fn: () => void) => unknown };
  requestIterator?: { context?: unknown };
  pipelinedRequests?: { peek?: () => { body: unknown } | undefined; addBody?: (b: Buffer) => void; clear?: () => void };
  _doRequest?: () => void;
  _connect?: () => void;
  _resetConnection?: () => void;
  on(ev: 'headers', fn: (info: { shouldKeepAlive?: boolean }) => void): unknown;
  on(ev: 'connError', fn: (err: unknown) => void): unknown;
}

/** Per request (autocannon's context object, fresh for each request it builds). */
interface ConnContext {
  meta?: ExchangeMeta;
}

export async function runBurst(factory: ClientFactory, spec: BurstSpec, timeoutMs: number, log?: (message: string) => void): Promise<BurstResult> {
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
  const baseHeaders: Record<string, string> = { authorization: factory.authorizationFor(spec.key), accept: 'application/json', ...WIRE_HEADER_OBJECT };
  if (body !== undefined) baseHeaders['content-type'] = 'application/json';
  const idempotent = spec.method === 'POST';
  const scenario = factory.scenario;
  const statuses: Record<number, number> = {};
  let recorded = 0;
  let lost = 0;
  let closedAnnounced = 0;
  let closedSilently = 0;
  const coding = { value: null as string | null };

  const record = (meta: ExchangeMeta, status: number, resBody: unknown, headers: Record<string, unknown>) => {
    const tEnd = roundUs(clock.now());
    const picked = pickFromObject(headers, coding);
    // The body as bytes (see setupClient), decoded by its Content-Encoding before it becomes text.
    const bytes = typeof resBody === 'string' ? null : Array.isArray(resBody) ? (resBody.length === 1 ? (resBody[0] as Buffer) : Buffer.concat(resBody as Buffer[])) : null;
    const text = bytes === null ? (typeof resBody === 'string' ? resBody : '') : decodeBody(bytes, coding.value);
    const parsed = responseRecord(meta, tEnd, { status, picked, body: text }, factory.scanner);
    factory.sink(parsed.record);
    statuses[status] = (statuses[status] ?? 0) + 1;
    recorded++;
  };
  const recordFailure = (meta: ExchangeMeta, failure: FailureKind) => {
    factory.sink(failureRecord(meta, roundUs(clock.now()), failure));
    if (failure === 'aborted') lost++;
    else recorded++;
  };

  if (spec.startAtWall !== undefined) await abortableSleep(spec.startAtWall - clock.wall(), signal?.aborted ? undefined : signal);
  if (stoppedOtherwise()) throw new RunStoppedError(String(signal!.reason ?? 'aborted'));

  // Requests written and not yet answered, oldest first. autocannon reports a request that got no
  // answer (time-out, connection error) without saying which, after the connection has already
  // built its next request: the oldest pending one is the one whose time-out fires first.
  const pending = new Set<ExchangeMeta>();
  const burstStart = { tStart: roundUs(clock.now()), wall: roundUs(clock.wall()) };
  const deadline = burstStart.tStart + timeoutMs;
  const newMeta = (idemKey: string | undefined): ExchangeMeta => {
    const tStart = roundUs(clock.now());
    const meta: ExchangeMeta = { scenario, op, key: spec.key.label, sent: sentOf(spec, spec.path), tIntended: tStart, tStart, wall: roundUs(clock.wall()) };
    if (spec.group !== undefined) meta.group = spec.group;
    if (idemKey !== undefined) meta.idemKey = idemKey;
    if (bodyDigest !== undefined) meta.bodyDigest = bodyDigest;
    return meta;
  };

  /** Connection errors already recorded against their own request: the run-wide reqError they raise next is skipped. */
  let connErrorsTaken = 0;

  /** Per autocannon client (one connection at a time): keeps bodies as bytes and handles connections the server closes. */
  const setupClient = (c: AcClient) => {
    // A connection error fails this connection's own request (autocannon then raises a run-wide
    // reqError that names no request). Registered in the client's constructor, so before autocannon's own listener.
    c.on('connError', (err: unknown) => {
      // Its reqError is skipped even when the request was already recorded (a silent close seen first).
      connErrorsTaken++;
      const ctx = c.requestIterator?.context as ConnContext | undefined;
      const meta = ctx?.meta;
      if (meta === undefined || !pending.has(meta)) return;
      pending.delete(meta);
      ctx!.meta = undefined;
      recordFailure(meta, classifyFailure(err));
    });
    const q = c.pipelinedRequests;
    if (q && typeof q.peek === 'function') {
      const peek = q.peek.bind(q);
      // autocannon appends each chunk to a string (UTF-8 per chunk): keep the chunks, decoded once complete.
      q.addBody = (data: Buffer) => {
        const r = peek();
        if (r) {
          if (Array.isArray(r.body)) r.body.push(data);
          else r.body = [data];
        }
      };
    }
    // The answer being read says the server closes the connection after it (RFC 9112 §9.6).
    let closing = false;
    // Response headers seen and the response not complete yet.
    let answering = false;
    c.on('headers', (info) => {
      answering = true;
      if (info?.shouldKeepAlive === false) {
        closing = true;
        closedAnnounced++;
      }
    });
    const doRequest = c._doRequest;
    const resetConnection = c._resetConnection;
    if (typeof doRequest === 'function' && typeof resetConnection === 'function') {
      // Do not write the next request on a connection the server is closing: open a new one first.
      c._doRequest = function (this: AcClient) {
        answering = false;
        if (closing) {
          closing = false;
          const more = !this.responseMax || (this.reqsMade ?? 0) < this.responseMax;
          if (more && !this.destroyed) return resetConnection.call(this);
        }
        return doRequest.call(this);
      };
    }
    const connect = c._connect;
    if (typeof connect === 'function') {
      c._connect = function (this: AcClient) {
        closing = false;
        answering = false;
        connect.call(this);
        // Runs before autocannon's own 'end' handler (which reconnects and builds the next request).
        this.conn?.prependListener?.('end', () => {
          if (this.destroyed) return;
          closedSilently++;
          const ctx = this.requestIterator?.context as ConnContext | undefined;
          const meta = ctx?.meta;
          if (meta !== undefined && pending.has(meta)) {
            pending.delete(meta);
            ctx!.meta = undefined;
            // Never read by the server (written on a connection it was closing): paystorm's loss, made up later.
            // Closed in the middle of its answer: the service's doing.
            recordFailure(meta, answering ? 'reset' : 'aborted');
          }
          answering = false;
          // What autocannon still queues for the closed connection will never be answered.
          this.pipelinedRequests?.clear?.();
        });
      };
    }
  };

  /** One autocannon run of `n` requests; resolves when it is done. */
  const round = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        {
          url: factory.origin,
          connections: Math.max(1, Math.min(spec.connections, n)),
          amount: n,
          pipelining: 1,
          timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
          // How often autocannon looks whether its clients are done (its default, 1 s, is added to every burst).
          sampleInt: 50,
          setupClient: setupClient as unknown as (client: autocannon.Client) => void,
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
              onResponse: (status: number, resBody: unknown, context: object, headers?: Record<string, unknown>) => {
                const ctx = context as ConnContext;
                const meta = ctx.meta ?? newMeta(undefined);
                ctx.meta = undefined;
                pending.delete(meta);
                record(meta, status, resBody ?? '', headers ?? {});
              },
            } as unknown as autocannon.Request,
          ],
        },
        (err: Error | null) => (err ? reject(err) : resolve()),
      );
      instance.on('reqError', (err: unknown) => {
        if (connErrorsTaken > 0) {
          connErrorsTaken--;
          return;
        }
        // A time-out. Sent when the oldest pending request was (or, with none pending, when the burst began), not
        // when the error surfaced: a request the server counted must not look sent after later answers.
        // Which request failed is not known, so it names no Idempotency-Key.
        const oldest = pending.values().next().value as ExchangeMeta | undefined;
        if (oldest) pending.delete(oldest);
        const meta = newMeta(undefined);
        const from = oldest ?? { tStart: burstStart.tStart, tIntended: burstStart.tStart, wall: burstStart.wall };
        meta.tStart = from.tStart;
        meta.tIntended = from.tIntended;
        meta.wall = from.wall;
        recordFailure(meta, classifyFailure(err));
      });
      const onAbort = () => instance.stop();
      if (!signal?.aborted) signal?.addEventListener('abort', onAbort, { once: true });
      instance.on('done', () => signal?.removeEventListener('abort', onAbort));
    });

  // The first round sends `amount`; each further round makes up the requests the one before lost,
  // while it got anything through, within MAX_ROUNDS rounds and the request time-out.
  let toSend = amount;
  for (let rounds = 1; ; rounds++) {
    const before = { recorded, lost };
    await round(toSend);
    // Still pending when its round ended (stopped, or no close seen): never answered, paystorm's own.
    for (const meta of pending) recordFailure(meta, 'aborted');
    pending.clear();
    toSend = lost - before.lost;
    if (toSend === 0 || recorded === before.recorded || rounds >= MAX_ROUNDS || clock.now() >= deadline || stoppedOtherwise()) break;
  }

  const result: BurstResult = { sent: recorded, statuses };
  const serverClosed = closedAnnounced + closedSilently;
  if (lost > 0) result.lost = lost;
  if (serverClosed > 0) result.serverClosed = serverClosed;
  if (toSend > 0) result.unsent = toSend;
  if (lost > 0) {
    log?.(
      `burst ${spec.method} ${spec.path}: ${lost} request(s) lost, written on connections the server closed (${serverClosed} closed, ${closedAnnounced} with Connection: close); recorded as aborted` +
        (toSend > 0 ? `; ${toSend} could not be made up (${recorded} of ${amount} sent)` : `, made up: ${recorded} of ${amount} sent`),
    );
  }
  return result;
}
