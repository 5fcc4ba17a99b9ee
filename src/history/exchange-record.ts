/**
 * Turns one request and what came back (a response, or a failure) into a
 * history v1 exchange record: parsed rate headers, the error object, the
 * normalized payment / refund / list page, shape problems, leaks, and a
 * redacted evidence snippet where the record needs one.
 */
// Node's types for the type-check of k6's bundle (which shares this file): the schema's zod types name URL.
/// <reference types="node" />
// Direct module imports (not the spec index): this file is bundled into the history worker, which
// must not load the schema library with it.
import { ERROR_BODY_FIELDS } from '../spec/errors.ts';
import { REFUND_ID_PREFIX } from '../spec/refund.ts';
import { HISTORY_VERSION } from './version.ts';
import { normalizeList, normalizePayment, normalizeRefund, detectPresentation, validatePaymentShape, type CanonicalPayment } from '../spec/payment.ts';
import type { ErrorInfo, ExchangeRecord, FAILURE_KINDS, Sent } from './schema.ts';
import type { Operation } from '../spec/operations.ts';
import { SNIPPET_MAX_CHARS, type LeakScanner } from './leak-scanner.ts';

/** Why no response came (the transport's failure kinds, as the record keeps them). */
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Headers paystorm reads from every response (the rest stay raw until asked for). */
export interface PickedHeaders {
  contentType: string | null;
  rateLimit: string | null;
  rateRemaining: string | null;
  rateReset: string | null;
  retryAfter: string | null;
  location: string | null;
  /** The Date header (the server's clock, whole seconds): the oracle estimates the server's clock offset from it. */
  date?: string | null;
}

/** What a record is built from: the status, the picked headers and the body as text. */
export interface AnsweredResponse {
  status: number;
  picked: PickedHeaders;
  body: string;
}

/** What is known about an exchange before the answer. */
export interface ExchangeMeta {
  scenario: string;
  group?: string;
  op: Operation;
  key: string;
  idemKey?: string;
  bodyDigest?: string;
  sent: Sent;
  tIntended: number;
  tStart: number;
  wall: number;
  attempt?: number;
}

/**
 * An answered exchange before its record is built: what the history writer's
 * worker thread needs to build the very record `responseRecord` /
 * `failureRecord` would build here (see HistoryWriter's offload mode).
 */
export interface ExchangeCapture {
  seq: number;
  meta: ExchangeMeta;
  tEnd: number;
  status: number;
  /** Null when no response came. */
  picked: PickedHeaders | null;
  body: string;
  failure: FailureKind | null;
}

/** Where an offloaded exchange goes: scan secrets first, then captures, all in one ordered stream. */
export interface ExchangeOffload {
  addScanKey(secret: string, label: string): void;
  addScanCard(number: string): void;
  /**
   * Queues a capture; returns its seq. `view(seq)` gives the record to hand to
   * live listeners (called only when there are some).
   */
  writeCapture(c: Omit<ExchangeCapture, 'seq'>, view?: (seq: number) => ExchangeRecord): number;
}

/** Builds the record of a capture (the same record the client would have built). */
export function captureRecord(c: ExchangeCapture, scanner: LeakScanner): ExchangeRecord {
  const r = c.picked === null ? failureRecord(c.meta, c.tEnd, c.failure ?? 'other') : responseRecord(c.meta, c.tEnd, { status: c.status, picked: c.picked, body: c.body }, scanner).record;
  r.seq = c.seq;
  return r;
}

export interface ParsedExchange {
  record: ExchangeRecord;
  body: unknown;
  payment: CanonicalPayment | null;
}

const INT_RE = /^-?\d+$/;

function intOrNull(v: string | null): number | null {
  return v !== null && INT_RE.test(v.trim()) ? Number(v.trim()) : null;
}

/** X-RateLimit-* as numbers; unparsable values are kept raw (RL-4..6 judge them). Null when none was sent. */
export function parseRateHeaders(p: PickedHeaders): ExchangeRecord['rate'] {
  if (p.rateLimit === null && p.rateRemaining === null && p.rateReset === null) return null;
  const limit = intOrNull(p.rateLimit);
  const remaining = intOrNull(p.rateRemaining);
  const reset = intOrNull(p.rateReset);
  let raw: Record<string, string> | undefined;
  if (p.rateLimit !== null && limit === null) (raw ??= {}).limit = p.rateLimit;
  if (p.rateRemaining !== null && remaining === null) (raw ??= {}).remaining = p.rateRemaining;
  if (p.rateReset !== null && reset === null) (raw ??= {}).reset = p.rateReset;
  return raw ? { limit, remaining, reset, raw } : { limit, remaining, reset };
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MON = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** RFC 9110 §5.6.7: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the preferred form. */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
/** Obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). */
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
/** Obsolete asctime form (`Sun Nov  6 08:49:37 1994`). */
const ASCTIME_DATE = new RegExp(`^${DAY} ${MON} ((?: \\d)|\\d{2}) ${TIME} (\\d{4})$`);

/**
 * An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, RFC 850 or asctime, exactly) as epoch ms; null for
 * anything else. Not Date.parse: it reads junk such as `-1`, `5, 5` or two joined dates as some date,
 * which would record a malformed header as a valid one. (The day name is only checked for form.)
 */
export function parseHttpDate(text: string): number | null {
  let day: string, mon: string, year: number, time: string[];
  let m: RegExpExecArray | null;
  if ((m = IMF_FIXDATE.exec(text))) {
    [day, mon, year, time] = [m[1], m[2], Number(m[3]), m.slice(4, 7)];
  } else if ((m = RFC850_DATE.exec(text))) {
    // Two-digit year: one more than 50 years ahead is the most recent past year with those digits (RFC 9110).
    const thisYear = new Date().getUTCFullYear();
    year = Math.floor(thisYear / 100) * 100 + Number(m[3]);
    if (year > thisYear + 50) year -= 100;
    [day, mon, time] = [m[1], m[2], m.slice(4, 7)];
  } else if ((m = ASCTIME_DATE.exec(text))) {
    [mon, day, time, year] = [m[1], m[2], m.slice(3, 6), Number(m[6])];
  } else return null;
  const [hh, mm, ss] = time;
  const d = Number(day.trim());
  const month = MONTHS.indexOf(mon);
  const h = Number(hh), mi = Number(mm), sec = Number(ss);
  // 23:59:60 is a leap second (allowed by the grammar); anything past the field ranges is not a date.
  if (h > 23 || mi > 59 || sec > 60 || d < 1) return null;
  const ms = Date.UTC(year, month, d, h, mi, Math.min(sec, 59)) + (sec === 60 ? 1000 : 0);
  // Day beyond the month's length (31 Feb) would roll over into the next month.
  if (new Date(Date.UTC(year, month, d)).getUTCDate() !== d) return null;
  return ms;
}

/** Retry-After as RFC 9110 §10.2.3 allows it: delta-seconds (digits only) or an HTTP-date. */
const DELTA_SECONDS = /^\d+$/;

/**
 * Retry-After in seconds: delta-seconds, or an HTTP date converted against the response's own
 * Date header when it has one (both are the server's clock, so its offset from ours cancels),
 * else against `nowWall`. Null for anything else (a negative, fractional or joined value is malformed,
 * not 0: the oracle judges null as "no Retry-After in seconds").
 */
export function parseRetryAfter(v: string | null, nowWall: number, serverDate?: number): number | null {
  if (v === null) return null;
  const t = v.trim();
  if (DELTA_SECONDS.test(t)) return Number(t);
  const d = parseHttpDate(t);
  if (d === null) return null;
  return Math.max(0, Math.round((d - (serverDate !== undefined ? serverDate * 1000 : nowWall)) / 1000));
}

let lastDateText = '';
let lastDateSeconds: number | undefined;
/** The Date header (an HTTP-date) as Unix seconds (undefined when absent or not a date). Cached: it changes once a second. */
export function parseDateHeader(v: string | null | undefined): number | undefined {
  if (v === null || v === undefined) return undefined;
  if (v === lastDateText) return lastDateSeconds;
  const ms = parseHttpDate(v.trim());
  lastDateText = v;
  lastDateSeconds = ms === null ? undefined : Math.floor(ms / 1000);
  return lastDateSeconds;
}

export function readErrorInfo(body: unknown): ErrorInfo | null {
  if (body === null || typeof body !== 'object') return null;
  const e = (body as Record<string, unknown>).error;
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return null;
  const o = e as Record<string, unknown>;
  const missing: string[] = [];
  for (const f of ERROR_BODY_FIELDS) if (!(f in o)) missing.push(f);
  // Absent fields are written as null (JSON has no undefined); `missing` says which were absent.
  return {
    type: o.type ?? null,
    code: o.code ?? null,
    message: o.message ?? null,
    param: o.param ?? null,
    decline_code: o.decline_code ?? null,
    doc_url: o.doc_url ?? null,
    request_id: o.request_id ?? null,
    missing,
  };
}

function baseRecord(meta: ExchangeMeta, tEnd: number): ExchangeRecord {
  const r: ExchangeRecord = {
    v: HISTORY_VERSION,
    kind: 'exchange',
    seq: 0,
    scenario: meta.scenario,
    op: meta.op,
    key: meta.key,
    sent: meta.sent,
    tIntended: meta.tIntended,
    tStart: meta.tStart,
    tEnd,
    wall: meta.wall,
    status: 0,
    contentType: null,
    rate: null,
    retryAfter: null,
    json: false,
    error: null,
    payment: null,
    refund: null,
    list: null,
    failure: null,
  };
  if (meta.group !== undefined) r.group = meta.group;
  if (meta.idemKey !== undefined) r.idemKey = meta.idemKey;
  if (meta.bodyDigest !== undefined) r.bodyDigest = meta.bodyDigest;
  if (meta.attempt !== undefined) r.attempt = meta.attempt;
  return r;
}

export function failureRecord(meta: ExchangeMeta, tEnd: number, failure: FailureKind, seq = 0): ExchangeRecord {
  const r = baseRecord(meta, tEnd);
  r.failure = failure;
  r.seq = seq;
  return r;
}

/** What a record reads from the answer's headers (content type, rate headers, Date, Retry-After, Location), written into `out`. */
export function readHeaderFields(out: Pick<ExchangeRecord, 'contentType' | 'rate' | 'date' | 'retryAfter' | 'retryAfterRaw' | 'location'>, p: PickedHeaders, wall: number): void {
  out.contentType = p.contentType;
  out.rate = parseRateHeaders(p);
  const date = parseDateHeader(p.date);
  if (date !== undefined) out.date = date;
  out.retryAfter = parseRetryAfter(p.retryAfter, wall, date);
  // The text of a Retry-After that did not parse, as rate.raw keeps rate headers' (evidence for the judge).
  if (out.retryAfter === null && p.retryAfter !== null) out.retryAfterRaw = p.retryAfter;
  if (p.location !== null) out.location = p.location;
}

/**
 * Bodies longer than this (characters) are not parsed: a parsed 10 MB list page costs ~10x its size
 * in objects, more than the history worker's heap holds, and no answer of this API is near it.
 */
export const BODY_PARSE_MAX_CHARS = 4 * 1024 * 1024;

export function responseRecord(meta: ExchangeMeta, tEnd: number, res: AnsweredResponse, scanner: LeakScanner): ParsedExchange {
  const r = baseRecord(meta, tEnd);
  r.status = res.status;
  readHeaderFields(r, res.picked, meta.wall);
  if (res.body.length > BODY_PARSE_MAX_CHARS) return oversizedRecord(r, res.body, scanner);

  let body: unknown = null;
  let text = res.body;
  // A body that echoes a secret is redacted before anything is read from it, so no field can carry it on.
  const echoes = text.length > 0 ? scanner.echoes(text) : undefined;
  if (echoes) text = scanner.redact(text);
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
      r.json = true;
    } catch {
      body = text;
    }
  }
  let payment: CanonicalPayment | null = null;
  let problems: string[] | undefined;
  if (r.json && body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const o = body as Record<string, unknown>;
    if ('error' in o) r.error = readErrorInfo(body);
    else if (Array.isArray(o.data)) {
      const list = normalizeList(body)!;
      r.list = {
        object: list.object ?? null,
        ids: list.ids,
        hasMore: list.hasMore,
        url: list.url ?? null,
        statuses: (o.data as unknown[]).map((d) => (d && typeof d === 'object' && typeof (d as Record<string, unknown>).status === 'string' ? ((d as Record<string, unknown>).status as string).toLowerCase() : '')),
        created: (o.data as unknown[]).map(createdOf),
        livemodes: (o.data as unknown[]).map((d) => (d && typeof d === 'object' && typeof (d as Record<string, unknown>).livemode === 'boolean' ? ((d as Record<string, unknown>).livemode as boolean) : null)),
        descriptions: (o.data as unknown[]).map((d) => (d && typeof d === 'object' && typeof (d as Record<string, unknown>).description === 'string' ? ((d as Record<string, unknown>).description as string) : null)),
      };
      (o.data as unknown[]).forEach((d, i) => {
        if (detectPresentation(d)) for (const s of validatePaymentShape(d)) (problems ??= []).push(`data[${i}].${s}`);
      });
    } else if (isRefundBody(o)) {
      r.refund = normalizeRefund(body);
    } else if (detectPresentation(body)) {
      payment = normalizePayment(body);
      r.payment = payment;
      const s = validatePaymentShape(body);
      if (s.length > 0) problems = s;
    } else {
      r.refund = normalizeRefund(body);
    }
  }
  if (problems) r.shapeProblems = problems;
  const leaks = r.json ? scanner.structural(body, echoes) : echoes;
  if (leaks) r.leaks = leaks;
  // Evidence only where a judge may quote it: non-2xx, non-JSON, or something found wrong.
  if (text.length > 0 && (res.status >= 300 || !r.json || leaks || problems)) r.bodySnippet = scanner.snippet(text);
  return { record: r, body, payment };
}

/**
 * The record of an answer whose body is too long to parse: status, headers, times and what was sent
 * as always; `oversizedBodyChars` says the body-derived fields (error, payment, refund, list, shape
 * problems, structural leaks) were not read. `json` is still honest (the text is checked without
 * building it), so ERR-5 does not fail a JSON answer for being long; echoed secrets are still found.
 */
function oversizedRecord(r: ExchangeRecord, text: string, scanner: LeakScanner): ParsedExchange {
  r.oversizedBodyChars = text.length;
  r.json = isJsonText(text);
  const leaks = scanner.echoes(text);
  if (leaks) r.leaks = leaks;
  // Redacting a prefix a little longer than the snippet keeps any secret near its end whole.
  r.bodySnippet = scanner.snippet(text.slice(0, SNIPPET_MAX_CHARS + 1024));
  return { record: r, body: null, payment: null };
}

/** The characters after a backslash in a JSON string, besides u: " \\ / b f n r t. */
const JSON_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const JSON_LITERAL = /true|false|null/y;
const JSON_SPACE = /[ \t\n\r]*/y;

/** Whether `text` is one JSON value (RFC 8259, as JSON.parse takes it), checked without building it. */
export function isJsonText(text: string): boolean {
  /** Open containers: true for an object, false for an array. */
  const open: boolean[] = [];
  let i = 0;
  const at = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  const space = () => at(JSON_SPACE);
  /** A string, scanned by hand: a regex over a multi-MB string overflows the regex engine's stack. */
  const string = (): boolean => {
    if (text.charCodeAt(i) !== 0x22) return false;
    for (i++; i < text.length; ) {
      const c = text.charCodeAt(i++);
      if (c === 0x22) return true;
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text.charCodeAt(i++);
        if (e === 0x75) {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i, i + 4))) return false;
          i += 4;
        } else if (!JSON_ESCAPES.has(e)) return false;
      }
    }
    return false;
  };
  /** An object member's key and colon. */
  const key = (): boolean => {
    if (!string()) return false;
    space();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    return true;
  };
  space();
  for (;;) {
    // A value is expected at i.
    space();
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      i++;
      space();
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (text.charCodeAt(i) === close) i++;
      else {
        open.push(c === 0x7b);
        if (c === 0x7b && !key()) return false;
        continue;
      }
    } else if (!(c === 0x22 ? string() : c === 0x2d || (c >= 0x30 && c <= 0x39) ? at(JSON_NUMBER) : at(JSON_LITERAL))) return false;
    // After a value: a comma, the end of its container, or the end of the text.
    for (;;) {
      space();
      if (open.length === 0) return i === text.length;
      const isObject = open[open.length - 1];
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (isObject) {
          space();
          if (!key()) return false;
        }
        break;
      }
      if (d !== (isObject ? 0x7d : 0x5d)) return false;
      i++;
      open.pop();
    }
  }
}

/**
 * A refund: `object: "refund"`, or, on a body that does not call itself a payment, an `re_` id or
 * a `payment_id` (the one refund field the spec shows; a Payment never carries it). The refund's
 * id and other fields are not shown, so `rf_…` with a `created` must not be read as a Payment.
 */
function isRefundBody(o: Record<string, unknown>): boolean {
  if (o.object === 'refund') return true;
  if (o.object !== undefined && o.object !== null) return false;
  return (typeof o.id === 'string' && o.id.startsWith(REFUND_ID_PREFIX)) || typeof o.payment_id === 'string';
}

function createdOf(d: unknown): number | null {
  if (!d || typeof d !== 'object') return null;
  const o = d as Record<string, unknown>;
  return typeof o.created === 'number' ? o.created : typeof o.created_at === 'number' ? o.created_at : null;
}
