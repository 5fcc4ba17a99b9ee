/**
 * k6 output -> paystorm history (format v1, docs/history-format.md).
 *
 * src/history is the home of the history record format's tools (this converter and the
 * shard merger, merge.ts). What k6 writes and what is read here:
 *
 * - `k6 run --out json=FILE` (or `FILE.gz`, gzipped): NDJSON, one `{"type":"Metric",…}` line
 *   per metric and one `{"type":"Point","data":{"time","value","tags"},"metric"}` line per
 *   sample (k6's documented JSON output). paystorm's k6 scripts (k6/lib/record.ts) add a
 *   Counter `paystorm_exchange` whose points carry, under `paystorm_record` in the point's
 *   metadata (`data.metadata`; a tag of that name is read too), each exchange as a history
 *   exchange record (epoch-ms times; in the compact encoding of k6-record-codec.ts, or as
 *   JSON from scripts built before it), and under `paystorm_run` the run's facts (script, target, presentation, rate limit, key labels). The converter
 *   puts the exchanges on one run clock (0 = the earliest send), numbers them by start,
 *   and adds the run and end records; the oracle then judges them like a paystorm run.
 * - Whether the run is complete: the scripts' teardown() adds one point with `paystorm_end`
 *   (k6/lib/record.ts `recordEnd`, k6/lib/plan.ts): the plan and the wall times of setup's
 *   end and of teardown. k6 runs teardown also after a graceful stop (Ctrl-C, test.abort(),
 *   an abortOnFail threshold), so the marker is there then too; k6-plan.ts judges from it and
 *   the `iterations` points whether the plan ran (the scenario's whole duration, or every
 *   planned iteration). The end record is `complete: true, reason: 'done'` only when it
 *   did; otherwise `complete: false, reason: 'interrupted'` (exit 130): a plan that did not
 *   run; no marker in a
 *   file whose run facts say the script writes one (`endMarker`: cut before teardown, or
 *   killed); and no marker in output of scripts from before the marker (no `endMarker`, like
 *   the real k6 v1.3 sample): nothing tells whether such a run ran its plan, so it cannot
 *   pass (a warning says why). What the marker said is kept in the run record's `facts.k6.end`.
 * - Output of scripts that carried no records (built before the recorder, like the real
 *   k6 v1.3 sample in ../shared/samples/k6): what they carry (requests by op and status,
 *   checks by name with passes and fails, every metric's sample count and sum) goes to the
 *   run record's `facts.k6`; no exchange is invented, so nothing is judged and the verdict
 *   fails ("nothing was checked").
 * - `--summary-export` / handleSummary JSON, an empty or truncated file: refused with
 *   what the file is and what was expected (exit 3).
 */
import { isAscii } from 'node:buffer';
import { createReadStream, closeSync, openSync, readSync, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { basename } from 'node:path';
import { DEFAULT_SETTLE_BOUND_MS, EXIT, PaystormError, OPERATIONS } from '../spec/index.ts';
import { HISTORY_VERSION } from './version.ts';
import { exchangeRecordSchema, type EndRecord, type ExchangeRecord, type HistoryRecord, type KeyInfo, type RunRecord } from './schema.ts';
import { K6_SCRIPT_RULES } from './k6-scripts.ts';
import { judgeK6Plan } from './k6-plan.ts';
import { decodeK6Record } from './k6-record-codec.ts';

export const K6_RECORD_METRIC = 'paystorm_exchange';
export const K6_RECORD_TAG = 'paystorm_record';
export const K6_RUN_TAG = 'paystorm_run';
export const K6_END_TAG = 'paystorm_end';
const SPEC_WINDOW_MS = 60_000;

const EXPECTED_K6 =
  "expected k6's --out json output of a paystorm k6 script (NDJSON of Metric and Point lines, optionally gzipped: k6 run --out json=run.k6.json.gz dist/k6/mixed.js)";

/** What kind of file this is, from its first bytes (gzip is looked into). */
export type K6FileKind = 'k6-json' | 'k6-summary' | null;

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(2);
    return readSync(fd, b, 0, 2, 0) === 2 && b[0] === 0x1f && b[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/** Bytes read and gunzipped at a time: strings of more than ~100 KB are allocated far more slowly than small ones. */
const CHUNK_BYTES = 1 << 16;
/** `…` (U+2026, in key labels) read as Latin-1. */
const ELLIPSIS_LATIN1 = '\u00e2\u0080\u00a6';
const NON_ASCII = /[\u0080-\u00ff]/;

/**
 * The text of buf[start, end): as Latin-1 (a one-byte string: splitting and parsing it is many
 * times faster than the two-byte string UTF-8 makes of text with one `…`) when the bytes are
 * ASCII but for `…`, which is written as its JSON escape (it only occurs inside JSON strings);
 * as UTF-8 otherwise.
 */
function chunkText(buf: Buffer, start: number, end: number): string {
  const latin1 = buf.toString('latin1', start, end);
  if (isAscii(buf.subarray(start, end))) return latin1;
  const escaped = latin1.replaceAll(ELLIPSIS_LATIN1, '\\u2026');
  return NON_ASCII.test(escaped) ? buf.toString('utf8', start, end) : escaped;
}

/**
 * The file's text, a chunk of whole lines at a time (gunzipped when it is gzip; each chunk
 * ends before a newline, the last may end without one); a broken gzip rejects (readline would
 * swallow it). Lines are found in a chunk by position (lineEndIn): a string of its own for
 * every line costs more than reading most of them.
 */
async function* textChunks(path: string): AsyncGenerator<string> {
  const raw = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const input = isGzip(path) ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw;
  raw.on('error', (e) => input.destroy(e));
  // The start of a line that goes on in the next chunk (a `…` may straddle two chunks too).
  let rest: Buffer | null = null;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      const buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      const last = buf.lastIndexOf(10);
      if (last < 0) {
        rest = buf === chunk ? Buffer.from(chunk) : buf;
        continue;
      }
      rest = last + 1 < buf.length ? Buffer.from(buf.subarray(last + 1)) : null;
      yield chunkText(buf, 0, last);
    }
  } finally {
    input.destroy();
  }
  if (rest) yield chunkText(rest, 0, rest.length);
}

/** The end of the line starting at `start` in a chunk (its newline, or the chunk's end). */
function lineEndIn(chunk: string, start: number): number {
  const i = chunk.indexOf('\n', start);
  return i < 0 ? chunk.length : i;
}

/** The file's lines one at a time (the few first lines of a file). */
async function* lines(path: string): AsyncGenerator<string> {
  for await (const chunk of textChunks(path)) {
    for (let start = 0; start <= chunk.length; ) {
      const end = lineEndIn(chunk, start);
      yield chunk.slice(start, end > start && chunk.charCodeAt(end - 1) === 13 ? end - 1 : end);
      start = end + 1;
    }
  }
}

/** Is this k6 output? Reads the first line (of the unzipped text for a .gz). */
export async function k6FileKind(path: string): Promise<K6FileKind> {
  if (!statSync(path).isFile() || statSync(path).size === 0) return null;
  let first = '';
  try {
    for await (const l of lines(path)) {
      if (l.trim() === '') continue;
      first = l.trim();
      break;
    }
  } catch {
    // A broken gzip: judged (and refused) by convertK6 when it looks like k6's.
    return isGzip(path) ? 'k6-json' : null;
  }
  if (/^\{\s*"(type|metric)"\s*:\s*"(Metric|Point|[A-Za-z_][\w.]*)"/.test(first) && /"type"\s*:\s*"(Metric|Point)"/.test(first)) return 'k6-json';
  if (isGzip(path) && first === '') return 'k6-json';
  if (/^\{\s*"(root_group|metrics|state|options)"\s*:/.test(first) || (first === '{' && (await looksLikeSummary(path)))) return 'k6-summary';
  return null;
}

async function looksLikeSummary(path: string): Promise<boolean> {
  let n = 0;
  for await (const l of lines(path)) {
    if (/^\s*"(root_group|metrics)"\s*:/.test(l)) return true;
    if (++n > 50) break;
  }
  return false;
}

/** The refusal for a summary export (aggregates only). */
export function summaryExportError(path: string): PaystormError {
  return new PaystormError(
    `${path}: this is a k6 end-of-test summary (--summary-export or handleSummary JSON): it holds only aggregates (metric totals, check counts), no per-request data to judge; ${EXPECTED_K6}.`,
    EXIT.usage,
    'history',
  );
}

export interface K6Facts {
  /** Point lines read, by metric. */
  points: Record<string, number>;
  /** Sum of each metric's point values. */
  sums: Record<string, number>;
  /** HTTP requests (http_reqs points) by `op status`. */
  requests: Record<string, number>;
  /** k6 checks by name. */
  checks: Record<string, { passes: number; fails: number }>;
  /** Exchange records carried (paystorm_exchange points). */
  records: number;
  /** Distinct `scenario` tags (k6 scenarios). */
  scenarios: string[];
  /** How the run ended, from the end marker (or its absence). */
  end: K6End;
}

/** What the end marker said (k6/lib/plan.ts PlanEvidence), and what the converter made of it. */
export interface K6End {
  /** An end marker was in the file. */
  marker: boolean;
  /** The marker said the test ran its plan (false without a marker). */
  planRan: boolean;
  /** Why the run is not judged complete ('' when it is). */
  why: string;
  /** The marker's evidence as written (null without one). */
  evidence: Record<string, unknown> | null;
  /** The run facts say the script writes a marker (so a missing one means the run was killed before teardown). */
  expected: boolean;
  /** Teardown's wall time minus setup's end, ms (null without a marker, or with several). */
  ranMs: number | null;
  /** Completed iterations k6 wrote (`iterations` points), by scenario tag. */
  iterations: Record<string, number>;
}

export interface K6Conversion {
  records: HistoryRecord[];
  facts: K6Facts;
  /** The scripts' run facts were present. */
  hasRunFacts: boolean;
}

interface RunFacts {
  script?: string;
  target?: string;
  presentation?: 'A' | 'B' | null;
  rateLimit?: { limit: number; windowMs: number } | null;
  windowMs?: number;
  keys?: KeyInfo[];
  cardOutcomes?: string[];
  wall?: number;
  /** The script writes an end marker in teardown(). */
  endMarker?: boolean;
}

function bad(path: string, line: number, what: string): never {
  throw new PaystormError(`${path}:${line}: ${what}; ${EXPECTED_K6}.`, EXIT.usage, 'history');
}

/** The last time converted, and the second (and zone) it falls in: k6 writes many points a second, a request's HTTP points at one time. */
const lastTime = { text: '', ms: NaN, head: '', zone: '', headMs: NaN };
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** Unix ms of k6's RFC 3339 time (nanoseconds kept to the microsecond). */
export function k6TimeMs(t: string): number {
  if (t === lastTime.text) return lastTime.ms;
  const { head, zone } = lastTime;
  // The same second and zone as the last time: only the fraction is read (digits / 10^k is the
  // correctly rounded decimal, so it is exactly what Number() reads).
  if (head !== '' && t.startsWith(head) && t.endsWith(zone) && t.charCodeAt(head.length) === 46) {
    let d = 0;
    let k = 0;
    for (let i = head.length + 1; i < t.length - zone.length; i++) {
      const c = t.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return parseK6Time(t);
      if (k < 6) {
        d = d * 10 + c;
        k++;
      }
    }
    if (k > 0) {
      lastTime.text = t;
      lastTime.ms = lastTime.headMs + (d / POW10[k]) * 1000;
      return lastTime.ms;
    }
  }
  return parseK6Time(t);
}

function parseK6Time(t: string): number {
  const m = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(t);
  if (!m) return NaN;
  if (m[1] !== lastTime.head || m[3] !== lastTime.zone) {
    lastTime.head = m[1];
    lastTime.zone = m[3];
    lastTime.headMs = Date.parse(`${m[1]}${m[3]}`);
  }
  const frac = m[2] ? Number(`0${m[2].slice(0, 7)}`) * 1000 : 0;
  lastTime.text = t;
  lastTime.ms = lastTime.headMs + frac;
  return lastTime.ms;
}

interface PointLine {
  type: 'Point';
  metric: string;
  data: { time: string; value: number; tags: Record<string, string> };
}

const POINT_HEAD = '{"metric":"';
const POINT_TIME = '","type":"Point","data":{"time":"';
const POINT_VALUE = '","value":';
const POINT_TAGS = ',"tags":{';
/** Distinct tag sets remembered (k6 repeats a few on most lines; per-request tags, such as iter, would not repeat). */
const TAG_SETS_MAX = 1024;
/** Digits a value may have to be read here: their integer stays exact in a double. */
const VALUE_DIGITS_MAX = 15;

/**
 * Reads Point lines in the exact shape k6 writes a sample without metadata,
 * `{"metric":"NAME","type":"Point","data":{"time":"TIME","value":NUMBER,"tags":{…}}}`, without
 * parsing the whole line: the parts are found by position, each checked as JSON.parse would
 * check it (the number by its grammar, the tags by JSON.parse, once per distinct text), and the
 * time and tags of the line before are reused when they repeat (a request's HTTP points share
 * both). `read` gives null for any other shape (metadata, an exponent, a brace inside a tag,
 * spaces, a cut line): the caller parses it whole, so what is accepted and refused is as before.
 */
class QuickPoints {
  /** Tag sets seen, by the length of their text (a few share a length): found without cutting the line. */
  private readonly tagSets = new Map<number, { text: string; tags: Record<string, string> }[]>();
  private tagSetCount = 0;
  private lastTime = '';
  private lastTagsText = '';
  private lastTags: Record<string, string> = {};

  /** The Point on the line chunk[start, end), or null. */
  read(chunk: string, start: number, end: number): PointLine | null {
    if (end - start < POINT_HEAD.length + POINT_TIME.length || !chunk.startsWith(POINT_HEAD, start) || chunk.charCodeAt(end - 1) !== 125 || chunk.charCodeAt(end - 2) !== 125 || chunk.charCodeAt(end - 3) !== 125) return null;
    const nameEnd = chunk.indexOf('"', start + POINT_HEAD.length);
    if (nameEnd < 0 || nameEnd >= end || !chunk.startsWith(POINT_TIME, nameEnd)) return null;
    const metric = chunk.slice(start + POINT_HEAD.length, nameEnd);
    // An escape in the name: its first quote may not end it.
    if (metric.indexOf('\\') >= 0) return null;
    const timeStart = nameEnd + POINT_TIME.length;
    let time = this.lastTime;
    if (!(time !== '' && chunk.startsWith(time, timeStart) && chunk.startsWith(POINT_VALUE, timeStart + time.length))) {
      const timeEnd = chunk.indexOf('"', timeStart);
      if (timeEnd < 0 || timeEnd >= end || !chunk.startsWith(POINT_VALUE, timeEnd)) return null;
      time = chunk.slice(timeStart, timeEnd);
      if (time.indexOf('\\') >= 0) return null;
      this.lastTime = time;
    }
    // The value: JSON's number grammar without an exponent, up to VALUE_DIGITS_MAX digits.
    let i = timeStart + time.length + POINT_VALUE.length;
    const negative = chunk.charCodeAt(i) === 45;
    if (negative) i++;
    let digits = 0;
    let n = 0;
    let c = chunk.charCodeAt(i) - 48;
    if (c === 0) {
      i++;
      digits++;
    } else if (c > 0 && c <= 9) {
      for (; c >= 0 && c <= 9; c = chunk.charCodeAt(++i) - 48) {
        n = n * 10 + c;
        digits++;
      }
    } else return null;
    let k = 0;
    if (chunk.charCodeAt(i) === 46) {
      for (c = chunk.charCodeAt(++i) - 48; c >= 0 && c <= 9; c = chunk.charCodeAt(++i) - 48) {
        n = n * 10 + c;
        k++;
      }
      if (k === 0) return null;
    }
    if (digits + k > VALUE_DIGITS_MAX || !chunk.startsWith(POINT_TAGS, i)) return null;
    // digits / 10^k: the correctly rounded decimal, exactly what JSON.parse reads.
    const value = negative ? -(n / POW10[k]) : n / POW10[k];
    const tagsStart = i + POINT_TAGS.length - 1;
    const tagsLength = end - 2 - tagsStart;
    if (tagsLength < 2) return null;
    let tags = this.lastTags;
    if (!(this.lastTagsText.length === tagsLength && chunk.startsWith(this.lastTagsText, tagsStart))) {
      const sameLength = this.tagSets.get(tagsLength);
      let known: { text: string; tags: Record<string, string> } | undefined;
      if (sameLength !== undefined) {
        for (let j = 0; j < sameLength.length && known === undefined; j++) if (chunk.startsWith(sameLength[j].text, tagsStart)) known = sameLength[j];
      }
      if (known !== undefined) {
        tags = known.tags;
        this.lastTagsText = known.text;
      } else {
        const tagsText = chunk.slice(tagsStart, end - 2);
        if (tagsText.indexOf('{', 1) >= 0 || tagsText.indexOf('}') !== tagsText.length - 1) return null;
        let parsed: unknown;
        try {
          parsed = JSON.parse(tagsText);
        } catch {
          return null;
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null;
        if (this.tagSetCount >= TAG_SETS_MAX) {
          this.tagSets.clear();
          this.tagSetCount = 0;
        }
        tags = Object.freeze(parsed as Record<string, string>);
        const list = this.tagSets.get(tagsLength) ?? [];
        list.push({ text: tagsText, tags });
        this.tagSets.set(tagsLength, list);
        this.tagSetCount++;
        this.lastTagsText = tagsText;
      }
      this.lastTags = tags;
    }
    return { type: 'Point', metric, data: { time, value, tags } };
  }
}

function labelKey(label: string): KeyInfo {
  const m = /^([^/]+)\/(test|live)\/…?(.*)$/.exec(label);
  return { label, merchant: m?.[1] ?? label, mode: m?.[2] === 'live' ? 'live' : 'test', prefix: '', last4: m?.[3] ?? '' };
}

const OPS = new Set<string>(OPERATIONS);

/** Reads a k6 --out json file (plain or gzipped) and converts it to history records. */
export async function convertK6(path: string, opts: { onWarning?: (m: string) => void } = {}): Promise<K6Conversion> {
  const facts: K6Facts = { points: {}, sums: {}, requests: {}, checks: {}, records: 0, scenarios: [], end: { marker: false, planRan: false, why: '', evidence: null, expected: false, ranMs: null, iterations: {} } };
  const markers: Record<string, unknown>[] = [];
  const exchanges: ExchangeRecord[] = [];
  const scenarios = new Set<string>();
  let run: RunFacts | null = null;
  let n = 0;
  let nonEmpty = 0;
  let pendingBad: { line: number; text: string } | null = null;
  let dropped = 0;
  const iterations: Record<string, number> = {};
  let firstPointMs = Infinity;
  let lastPointMs = -Infinity;
  const quick = new QuickPoints();
  try {
    for await (const chunk of textChunks(path)) for (let start = 0, end = 0; start <= chunk.length; start = end + 1) {
      end = lineEndIn(chunk, start);
      const lineEnd = end > start && chunk.charCodeAt(end - 1) === 13 ? end - 1 : end;
      n++;
      let o: { type?: unknown; metric?: unknown; data?: { time?: unknown; value?: unknown; tags?: Record<string, string> | null; metadata?: Record<string, string> | null } } | null = quick.read(chunk, start, lineEnd);
      // The line as a string of its own only when it is read whole.
      const text = o === null ? chunk.slice(start, lineEnd) : '';
      if (o === null && text.trim() === '') continue;
      if (pendingBad) bad(path, pendingBad.line, `not a JSON line (${JSON.stringify(pendingBad.text.slice(0, 60))}) in the middle of the file`);
      if (o === null) {
        try {
          o = JSON.parse(text);
        } catch {
          pendingBad = { line: n, text };
          continue;
        }
      }
      nonEmpty++;
      if (o === null || typeof o !== 'object' || (o.type !== 'Metric' && o.type !== 'Point') || typeof o.metric !== 'string') {
        bad(path, n, `not a k6 Metric or Point line (${text.slice(0, 60)}…)`);
      }
      if (o.type === 'Metric') continue;
      const d = o.data;
      if (!d || typeof d.time !== 'string' || typeof d.value !== 'number') bad(path, n, 'a Point line without data.time and a numeric data.value');
      const name = o.metric;
      const tMs = k6TimeMs(d.time);
      if (Number.isFinite(tMs)) {
        firstPointMs = Math.min(firstPointMs, tMs);
        lastPointMs = Math.max(lastPointMs, tMs);
      }
      facts.points[name] = (facts.points[name] ?? 0) + 1;
      facts.sums[name] = (facts.sums[name] ?? 0) + d.value;
      const tags = d.tags ?? {};
      if (tags.scenario) scenarios.add(tags.scenario);
      if (name === 'http_reqs') {
        const k = `${tags.op ?? tags.name ?? tags.url ?? '?'} ${tags.status ?? '?'}`;
        facts.requests[k] = (facts.requests[k] ?? 0) + d.value;
      } else if (name === 'checks' && tags.check) {
        const c = (facts.checks[tags.check] ??= { passes: 0, fails: 0 });
        if (d.value > 0) c.passes++;
        else c.fails++;
      } else if (name === 'iterations') {
        // One point per completed iteration: the evidence that an iteration-based plan ran.
        const sc = tags.scenario ?? '';
        iterations[sc] = (iterations[sc] ?? 0) + d.value;
      } else if (name === 'dropped_iterations') {
        dropped += d.value;
      } else if (name === K6_RECORD_METRIC) {
        const rec = tags[K6_RECORD_TAG] ?? d.metadata?.[K6_RECORD_TAG];
        const runText = tags[K6_RUN_TAG] ?? d.metadata?.[K6_RUN_TAG];
        const endText = tags[K6_END_TAG] ?? d.metadata?.[K6_END_TAG];
        if (endText !== undefined) {
          let m: unknown;
          try {
            m = JSON.parse(endText);
          } catch {
            bad(path, n, `the ${K6_END_TAG} tag is not JSON`);
          }
          if (m === null || typeof m !== 'object' || Array.isArray(m)) bad(path, n, `the ${K6_END_TAG} tag is not a JSON object`);
          markers.push(m as Record<string, unknown>);
        } else if (rec !== undefined) {
          let x: unknown;
          try {
            x = decodeK6Record(rec);
          } catch (e) {
            bad(path, n, `the ${K6_RECORD_TAG} tag is not a JSON or compact exchange record (${(e as Error).message})`);
          }
          const parsed = exchangeRecordSchema.safeParse(x);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            bad(path, n, `the ${K6_RECORD_TAG} tag is not a history exchange record (${issue.path.join('.') || 'record'}: ${issue.message})`);
          }
          exchanges.push(parsed.data);
          facts.records++;
        } else if (runText !== undefined && run === null) {
          try {
            run = JSON.parse(runText) as RunFacts;
          } catch {
            bad(path, n, `the ${K6_RUN_TAG} tag is not JSON`);
          }
        }
      }
    }
  } catch (e) {
    if (e instanceof PaystormError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new PaystormError(`${path}: the file is cut short or corrupt (${msg}) after ${n} lines; ${EXPECTED_K6}. A k6 run that was killed leaves its gzip unfinished: judge a complete file.`, EXIT.usage, 'history');
  }
  if (pendingBad) {
    throw new PaystormError(
      `${path}:${pendingBad.line}: the last line is cut short (${JSON.stringify(pendingBad.text.slice(0, 60))}): k6 did not finish writing this file (killed, or still running), so what it recorded last is missing; ${EXPECTED_K6}.`,
      EXIT.usage,
      'history',
    );
  }
  if (nonEmpty === 0) {
    throw new PaystormError(`${path}: the file is empty: k6 wrote no Metric or Point line (did the run start?); ${EXPECTED_K6}.`, EXIT.usage, 'history');
  }
  facts.scenarios = [...scenarios].sort();
  const runFacts: RunFacts = run ?? {};
  facts.end = endOf(markers, runFacts, run !== null, iterations);
  if (!facts.end.planRan) opts.onWarning?.(`${basename(path)}: judged incomplete (interrupted, exit 130): ${facts.end.why}.`);
  if (!run && exchanges.length === 0) {
    opts.onWarning?.(
      `${basename(path)}: k6 output without paystorm exchange records (a script built before the recorder, or not one of paystorm's): nothing can be judged. Rebuild the bundles (npm run k6:build) and run again with --out json.`,
    );
  }

  exchanges.sort((a, b) => a.tStart - b.tStart || a.tEnd - b.tEnd);
  const origin = Math.min(exchanges.length ? exchanges[0].tStart : Infinity, runFacts.wall ?? Infinity, firstPointMs);
  const originMs = Number.isFinite(origin) ? origin : 0;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  let seq = 0;
  let tEndMax = 0;
  let learnedLimit: number | null = null;
  const labels = new Set<string>();
  for (const x of exchanges) {
    x.seq = ++seq;
    x.tIntended = round(x.tIntended - originMs);
    x.tStart = round(x.tStart - originMs);
    x.tEnd = round(x.tEnd - originMs);
    tEndMax = Math.max(tEndMax, x.tEnd);
    labels.add(x.key);
    if (x.rate?.limit != null && (learnedLimit === null || x.rate.limit > learnedLimit)) learnedLimit = x.rate.limit;
    if (!OPS.has(x.op)) x.op = 'raw';
  }
  if (Number.isFinite(lastPointMs)) tEndMax = Math.max(tEndMax, round(lastPointMs - originMs));

  const script = runFacts.script ?? (exchanges[0]?.scenario || facts.scenarios[0] || 'k6');
  const keys: KeyInfo[] = runFacts.keys?.length ? runFacts.keys : [...labels].sort().map(labelKey);
  const windowMs = runFacts.rateLimit?.windowMs ?? runFacts.windowMs ?? SPEC_WINDOW_MS;
  const rateLimit = runFacts.rateLimit ?? (learnedLimit !== null ? { limit: learnedLimit, windowMs } : null);
  const scriptsSeen = [...new Set(exchanges.map((x) => x.scenario))];
  if (scriptsSeen.length === 0) scriptsSeen.push(script);
  const runRecord: RunRecord = {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: `k6-${script}-${new Date(originMs).toISOString().replace(/[:.]/g, '-')}`,
    wall: originMs,
    target: { url: runFacts.target ?? 'unknown (k6 output without run facts)', embedded: false, presentation: runFacts.presentation ?? null },
    rateLimit,
    keys,
    // Only scripts that recorded exchanges declare rules: an old output that carries none judges nothing, and fails.
    scenarios: scriptsSeen.map((name) => ({ name, rules: facts.records > 0 ? [...(K6_SCRIPT_RULES[name] ?? [])] : [] })),
    seed: 0,
    timeScale: 1,
    settleBoundMs: DEFAULT_SETTLE_BOUND_MS,
    webhooks: null,
    cardOutcomes: (runFacts.cardOutcomes ?? []).filter((c): c is RunRecord['cardOutcomes'][number] =>
      ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge', 'upstream_error'].includes(c),
    ),
    facts: { source: 'k6', file: basename(path), k6: facts },
  };
  const end: EndRecord = {
    v: HISTORY_VERSION,
    kind: 'end',
    tEnd: tEndMax,
    wall: originMs + tEndMax,
    complete: facts.end.planRan,
    reason: facts.end.planRan ? 'done' : 'interrupted',
    requests: exchanges.length,
    dropped,
  };
  return { records: [runRecord, ...exchanges, end], facts, hasRunFacts: run !== null };
}

/**
 * The run's end from its end markers, judged with the stream's facts (k6-plan.ts): complete
 * only when there is a marker and, by each one, the plan ran.
 */
function endOf(markers: Record<string, unknown>[], run: RunFacts, hasRunFacts: boolean, iterations: Readonly<Record<string, number>>): K6End {
  const expected = run.endMarker === true || markers.length > 0;
  if (markers.length > 0) {
    const judged = markers.map((m) => judgeK6Plan(m, typeof run.wall === 'number' ? run.wall : null, iterations));
    const evidence = markers.length === 1 ? markers[0] : { markers };
    const facts = { ranMs: judged.length === 1 ? judged[0].ranMs : null, iterations: { ...iterations } };
    const notRan = judged.filter((j) => !j.planRan);
    if (notRan.length === 0) return { marker: true, planRan: true, why: '', evidence, expected, ...facts };
    const why = notRan.map((j) => j.why).join('; ');
    return { marker: true, planRan: false, why: `the test did not run its plan (${why}): stopped early (an interrupt such as Ctrl-C or SIGINT, test.abort(), an abortOnFail threshold, maxDuration)`, evidence, expected, ...facts };
  }
  const why = run.endMarker
    ? 'no end marker, though the script writes one in teardown(): the run stopped before teardown (killed, --no-teardown, or the file was cut)'
    : hasRunFacts
      ? 'no end marker: the scripts that wrote this file predate it (rebuild the bundles: npm run k6:build), so nothing tells whether the run ran its plan or was cut short'
      : 'no end marker (k6 output of scripts from before the marker, or not paystorm\'s): nothing tells whether the run ran its plan or was cut short';
  return { marker: false, planRan: false, why, evidence: null, expected, ranMs: null, iterations: { ...iterations } };
}

/** Records as history.ndjson text. */
export function toNdjson(records: readonly HistoryRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
