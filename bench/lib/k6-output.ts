/**
 * A model of k6's `--out json` output of paystorm's `mixed` script, for benchmarks: the
 * exchanges of the synthetic history (synthetic-history.ts) written as the Point lines one
 * request makes in a real recording (../shared/samples/k6/mixed-30s-clean.k6.json.gz):
 *
 * - per request the nine HTTP points (http_reqs, the seven timings, http_req_failed) at one
 *   time, then the lines that followed a request of the same operation and status in the
 *   recording, one such sequence drawn at random (as often as the recording has it):
 *   `rate_limited`, the checks (RL-4, ERR-5, SEC-2 on every answer, then the flow's),
 *   the `paystorm_exchange` point, `payments_created`, `settle_time`;
 * - per iteration (as many per request as the recording has) data_sent, data_received,
 *   iteration_duration and iterations; vus and vus_max once a second;
 * - a `paystorm_run` point first and a `paystorm_end` point last.
 *
 * Two styles: `today` (every default system tag, the `name` tag, the record as JSON: what the
 * recording's scripts wrote) and `rebuilt` (options.systemTags = K6_SYSTEM_TAGS, no `name`
 * tag, the record in the compact encoding, an answer's checks as one `op: RULE-ID …` check
 * after the last of them, as k6/lib/checks.ts writes them). Each record is the synthetic one as the scripts
 * would build it: epoch-ms times (tEnd from k6's timings), `seq` 0, random-looking ids,
 * Idempotency-Keys and body digests (the synthetic history's are short counters, which
 * gzip would squeeze unrealistically well), a Date header. Webhooks (k6 has no receiver) and
 * the unknown-id probes (the k6 scripts send none) are left out. Seeded: the same lines every call.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { ExchangeRecord, HistoryRecord } from '../../src/history/index.ts';
import { encodeK6Record } from '../../src/history/k6-record-codec.ts';
import { K6_SYSTEM_TAGS } from '../../src/history/k6-tags.ts';
import { seededRandom } from '../../src/spec/random.ts';

export type K6Style = 'today' | 'rebuilt';

interface TemplateLine {
  metric: string;
  tags: Record<string, string>;
  value: number;
}

interface Sample {
  /** Each metric's Metric line as the recording has it. */
  metricLines: Map<string, string>;
  /** By `op status`: the tags of the request's HTTP points, and the sequences of lines that followed requests of that kind. */
  requests: Map<string, { httpTags: Record<string, string>; after: TemplateLine[][] }>;
  /** Iterations per request in the recording. */
  iterationsPerRequest: number;
  /** Tags of the per-iteration points (data_sent, …) and of vus / vus_max. */
  iterationTags: Record<string, Record<string, string>>;
  requestCount: number;
  exchangeCount: number;
}

const HTTP_TIMINGS = ['http_req_duration', 'http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving'];
const ITERATION_METRICS = ['data_sent', 'data_received', 'iteration_duration', 'iterations'];

/** Reads the recording: the line sequences the model repeats. */
export function readSample(path: string): Sample {
  const text = gunzipSync(readFileSync(path)).toString('utf8');
  const metricLines = new Map<string, string>();
  const requests = new Map<string, { httpTags: Record<string, string>; after: TemplateLine[][] }>();
  const iterationTags: Record<string, Record<string, string>> = {};
  let current: TemplateLine[] | null = null;
  let requestCount = 0;
  let exchangeCount = 0;
  let iterations = 0;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const o = JSON.parse(line) as { type: string; metric: string; data: { value: number; tags?: Record<string, string>; metadata?: Record<string, string> } };
    if (o.type === 'Metric') {
      metricLines.set(o.metric, line);
      continue;
    }
    const tags = o.data.tags ?? {};
    if (o.metric === 'paystorm_exchange' && o.data.metadata?.paystorm_record) exchangeCount++;
    // setup() and teardown() points are not the load's.
    if (tags.group === '::setup' || tags.group === '::teardown') continue;
    if (o.metric === 'http_reqs') {
      requestCount++;
      const key = `${tags.op} ${tags.status}`;
      const kind = requests.get(key) ?? { httpTags: tags, after: [] };
      requests.set(key, kind);
      current = [];
      kind.after.push(current);
    } else if (o.metric.startsWith('http_req_')) {
      continue;
    } else if (ITERATION_METRICS.includes(o.metric) || o.metric === 'vus' || o.metric === 'vus_max') {
      iterationTags[o.metric] ??= tags;
      if (o.metric === 'iterations') iterations++;
    } else if (current) {
      current.push({ metric: o.metric, tags, value: o.data.value });
    }
  }
  return { metricLines, requests, iterationsPerRequest: iterations / requestCount, iterationTags, requestCount, exchangeCount };
}

const hexOf = (s: string, chars: number) => createHash('md5').update(s).digest('hex').slice(0, chars);
const uuidOf = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;

let secondText = '';
let secondOf = NaN;
/** k6's time format (Go's RFC 3339 with nanoseconds, trailing zeros trimmed); `ns` within the millisecond. */
function timeText(ms: number, ns: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== secondOf) {
    secondOf = second;
    secondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  const frac = (String(ms - second * 1000).padStart(3, '0') + String(ns).padStart(6, '0')).replace(/0+$/, '');
  return frac ? `${secondText}.${frac}Z` : `${secondText}Z`;
}

/** Go's encoding/json escapes <, > and & in strings (HTML-safe output), as k6's JSON output shows. */
const goEscape = (json: string) => json.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);

const NO_TAGS: Record<string, string> = {};
const KEPT_TAGS = new Set<string>([...K6_SYSTEM_TAGS, 'op']);

/** The tags a point of this style carries: the rebuilt scripts' are K6_SYSTEM_TAGS and `op` (sorted, as k6 writes them). */
function tagsFor(style: K6Style, tags: Record<string, string>): Record<string, string> {
  if (style === 'today') return tags;
  const out: Record<string, string> = {};
  for (const k of Object.keys(tags).sort()) if (KEPT_TAGS.has(k)) out[k] = tags[k];
  return out;
}

export interface K6Line {
  line: string;
  /** The exchange's key label (for shards: one key set per runner); null for lines of no exchange. */
  key: string | null;
}

/**
 * k6 output lines for the synthetic history's exchanges, `exchanges` of them (plus run facts
 * and the end marker). `keys`: called with the key labels before the first line (run facts).
 */
export function* k6Lines(sample: Sample, history: Iterable<HistoryRecord>, exchanges: number, style: K6Style): Generator<K6Line> {
  const rnd = seededRandom(7);
  const written = new Set<string>();
  const metricLine = function* (name: string): Generator<K6Line> {
    if (written.has(name)) return;
    written.add(name);
    const line = sample.metricLines.get(name);
    if (line) yield { line, key: null };
  };
  /** Each tag set's JSON, once (the objects are the sample's, or made once per kind of request). */
  const tagsJson = new Map<Record<string, string>, string>();
  const point = (metric: string, ms: number, ns: number, value: number, tags: Record<string, string>, metadata?: Record<string, string>) => {
    let t = tagsJson.get(tags);
    if (t === undefined) tagsJson.set(tags, (t = goEscape(JSON.stringify(tags))));
    const meta = metadata ? `,"metadata":${goEscape(JSON.stringify(metadata))}` : '';
    return `{"metric":"${metric}","type":"Point","data":{"time":"${timeText(ms, ns)}","value":${JSON.stringify(value)},"tags":${t}${meta}}}`;
  };
  /** Tags by style and kind of point (one object each, so their JSON is made once). */
  const styled = new Map<string, Record<string, string>>();
  const tagsOf = (kind: string, tags: Record<string, string>) => {
    let out = styled.get(kind);
    if (out === undefined) styled.set(kind, (out = tagsFor(style, tags)));
    return out;
  };
  const ids = new Map<string, string>();
  /** A random-looking id in place of the synthetic one, the same every time it appears. */
  const idOf = (id: string) => {
    let out = ids.get(id);
    if (out === undefined) {
      const m = /^(pay|re)_/.exec(id);
      out = m?.[1] === 're' ? `re_${hexOf(id, 32)}` : `pay_${uuidOf(hexOf(id, 32))}`;
      ids.set(id, out);
    }
    return out;
  };
  const group = { group: '' };
  const scenario = { ...group, scenario: 'mixed' };
  let n = 0;
  let lastSecond = -1;
  let wall0 = 0;
  let lastMs = 0;
  for (const r of history) {
    if (n >= exchanges) break;
    if (r.kind === 'run') {
      wall0 = Math.floor(r.wall);
      yield* metricLine('paystorm_exchange');
      const run = { script: 'mixed', target: 'http://127.0.0.1:4010', presentation: 'B', rateLimit: r.rateLimit, keys: r.keys, cardOutcomes: r.cardOutcomes, windowMs: r.rateLimit?.windowMs ?? 60_000, wall: wall0, endMarker: true };
      yield { line: point('paystorm_exchange', wall0, 0, 0, { group: '::setup' }, { paystorm_run: JSON.stringify(run) }), key: null };
      continue;
    }
    if (r.kind !== 'exchange' || r.status === 404) continue;
    n++;
    const kind = sample.requests.get(`${r.op} ${r.status}`);
    if (!kind) throw new Error(`the recording has no ${r.op} answered ${r.status} to model`);
    // k6's timings (ms, nanosecond resolution) adding up to the synthetic exchange's duration.
    const ns = () => Math.floor(rnd() * 1e6);
    const dur = r.tEnd - r.tStart;
    const blocked = (2000 + Math.floor(rnd() * 20_000)) / 1e6;
    const sending = (10_000 + Math.floor(rnd() * 80_000)) / 1e6;
    const receiving = (20_000 + Math.floor(rnd() * 90_000)) / 1e6;
    const waiting = Math.max(0.05, Math.round((dur - sending - receiving - blocked) * 1e6) / 1e6);
    const duration = Math.round((sending + waiting + receiving) * 1e6) / 1e6;
    const tStart = wall0 + Math.floor(r.tStart);
    const tEnd = tStart + blocked + duration;
    let ms = Math.floor(tEnd);
    let sub = ns();
    const later = (maxUs: number) => {
      sub += 1000 + Math.floor(rnd() * maxUs * 1000);
      ms += Math.floor(sub / 1e6);
      sub %= 1e6;
    };
    const httpTags = tagsOf(`http ${r.op} ${r.status}`, { ...kind.httpTags, status: String(r.status) });
    const timings = [duration, blocked, 0, 0, sending, waiting, receiving];
    yield* metricLine('http_reqs');
    yield { line: point('http_reqs', ms, sub, 1, httpTags), key: r.key };
    for (let i = 0; i < HTTP_TIMINGS.length; i++) {
      yield* metricLine(HTTP_TIMINGS[i]);
      yield { line: point(HTTP_TIMINGS[i], ms, sub, timings[i], httpTags), key: r.key };
    }
    yield* metricLine('http_req_failed');
    yield { line: point('http_req_failed', ms, sub, r.status >= 500 ? 1 : 0, httpTags), key: r.key };
    const after = kind.after[Math.floor(rnd() * kind.after.length)];
    // The rebuilt scripts write the answer's checks as one, after the last of them (k6/lib/checks.ts).
    let lastCheck = -1;
    if (style === 'rebuilt') for (let i = 0; i < after.length; i++) if (after[i].metric === 'checks') lastCheck = i;
    for (let i = 0; i < after.length; i++) {
      const t = after[i];
      if (style === 'rebuilt' && t.metric === 'checks') {
        if (i !== lastCheck) continue;
        later(25);
        const kindOfTags = `checks ${r.op} ${after.map((x) => x.tags.check ?? '').join('|')}`;
        const tags = tagsOf(kindOfTags, foldedCheckTags(r.op, after));
        yield { line: point('checks', ms, sub, 1, tags), key: r.key };
        continue;
      }
      later(t.metric === 'paystorm_exchange' ? 300 : 25);
      yield* metricLine(t.metric);
      if (t.metric === 'paystorm_exchange') {
        const rec = k6Record(r, tStart, tEnd, idOf);
        const text = style === 'rebuilt' ? encodeK6Record(rec) : JSON.stringify(rec);
        yield { line: point(t.metric, ms, sub, 1, tagsOf(`${t.metric} ${t.tags.check ?? ''}`, t.tags), { paystorm_record: text }), key: r.key };
      } else {
        const value = t.metric === 'rate_limited' ? (r.status === 429 ? 1 : 0) : t.metric === 'settle_time' ? 500 + Math.floor(rnd() * 3000) : t.value;
        yield { line: point(t.metric, ms, sub, value, tagsOf(`${t.metric} ${t.tags.check ?? ''}`, t.tags)), key: r.key };
      }
    }
    if (rnd() < sample.iterationsPerRequest) {
      later(200);
      for (const m of ITERATION_METRICS) {
        yield* metricLine(m);
        const value = m === 'data_sent' ? 400 + Math.floor(rnd() * 1200) : m === 'data_received' ? 900 + Math.floor(rnd() * 3000) : m === 'iteration_duration' ? Math.round(dur * (1 + 3 * rnd()) * 1e6) / 1e6 : 1;
        yield { line: point(m, ms, sub, value, tagsOf(m, sample.iterationTags[m] ?? scenario)), key: r.key };
      }
    }
    lastMs = ms;
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      for (const m of ['vus', 'vus_max']) {
        yield* metricLine(m);
        yield { line: point(m, ms, sub, m === 'vus' ? 8 : 38, NO_TAGS), key: null };
      }
    }
  }
  const end = { script: 'mixed', planRan: true, plannedMs: lastMs - wall0, plannedIterations: null, why: '', wall: lastMs + 100 };
  yield { line: point('paystorm_exchange', lastMs + 100, 0, 0, { group: '::teardown' }, { paystorm_end: JSON.stringify(end) }), key: null };
}

/** The rule id a check's name starts with (`RULE-ID: what holds`). */
const ruleIdOf = (name: string) => /^([A-Z]+-\d+): /.exec(name)?.[1] ?? name;

/** The tags of the one check the rebuilt scripts write for an answer's checks: `op: RULE-ID …` (k6/lib/checks.ts). */
function foldedCheckTags(op: string, lines: readonly TemplateLine[]): Record<string, string> {
  const checks = lines.filter((t) => t.metric === 'checks');
  const ids = [...new Set(checks.map((t) => ruleIdOf(t.tags.check ?? '')))];
  return { ...checks[0].tags, check: `${op}: ${ids.join(' ')}` };
}

/** The synthetic record as the k6 scripts would build it (k6/lib/record.ts). */
function k6Record(r: ExchangeRecord, tStart: number, tEnd: number, idOf: (id: string) => string): ExchangeRecord {
  // The synthetic history makes fresh objects for every record: changed in place.
  const x = r;
  x.seq = 0;
  x.scenario = 'mixed';
  x.tIntended = tStart;
  x.tStart = tStart;
  x.wall = tStart;
  x.tEnd = tEnd;
  x.date = Math.floor((tStart + (tEnd - tStart) / 2) / 1000);
  if (x.idemKey !== undefined) x.idemKey = `k6-${x.op}-${hexOf(`${x.idemKey} key`, 32)}`;
  // The same body (a replay) keeps the same digest.
  if (x.bodyDigest !== undefined) x.bodyDigest = hexOf(`${x.bodyDigest} body`, 16);
  if (x.sent.paymentId) x.sent.paymentId = idOf(x.sent.paymentId);
  if (x.payment) {
    x.payment.id = idOf(x.payment.id);
    if (x.payment.refunds) for (const f of x.payment.refunds) Object.assign(f, { id: idOf(f.id), paymentId: idOf(f.paymentId) });
  }
  if (x.refund) Object.assign(x.refund, { id: idOf(x.refund.id), paymentId: idOf(x.refund.paymentId) });
  if (x.list) x.list.ids = x.list.ids.map(idOf);
  return x;
}

/**
 * The recording as the rebuilt scripts would have written the same requests: every Point
 * line's tags cut to K6_SYSTEM_TAGS and `op`, each exchange record re-encoded compactly.
 */
export function rebuildRecording(text: string): string {
  const out: string[] = [];
  type PointLine = { type: string; metric: string; data: { value: number; tags?: Record<string, string>; metadata?: Record<string, string> } };
  // The checks since the last answer, written as one before the next request or iteration end (k6/lib/checks.ts).
  let op = 'setup';
  let checks: PointLine[] = [];
  const flush = () => {
    if (checks.length === 0) return;
    const last = checks[checks.length - 1];
    last.data.tags = tagsFor('rebuilt', foldedCheckTags(op, checks.map((c) => ({ metric: 'checks', tags: c.data.tags ?? {}, value: c.data.value }))));
    last.data.value = Math.min(...checks.map((c) => c.data.value));
    out.push(goEscape(JSON.stringify(last)));
    checks = [];
  };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const o = JSON.parse(line) as PointLine;
    if (o.type !== 'Point') {
      out.push(line);
      continue;
    }
    if (o.metric === 'checks') {
      checks.push(o);
      continue;
    }
    if (o.metric === 'http_reqs' || o.metric === 'data_sent') flush();
    if (o.metric === 'http_reqs') op = o.data.tags?.op ?? op;
    if (o.data.tags) o.data.tags = tagsFor('rebuilt', o.data.tags);
    const rec = o.data.metadata?.paystorm_record;
    if (rec !== undefined) o.data.metadata!.paystorm_record = encodeK6Record(JSON.parse(rec) as ExchangeRecord);
    out.push(goEscape(JSON.stringify(o)));
  }
  flush();
  return out.join('\n') + '\n';
}
