/**
 * The benchmarks' synthetic history: creates, retrieves, lists, refunds, replays, unknown-id
 * probes and webhooks over many payments and four keys, with consistent rate headers, written
 * by the run's own writer. Seeded, so every call writes the same history. The set of payments
 * still being polled stays near a constant size however long the history is (each payment
 * leaves it once a poll shows it settled), which is what the memory benchmark relies on.
 * The history is consistent with the spec: any invariant that fails on it is a false fail.
 */
import { HistoryWriter } from '../../src/history/index.ts';
import { type CanonicalPayment } from '../../src/spec/index.ts';
import { HISTORY_VERSION, type ExchangeRecord, type HistoryRecord, type RunRecord } from '../../src/history/index.ts';

const WALL = Date.UTC(2030, 0, 1);
const WINDOW = 60_000;
const LIMIT = 100_000;
const KEYS = ['m1/test/…0001', 'm1/test/…0002', 'm2/test/…0003', 'm2/test/…0004'];

/** The generator's seed: every call writes the same history for the same size. */
export const SYNTHETIC_SEED = 42;

/** A seeded PRNG (mulberry32) so every run writes the same history. */
let seed = SYNTHETIC_SEED;
function rnd(): number {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0').slice(-w);
const uuid = (n: number) => `${hex(n, 8)}-0000-4000-8000-${hex(n * 7919, 12)}`;
/** Times to the microsecond, as the client writes them (src/client/api-client.ts roundUs). */
const us = (ms: number) => Math.round(ms * 1000) / 1000;

interface Pay {
  id: string;
  key: string;
  amount: number;
  createdT: number;
  settleAt: number;
  outcome: 'succeeded' | 'failed';
  refunded: boolean;
  notified: boolean;
  idemKey: string;
  digest: string;
  refunds: { id: string; amount: number; t: number }[];
}

function payment(p: Pay, t: number): CanonicalPayment {
  const settled = t >= p.settleAt;
  const status = settled ? p.outcome : 'pending';
  const refunded = p.refunds.filter((r) => r.t < t).reduce((n, r) => n + r.amount, 0);
  return {
    id: p.id,
    presentation: 'B',
    status,
    wireStatus: status,
    amount: p.amount,
    currency: 'EUR',
    livemode: false,
    created: Math.floor((WALL + p.createdT) / 1000),
    hosted: false,
    nextAction: null,
    amountRefunded: refunded,
    amountRefundable: null,
    card: status === 'succeeded' ? { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2034, country: 'DE' } : null,
    failureCode: status === 'failed' ? 'generic_decline' : null,
    description: 'bench order',
    metadata: { order: p.id.slice(4, 12) },
    merchantReference: null,
    redirectUrl: null,
    succeededAt: status === 'succeeded' ? Math.floor((WALL + p.settleAt) / 1000) : null,
    failedAt: status === 'failed' ? Math.floor((WALL + p.settleAt) / 1000) : null,
    refundedAt: refunded >= p.amount ? Math.floor((WALL + p.settleAt) / 1000) : null,
    refunds: p.refunds.filter((r) => r.t < t).map((r) => ({ id: r.id, paymentId: p.id, amount: r.amount, status: 'succeeded' as const, created: Math.floor((WALL + r.t) / 1000) })),
  };
}

/** A small binary min-heap of scheduled deliveries. */
class Due<T extends { at: number }> {
  private a: T[] = [];
  push(x: T): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p].at <= a[i].at) break;
      [a[p], a[i]] = [a[i], a[p]];
      i = p;
    }
  }
  peek(): T | undefined {
    return this.a[0];
  }
  pop(): T | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l].at < a[m].at) m = l;
        if (r < a.length && a[r].at < a[m].at) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

/** Writes `total` records to `file` (encoded as its name says); returns what it wrote. */
export async function writeSyntheticHistory(file: string, total: number): Promise<{ records: number; exchanges: number; payments: number }> {
  // The run's own writer, so the file is encoded as its name says (src/history/format.ts).
  const out = new HistoryWriter({ path: file });
  const counts = { records: 0, exchanges: 0, payments: 0 };
  for (const r of syntheticHistory(total, counts)) {
    out.write(r);
    if (out.needsDrain) await out.drained();
  }
  await out.close();
  return counts;
}

/**
 * The synthetic history's `total` records, one at a time (the same records on every call);
 * `counts` counts them as they go (records, exchanges, payments created).
 */
export function* syntheticHistory(total: number, counts: { records: number; exchanges: number; payments: number } = { records: 0, exchanges: 0, payments: 0 }): Generator<HistoryRecord> {
  seed = SYNTHETIC_SEED; // every call (and every encoding) gets the same history
  let n = 0;
  let exchanges = 0;
  function* emit(r: HistoryRecord): Generator<HistoryRecord> {
    n++;
    if (r.kind === 'exchange') exchanges++;
    counts.records = n;
    counts.exchanges = exchanges;
    yield r;
  }
  const run: RunRecord = {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: 'bench-1m',
    wall: WALL,
    target: { url: 'http://127.0.0.1:0', embedded: true, presentation: 'B' },
    rateLimit: { limit: LIMIT, windowMs: WINDOW },
    keys: KEYS.map((label) => ({ label, merchant: label.split('/')[0], mode: 'test' as const, prefix: 'svc_test_sk_', last4: label.slice(-4) })),
    scenarios: [{ name: 'bench', rules: [] }],
    seed: SYNTHETIC_SEED,
    timeScale: 1,
    settleBoundMs: 10_000,
    webhooks: { receiverUrl: 'http://127.0.0.1:0/hook', wired: true, failShare: 0, ackTimeoutMs: 10_000 },
    cardOutcomes: ['succeeds'],
  };
  yield* emit(run);
  const windows = new Map<string, { start: number; reset: number; used: number }>();
  const rateFor = (key: string, t: number) => {
    let w = windows.get(key);
    if (!w || t >= w.start + WINDOW) windows.set(key, (w = { start: t, reset: Math.ceil((WALL + t + WINDOW) / 1000), used: 0 }));
    w.used++;
    return { limit: LIMIT, remaining: LIMIT - w.used, reset: w.reset };
  };
  const byKey = new Map<string, Pay[]>(KEYS.map((k) => [k, []]));
  const active: Pay[] = [];
  const made_ = new Map<string, number>(KEYS.map((k) => [k, 0]));
  /** Every payment's event is delivered shortly after it settles, every refund's after it succeeds. */
  const due = new Due<{ at: number; p: Pay; refund?: { id: string; amount: number } }>();
  const settled: Pay[] = [];
  let seq = 0;
  let t = 0;
  let made = 0;
  const base = (key: string, op: ExchangeRecord['op'], dur: number, status: number): ExchangeRecord => ({
    v: HISTORY_VERSION,
    kind: 'exchange',
    seq: ++seq,
    scenario: 'bench',
    op,
    key,
    sent: {},
    tIntended: us(t),
    tStart: us(t),
    tEnd: us(t + dur),
    wall: us(WALL + t),
    status,
    contentType: 'application/json',
    rate: rateFor(key, t),
    retryAfter: null,
    json: true,
    error: null,
    payment: null,
    refund: null,
    list: null,
    failure: null,
  });
  while (n < total - 1) {
    t += 1.2 * rnd() + 0.6;
    const d = due.peek();
    if (d && d.at <= t) {
      due.pop();
      const p = d.p;
      yield* emit({
        v: HISTORY_VERSION,
        kind: 'webhook',
        seq: ++seq,
        tReceived: us(t),
        wall: us(WALL + t),
        path: '/hook',
        signature: 'ok',
        t: Math.floor((WALL + t) / 1000),
        eventId: `evt_${uuid(seq)}`,
        type: d.refund ? 'refund.succeeded' : `payment.${p.outcome}`,
        createdAt: Math.floor((WALL + d.at) / 1000),
        livemode: false,
        envelopeProblems: [],
        payment: d.refund ? null : payment(p, t),
        refund: d.refund ? { id: d.refund.id, paymentId: p.id, amount: d.refund.amount, status: 'succeeded', created: Math.floor((WALL + d.at) / 1000) } : null,
        answered: 200,
        duplicate: false,
      });
      continue;
    }
    const dur = 5 + 20 * rnd();
    const r = rnd();
    if (r < 0.22 || active.length < 50) {
      const key = pick(KEYS);
      made++;
      counts.payments = made;
      const p: Pay = { id: `pay_${uuid(made)}`, key, amount: 500 + Math.floor(rnd() * 10_000), createdT: t, settleAt: t + dur + 500 + 3000 * rnd(), outcome: rnd() < 0.9 ? 'succeeded' : 'failed', refunded: false, notified: false, idemKey: `idem-${made}`, digest: hex(made * 31, 16), refunds: [] };
      const x = base(key, 'create', dur, 201);
      x.idemKey = p.idemKey;
      x.bodyDigest = p.digest;
      x.sent = { amount: p.amount, currency: 'EUR', description: 'bench order', metadata: { order: p.id.slice(4, 12) }, cardLast4: '4242', ...(p.outcome === 'succeeded' ? { cardOutcome: 'succeeds' as const } : {}) };
      made_.set(key, made_.get(key)! + 1);
      due.push({ at: p.settleAt + 50 + 400 * rnd(), p });
      x.payment = payment(p, t);
      x.payment.status = 'pending';
      x.payment.wireStatus = 'pending';
      x.payment.card = null;
      x.payment.succeededAt = null;
      x.payment.failedAt = null;
      active.push(p);
      byKey.get(key)!.push(p);
      yield* emit(x);
    } else if (r < 0.6) {
      const i = Math.floor(rnd() * active.length);
      const p = active[i];
      const x = base(p.key, 'retrieve', dur, 200);
      x.sent = { paymentId: p.id };
      x.payment = payment(p, t);
      yield* emit(x);
      if (t > p.settleAt + 2000) {
        active[i] = active[active.length - 1];
        active.pop();
        settled.push(p);
        if (settled.length > 5000) settled.shift();
      }
    } else if (r < 0.78) {
      const key = pick(KEYS);
      const mine = byKey.get(key)!;
      const page = mine.slice(-10).reverse().filter((p) => p.createdT + 30 < t);
      const x = base(key, 'list', dur, 200);
      x.sent = { list: { limit: 10 } };
      const shown = page.map((p) => payment(p, t));
      x.list = { object: 'list', ids: shown.map((p) => p.id), hasMore: made_.get(key)! > shown.length, url: '/v1/payments', statuses: shown.map((p) => p.wireStatus), created: shown.map((p) => p.created), livemodes: shown.map(() => false) };
      yield* emit(x);
      if (mine.length > 200) mine.splice(0, mine.length - 100);
    } else if (r < 0.84 && settled.length) {
      const p = pick(settled);
      if (p.outcome !== 'succeeded' || p.refunded) continue;
      p.refunded = true;
      const id = `re_${uuid(made * 3 + seq)}`;
      const x = base(p.key, 'refund', dur, 201);
      x.idemKey = `refund-${p.id}`;
      x.bodyDigest = hex(seq, 16);
      x.sent = { paymentId: p.id, amount: 100 };
      x.refund = { id, paymentId: p.id, amount: 100, status: 'succeeded', created: Math.floor((WALL + t) / 1000) };
      p.refunds.push({ id, amount: 100, t: t + dur });
      due.push({ at: t + dur + 50 + 200 * rnd(), p, refund: { id, amount: 100 } });
      yield* emit(x);
    } else if (r < 0.95) {
      const key = pick(KEYS);
      const x = base(key, 'retrieve', dur, 404);
      x.sent = { paymentId: `pay_${uuid(10_000_000 + seq)}` };
      x.error = { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment', param: 'id', decline_code: null, doc_url: null, request_id: `req_${seq}`, missing: [] };
      x.bodySnippet = '{"error":{"type":"invalid_request_error","code":"resource_missing"}}';
      yield* emit(x);
    } else if (active.length) {
      // An idempotent replay of a create that was answered: the same payment, as created.
      const p = pick(active);
      if (p.createdT + 100 > t) continue;
      const x = base(p.key, 'create', dur, 201);
      x.idemKey = p.idemKey;
      x.bodyDigest = p.digest;
      x.sent = { amount: p.amount, currency: 'EUR', description: 'bench order', metadata: { order: p.id.slice(4, 12) }, cardLast4: '4242', ...(p.outcome === 'succeeded' ? { cardOutcome: 'succeeds' as const } : {}) };
      x.payment = payment(p, p.createdT);
      x.payment.status = 'pending';
      x.payment.wireStatus = 'pending';
      x.payment.card = null;
      x.payment.succeededAt = null;
      x.payment.failedAt = null;
      x.attempt = 1;
      yield* emit(x);
    }
  }
  yield* emit({ v: HISTORY_VERSION, kind: 'end', tEnd: t + 100, wall: WALL + t + 100, complete: true, reason: 'done', requests: seq, dropped: 0 });
}

