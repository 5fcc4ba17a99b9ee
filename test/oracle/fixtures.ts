/** Small record factories so each oracle test reads as the history it feeds. */
import { ERROR_CODES, type CanonicalPayment, type CanonicalRefund, type InvariantResult } from '../../src/spec/index.ts';
import { HISTORY_VERSION, type EndRecord, type ErrorInfo, type ExchangeRecord, type FaultRecord, type HistoryRecord, type RunRecord, type Sent, type WebhookRecord } from '../../src/history/index.ts';
import { judge } from '../../src/oracle/index.ts';
import { pageSettings } from '../../src/oracle/lib/paged-column.ts';
import { spillSettings } from '../../src/oracle/lib/spill.ts';
import { hashSettings } from '../../src/oracle/lib/hash-slots.ts';

/** Epoch ms of run time 0. */
export const RUN_WALL = 1_700_000_000_000;
export const K = {
  test: 'm1/test/…aaaa',
  test2: 'm1/test/…bbbb',
  live: 'm1/live/…cccc',
  other: 'm2/test/…dddd',
} as const;

let seq = 0;
export function resetSeq(): void {
  seq = 0;
}

export function runRec(o: Partial<RunRecord> = {}): RunRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: 'run-test',
    wall: RUN_WALL,
    target: { url: 'http://127.0.0.1:1', embedded: true, presentation: 'B' },
    rateLimit: { limit: 5, windowMs: 60_000 },
    keys: [
      { label: K.test, merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: 'aaaa' },
      { label: K.test2, merchant: 'm1', mode: 'test', prefix: 'svc_test_sk_', last4: 'bbbb' },
      { label: K.live, merchant: 'm1', mode: 'live', prefix: 'svc_live_sk_', last4: 'cccc' },
      { label: K.other, merchant: 'm2', mode: 'test', prefix: 'svc_test_sk_', last4: 'dddd' },
    ],
    scenarios: [],
    seed: 1,
    timeScale: 1,
    settleBoundMs: 5_000,
    webhooks: { receiverUrl: 'http://127.0.0.1:2/hook', wired: true, failShare: 0, ackTimeoutMs: 10_000 },
    cardOutcomes: ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge'],
    ...o,
  };
}

export function pay(o: Partial<CanonicalPayment> = {}): CanonicalPayment {
  const status = o.status ?? 'pending';
  return {
    id: 'pay_00000000-0000-4000-8000-000000000001',
    presentation: 'B',
    status,
    wireStatus: status,
    amount: 1000,
    currency: 'EUR',
    livemode: false,
    created: 1_700_000_000,
    hosted: false,
    nextAction: null,
    amountRefunded: 0,
    amountRefundable: null,
    card: null,
    failureCode: null,
    description: null,
    metadata: null,
    merchantReference: null,
    redirectUrl: null,
    succeededAt: status === 'succeeded' ? 1_700_000_001 : null,
    failedAt: status === 'failed' ? 1_700_000_001 : null,
    refundedAt: null,
    refunds: [],
    ...o,
  };
}

export function refundObj(o: Partial<CanonicalRefund> = {}): CanonicalRefund {
  return { id: 're_1', paymentId: 'pay_00000000-0000-4000-8000-000000000001', amount: 100, status: 'pending', created: 1_700_000_001, ...o };
}

export function err(code: keyof typeof ERROR_CODES | string, o: Partial<ErrorInfo> = {}): ErrorInfo {
  const info = ERROR_CODES[code];
  return {
    type: info?.type ?? 'invalid_request_error',
    code,
    message: `error ${code}`,
    param: null,
    decline_code: null,
    doc_url: null,
    request_id: `req_${code}_${seq + 1}`,
    missing: [],
    ...o,
  };
}

/** Rate headers: reset is Unix seconds. */
export function rate(reset: number, remaining: number, limit = 5): ExchangeRecord['rate'] {
  return { limit, remaining, reset };
}

type ExInput = Partial<Omit<ExchangeRecord, 'sent'>> & { sent?: Partial<Sent>; t?: number; dur?: number };

/** An exchange at run time `t` (ms) lasting `dur` ms (default 10). */
export function ex(o: ExInput = {}): ExchangeRecord {
  const { t, dur, sent, ...rest } = o;
  const tStart = rest.tStart ?? t ?? 0;
  const tEnd = rest.tEnd ?? tStart + (dur ?? 10);
  const status = rest.status ?? 200;
  return {
    v: HISTORY_VERSION,
    kind: 'exchange',
    seq: rest.seq ?? ++seq,
    scenario: 'test',
    op: 'retrieve',
    key: K.test,
    tIntended: tStart,
    wall: RUN_WALL + tStart,
    contentType: status === 0 ? null : 'application/json',
    rate: null,
    retryAfter: null,
    json: status !== 0,
    error: null,
    payment: null,
    refund: null,
    list: null,
    failure: status === 0 ? 'timeout' : null,
    ...rest,
    sent: { ...(sent ?? {}) },
    tStart,
    tEnd,
    status,
  };
}

/** POST /v1/payments answered 201 with the payment (or the given status and error). */
export function create(o: ExInput & { id?: string; p?: Partial<CanonicalPayment> } = {}): ExchangeRecord {
  const { id, p, ...rest } = o;
  const status = rest.status ?? 201;
  const payment = status >= 200 && status < 300 ? pay({ ...(id ? { id } : {}), ...p }) : null;
  return ex({
    op: 'create',
    idemKey: `idem-${seq + 1}`,
    bodyDigest: 'd1',
    payment,
    ...rest,
    sent: { amount: payment?.amount ?? 1000, currency: 'EUR', ...(rest.sent ?? {}) },
    status,
  });
}

/** GET /v1/payments/{id}. */
export function retrieve(id: string, o: ExInput & { p?: Partial<CanonicalPayment> } = {}): ExchangeRecord {
  const { p, ...rest } = o;
  const status = rest.status ?? 200;
  return ex({ op: 'retrieve', payment: status === 200 ? pay({ id, ...p }) : null, ...rest, sent: { paymentId: id, ...(rest.sent ?? {}) }, status });
}

export function list(ids: string[], o: ExInput & { statuses?: string[]; created?: number[]; livemodes?: boolean[]; hasMore?: boolean; descriptions?: (string | null)[] } = {}): ExchangeRecord {
  const { statuses, created, livemodes, hasMore, descriptions, ...rest } = o;
  return ex({
    op: 'list',
    list: {
      object: 'list',
      ids,
      hasMore: hasMore ?? false,
      url: '/v1/payments',
      statuses: statuses ?? ids.map(() => 'pending'),
      created: created ?? ids.map(() => 1_700_000_000),
      livemodes: livemodes ?? ids.map(() => false),
      ...(descriptions ? { descriptions } : {}),
    },
    ...rest,
    sent: { list: {}, ...(rest.sent ?? {}) },
  });
}

export function refundReq(paymentId: string, o: ExInput & { r?: Partial<CanonicalRefund> } = {}): ExchangeRecord {
  const { r, ...rest } = o;
  const status = rest.status ?? 201;
  return ex({
    op: 'refund',
    idemKey: `idem-${seq + 1}`,
    bodyDigest: 'r1',
    refund: status >= 200 && status < 300 ? refundObj({ paymentId, ...r }) : null,
    ...rest,
    sent: { paymentId, ...(rest.sent ?? {}) },
    status,
  });
}

export function webhook(o: Partial<WebhookRecord> = {}): WebhookRecord {
  const tReceived = o.tReceived ?? 1000;
  return {
    v: HISTORY_VERSION,
    kind: 'webhook',
    seq: o.seq ?? ++seq,
    tReceived,
    wall: RUN_WALL + tReceived,
    path: '/hook',
    signature: 'ok',
    t: Math.floor((RUN_WALL + tReceived) / 1000),
    eventId: 'evt_1',
    type: 'payment.succeeded',
    createdAt: 1_700_000_001,
    livemode: false,
    envelopeProblems: [],
    payment: pay({ status: 'succeeded' }),
    refund: null,
    answered: 200,
    duplicate: false,
    ...o,
  };
}

export function fault(o: Partial<FaultRecord> = {}): FaultRecord {
  return {
    v: HISTORY_VERSION,
    kind: 'fault',
    proxy: 'upstream',
    link: 'upstream',
    toxic: { name: 'down', type: 'down', stream: 'downstream', toxicity: 1, attributes: {} },
    tStart: 1000,
    tEnd: 2000,
    wallStart: RUN_WALL + 1000,
    ...o,
  };
}

export function endRec(o: Partial<EndRecord> = {}): EndRecord {
  return { v: HISTORY_VERSION, kind: 'end', tEnd: 120_000, wall: RUN_WALL + 120_000, complete: true, reason: 'done', requests: 0, dropped: 0, ...o };
}

/** Judges one invariant over the records (a run record is prepended unless one is given). */
export async function judgeOne(id: string, records: HistoryRecord[], run: Partial<RunRecord> = {}): Promise<InvariantResult> {
  const recs = records[0]?.kind === 'run' ? records : [runRec(run), ...records];
  const { invariants } = await judge(recs, { only: [id] });
  return invariants[0];
}

/** What `make` builds (synchronously) with pages of `rows` rows, one resident and one reloaded: nearly every read of it goes to the scratch file. */
export function withTinyPages<T>(make: () => T, rows = 2): T {
  const saved = { ...pageSettings };
  Object.assign(pageSettings, { rows, resident: 1, reloaded: 1 });
  try {
    return make();
  } finally {
    Object.assign(pageSettings, saved);
  }
}

/**
 * `fn` run with every paged column made meanwhile on pages of two rows, one kept in memory and one
 * read back (lib/paged-column.ts), every index from ids to rows keeping two entries in memory and
 * the rest in runs on disk (lib/hash-slots.ts), and every spilled table in chunks of `chunkRows`
 * when given (lib/spill.ts): nearly every read of what it makes goes through the scratch files.
 */
export async function withPagesOnDisk<T>(fn: () => T | Promise<T>, chunkRows?: number): Promise<T> {
  const pages = { ...pageSettings };
  const index = { ...hashSettings };
  const chunks = spillSettings.chunkRows;
  Object.assign(pageSettings, { rows: 2, resident: 1, reloaded: 1 });
  Object.assign(hashSettings, { memoryEntries: 2, runPageEntries: 2 });
  if (chunkRows !== undefined) spillSettings.chunkRows = chunkRows;
  try {
    return await fn();
  } finally {
    Object.assign(pageSettings, pages);
    Object.assign(hashSettings, index);
    spillSettings.chunkRows = chunks;
  }
}
