/**
 * What a k6 run hands to paystorm's oracle: every exchange as a paystorm history v1
 * exchange record (docs/history-format.md), built by the same code the paystorm client
 * uses (src/history/exchange-record.ts: rate headers, error object, canonical payment / refund /
 * list page, shape problems, leaks, redacted snippet), carried by a k6 custom Counter.
 *
 * Carrier (documented k6 outputs only): `paystorm_exchange`, a Counter; each point has
 * value 1 and carries the record, in the compact encoding of src/history/k6-record-codec.ts
 * (a positional array, defaults left out: under half the JSON), under `paystorm_record` in the point's
 * **metadata** (`exec.vu.metrics.metadata`, k6 v0.45+: high-cardinality data that, unlike
 * a tag, makes no time series, so k6's memory does not grow with the request count).
 * `--out json` writes it as `data.metadata` of a Point line, so `paystorm check k6.json`
 * (or `.gz`) and `paystorm merge` read it back (src/history/k6.ts, which also reads it
 * from a tag of that name). setup() adds one point with `paystorm_run` instead: the run's
 * facts (script, target, presentation, rate limit, key labels, card outcomes, and
 * `endMarker: true`: this script writes an end marker), and teardown() one with `paystorm_end`:
 * the plan and the wall times the converter judges completeness with (plan.ts). Without a
 * marker the converter judges the run incomplete (interrupted). Times are Unix epoch ms here; the
 * converter puts them on one run clock. Keys appear only as labels; card numbers only as
 * last four.
 */
import { Counter } from 'k6/metrics';
import exec from 'k6/execution';
import { sha256 } from 'k6/crypto';
import { failureRecord, responseRecord, type ExchangeMeta } from '../../src/history/exchange-record.ts';
import { LeakScanner } from '../../src/history/leak-scanner.ts';
import { encodeK6Record } from '../../src/history/k6-record-codec.ts';
import type { Operation } from '../../src/spec/operations.ts';
import { LIMITS } from '../../src/spec/limits.ts';
import type { KeyConfig } from './config.ts';
import type { CardsFile } from '../../src/spec/cards.ts';
import { planOf, type ScenarioPlan } from './plan.ts';

export const RECORD_METRIC = 'paystorm_exchange';
export const RECORD_TAG = 'paystorm_record';
export const RUN_TAG = 'paystorm_run';
export const END_TAG = 'paystorm_end';

const records = new Counter(RECORD_METRIC);
const scanner = new LeakScanner();
const cardOutcomes: Record<string, string> = {};
let script = 'k6';

/** The k6 script's name (`mixed`, `idempotency`, ...): the records' `scenario`. */
export function setScript(name: string): void {
  script = name;
}

/** Secrets the scanner looks for in answers (and redacts from snippets); never written. */
export function watchKey(key: KeyConfig): void {
  scanner.addKey(key.secret, key.label);
}

export function watchCards(cards: CardsFile): void {
  for (const outcome of Object.keys(cards) as (keyof CardsFile)[]) {
    const n = cards[outcome];
    if (n) {
      cardOutcomes[n] = outcome;
      scanner.addCard(n);
    }
  }
}

type Sent = ExchangeMeta['sent'];
type CardLike = { number?: unknown; exp_month?: unknown; exp_year?: unknown; cvc?: unknown; holder_name?: unknown };

function obj(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function cardSent(card: CardLike, out: Sent): void {
  const num = typeof card.number === 'string' ? card.number : '';
  if (num) {
    out.cardLast4 = num.slice(-4);
    const outcome = cardOutcomes[num];
    if (outcome) out.cardOutcome = outcome as Sent['cardOutcome'];
    scanner.addCard(num);
  }
  const expMonth = Number(card.exp_month);
  const expYear = Number(card.exp_year);
  if (Number.isFinite(expMonth) && Number.isFinite(expYear) && card.cvc !== undefined) {
    out.cardMeta = { expMonth, expYear, cvcLength: String(card.cvc).length, holderName: String(card.holder_name ?? '') };
  }
}

function queryOf(url: string): Record<string, string> {
  const q: Record<string, string> = {};
  const i = url.indexOf('?');
  if (i < 0) return q;
  for (const part of url.slice(i + 1).split('&')) {
    const [k, v = ''] = part.split('=');
    if (k) q[decodeURIComponent(k)] = decodeURIComponent(v);
  }
  return q;
}

function pathOf(url: string): string {
  const noQuery = url.split('?')[0];
  const m = /^[a-z]+:\/\/[^/]+(\/.*)?$/i.exec(noQuery);
  return m ? m[1] || '/' : noQuery;
}

/** What the request sent that rules compare against (the fields src/client/api-client.ts fills). */
export function sentOf(op: Operation, method: string, url: string, body: string | null, idemKey: string | null): Sent {
  const out: Sent = {};
  const path = pathOf(url);
  let b: Record<string, unknown> | null = null;
  if (body !== null && body !== '') {
    try {
      b = obj(JSON.parse(body));
    } catch {
      // A form (hosted page) or a deliberately bad body.
      if (op === 'submit_hpp') b = queryOf(`?${body}`);
    }
  }
  const pid = /\/v1\/payments\/([^/?]+)/.exec(path)?.[1];
  if (op === 'create' || op === 'create_hpp') {
    if (b) {
      for (const [from, to] of [
        ['amount', 'amount'],
        ['currency', 'currency'],
        ['description', 'description'],
        ['metadata', 'metadata'],
        ['merchant_reference', 'merchantReference'],
        ['return_url', 'returnUrl'],
      ] as const) {
        if (b[from] !== undefined) (out as Record<string, unknown>)[to] = b[from];
      }
      const card = obj(b.card) ?? obj(obj(b.payment_method_data)?.card);
      if (card) cardSent(card, out);
      out.inputShape = op === 'create_hpp' || b.payment_method_data !== undefined || b.billing_details !== undefined ? 'A' : 'B';
    }
  } else if (op === 'refund' || op === 'refund_create') {
    const p = op === 'refund' ? pid : b && typeof b.payment_id === 'string' ? b.payment_id : undefined;
    if (p) out.paymentId = p;
    if (b && b.amount !== undefined) out.amount = b.amount;
  } else if (op === 'retrieve') {
    if (pid) out.paymentId = pid;
  } else if (op === 'list') {
    const q = queryOf(url);
    const list: NonNullable<Sent['list']> = {};
    if (q.limit !== undefined) list.limit = /^\d+$/.test(q.limit) ? Number(q.limit) : q.limit;
    if (q.starting_after !== undefined) list.startingAfter = q.starting_after;
    if (q.status !== undefined) list.status = q.status;
    if (q['created[gte]'] !== undefined) list.createdGte = Number(q['created[gte]']);
    if (q['created[lt]'] !== undefined) list.createdLt = Number(q['created[lt]']);
    out.list = list;
  } else if (op === 'complete_3ds') {
    out.method = method;
    out.path = path;
    const r = queryOf(url).result;
    if (r === 'success' || r === 'fail') out.threeDsResult = r;
  } else if (op === 'submit_hpp') {
    out.method = method;
    out.path = path;
    if (b) cardSent(b as CardLike, out);
  }
  const apiPost = method === 'POST' && op !== 'submit_hpp' && op !== 'complete_3ds';
  if (apiPost && idemKey === null) out.idemVariant = 'missing';
  else if (apiPost && idemKey !== null && idemKey.length > LIMITS.idempotencyKeyMaxLength) out.idemVariant = 'oversized';
  return out;
}

/** k6's request error text -> paystorm's failure kind (no answer came). */
export function failureOf(error: string): 'timeout' | 'reset' | 'refused' | 'other' {
  if (/timeout|deadline/i.test(error)) return 'timeout';
  if (/refused/i.test(error)) return 'refused';
  if (/reset|EOF|closed|broken pipe/i.test(error)) return 'reset';
  return 'other';
}

export interface Exchange {
  op: Operation;
  key: KeyConfig;
  method: string;
  url: string;
  body: string | null;
  idemKey: string | null;
  attempt?: number;
  group?: string;
  /** Date.now() just before sending. */
  sentAt: number;
  /**
   * Epoch ms by which the answer was in hand: sentAt + blocked + connecting + tls_handshaking +
   * duration (k6's `timings.duration` alone leaves out the connection's time, so it would end
   * the span before the server answered). See api.ts `endOf`.
   */
  endAt: number;
  /** 0: no answer. */
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  responseBody: string;
  error: string;
}

/** Builds the exchange's history record and emits it as one `paystorm_exchange` point. */
export function recordExchange(x: Exchange): void {
  const meta: ExchangeMeta = {
    scenario: script,
    op: x.op,
    key: x.key.label,
    sent: sentOf(x.op, x.method, x.url, x.body, x.idemKey),
    tIntended: x.sentAt,
    tStart: x.sentAt,
    wall: x.sentAt,
  };
  if (x.group !== undefined) meta.group = x.group;
  if (x.idemKey !== null) meta.idemKey = x.idemKey;
  if (x.body !== null) meta.bodyDigest = sha256(x.body, 'hex').slice(0, 16);
  if (x.attempt !== undefined) meta.attempt = x.attempt;
  const tEnd = Math.max(x.sentAt, x.endAt);
  const h = x.headers;
  const record =
    x.status === 0
      ? failureRecord(meta, tEnd, failureOf(x.error))
      : responseRecord(
          meta,
          tEnd,
          {
            status: x.status,
            picked: {
              contentType: h['content-type'] ?? null,
              rateLimit: h['x-ratelimit-limit'] ?? null,
              rateRemaining: h['x-ratelimit-remaining'] ?? null,
              rateReset: h['x-ratelimit-reset'] ?? null,
              retryAfter: h['retry-after'] ?? null,
              location: h['location'] ?? null,
              date: h['date'] ?? null,
            },
            body: x.responseBody,
          },
          scanner,
        ).record;
  emit(1, RECORD_TAG, encodeK6Record(record));
}

/** One point whose metadata (or, where the VU has no metadata map, tag) `name` holds `json`. */
function emit(value: number, name: string, json: string): void {
  let meta: Record<string, number | string | boolean> | undefined;
  try {
    meta = exec.vu.metrics.metadata;
  } catch {
    meta = undefined;
  }
  if (!meta) {
    records.add(value, { [name]: json });
    return;
  }
  meta[name] = json;
  try {
    records.add(value);
  } finally {
    delete meta[name];
  }
}

export interface RunFacts {
  target: string;
  presentation: 'A' | 'B' | null;
  /** X-RateLimit-Limit as first seen, and the window the run is judged with (WINDOW_MS, default the spec's 60 s). */
  rateLimit: { limit: number; windowMs: number } | null;
  keys: KeyConfig[];
  cardOutcomes: string[];
  /** The rate window to judge with (windowMsOf(__ENV)), also when the limit is learned from the records. */
  windowMs: number;
}

/** WINDOW_MS: the rate window the oracle judges the run with (default the spec's 60 s). */
export function windowMsOf(env: Record<string, string | undefined>): number {
  const n = Number(env.WINDOW_MS);
  return Number.isFinite(n) && n > 0 ? n : LIMITS.rateWindowMs;
}

/**
 * setup(): the run's facts as one `paystorm_run` point (labels only, never a secret).
 * Returns its wall time (epoch ms): setup() hands it to teardown() in its data, since
 * teardown runs in a runtime of its own and k6 tells it no counters.
 */
export function recordRun(f: RunFacts): number {
  const wall = Date.now();
  const run = {
    script,
    target: f.target,
    presentation: f.presentation,
    rateLimit: f.rateLimit,
    keys: f.keys.map((k) => ({ label: k.label, merchant: k.merchant, mode: k.mode, last4: k.secret.slice(-4), prefix: k.secret.slice(0, k.secret.indexOf('_sk_') + 4) })),
    cardOutcomes: f.cardOutcomes,
    windowMs: f.windowMs,
    wall,
    // This script's teardown() writes the end marker: a file with these facts and no marker was cut short.
    endMarker: true,
  };
  emit(0, RUN_TAG, JSON.stringify(run));
  return wall;
}

/** Version of the end marker's fields: 2 carries the plan per scenario and setup's wall time (no verdict). */
export const END_MARKER_VERSION = 2;

/**
 * teardown(): the end marker, one `paystorm_end` point with what `paystorm check` needs to
 * judge whether the test ran its plan (src/history/k6-plan.ts): each scenario's plan
 * (`exec.test.options`, which reflects command-line overrides and is readable in teardown;
 * else the script's own `options.scenarios`), this instance's execution segment, and the wall
 * times of setup's end and of teardown. k6 runs teardown also after an interrupt (exit 105)
 * or `exec.test.abort()` (108), so its running proves nothing; the time from setup to
 * teardown and the `iterations` points k6 writes per completed iteration do.
 * `setupWall`: what recordRun() returned in setup (undefined when setup did not run).
 */
export function recordEnd(own: Record<string, ScenarioPlan> | undefined, setupWall: number | undefined): void {
  let scenarios: Record<string, ScenarioPlan> | undefined;
  let segment: string | undefined;
  try {
    const opts = exec.test.options as { scenarios?: Record<string, ScenarioPlan>; executionSegment?: string };
    if (opts && opts.scenarios && Object.keys(opts.scenarios).length) scenarios = opts.scenarios;
    if (opts && typeof opts.executionSegment === 'string') segment = opts.executionSegment;
  } catch {
    scenarios = undefined;
  }
  const plan = planOf(scenarios ?? own ?? {}, segment);
  const wall = Date.now();
  const marker = {
    script,
    v: END_MARKER_VERSION,
    scenarios: plan,
    ...(segment ? { segment } : {}),
    setupWall: typeof setupWall === 'number' && Number.isFinite(setupWall) ? setupWall : null,
    wall,
  };
  // What teardown can tell on its own: a time-based scenario whose span had not passed was cut short.
  const ranMs = marker.setupWall === null ? null : wall - marker.setupWall;
  const short = Object.entries(plan).filter(([, p]) => p.plannedMs !== null && (ranMs === null || ranMs < p.plannedMs));
  if (short.length) {
    console.warn(
      `paystorm k6 ${script}: teardown came ${ranMs === null ? 'without a setup() time' : `${ranMs} ms after setup`}, before ${short.map(([n, p]) => `${n}'s planned ${p.plannedMs} ms`).join(', ')} had passed; paystorm check will judge the run incomplete (interrupted).`,
    );
  }
  emit(0, END_TAG, JSON.stringify(marker));
}
