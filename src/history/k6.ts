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
 *
 * How (a fleet's hour is a million exchanges and some fifteen million lines): readK6 reads every
 * line once, in place on the bytes where it can (k6-lines.ts; any other line by JSON.parse, so
 * what is accepted and refused is the same), and keeps each exchange record as the bytes of its
 * JSON string with what it is sorted and summarised by (k6RecordHead); records() decodes them in
 * start order and parses each with a parse compiled from the schema (schema-check.ts; zod for
 * what that parse does not know), so the oracle can read them without the million held as
 * objects. A record that is no plain compact one is checked whole as it is read; a plain one
 * when it is decoded (the same error, naming its line). A `follower` (K6Follower) is told the
 * exchanges in start order while the file is still being read (k6-follow.ts: a window, since
 * k6 writes a record when its exchange ends), so `paystorm check` judges on a second core
 * meanwhile; whatever the file does that the window did not foresee, it is told to abandon and
 * the records are judged from records() instead.
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { DEFAULT_SETTLE_BOUND_MS, EXIT, PaystormError, OPERATIONS } from '../spec/index.ts';
import { HISTORY_VERSION } from './version.ts';
import { exchangeRecordSchema, type EndRecord, type ExchangeRecord, type HistoryRecord, type KeyInfo, type RunRecord } from './schema.ts';
import { K6_SCRIPT_RULES } from './k6-scripts.ts';
import { judgeK6Plan } from './k6-plan.ts';
import { decodeK6Record, k6RecordHead, k6RecordHeadOfLiteral, type K6RecordHead } from './k6-record-codec.ts';
import { isGzip, lineChunks, lineText, literalText, PointBytes, TextArena, type MetricName, type TagSet } from './k6-lines.ts';
import { compileFastParse, NOT_SURE } from './schema-check.ts';
import { StartOrderWindow } from './k6-follow.ts';

export const K6_RECORD_METRIC = 'paystorm_exchange';
export const K6_RECORD_TAG = 'paystorm_record';
export const K6_RUN_TAG = 'paystorm_run';
export const K6_END_TAG = 'paystorm_end';
const SPEC_WINDOW_MS = 60_000;

const EXPECTED_K6 =
  "expected k6's --out json output of a paystorm k6 script (NDJSON of Metric and Point lines, optionally gzipped: k6 run --out json=run.k6.json.gz dist/k6/mixed.js)";

/** What kind of file this is, from its first bytes (gzip is looked into). */
export type K6FileKind = 'k6-json' | 'k6-summary' | null;

/** The file's lines one at a time (the few first lines of a file). */
async function* lines(path: string): AsyncGenerator<string> {
  for await (const chunk of lineChunks(path)) {
    for (let start = 0; start < chunk.length; ) {
      let end = chunk.indexOf(10, start);
      if (end < 0) end = chunk.length;
      yield lineText(chunk, start, end > start && chunk[end - 1] === 13 ? end - 1 : end);
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

/**
 * A k6 output file read (readK6): its run and end records, and its exchanges, decoded in start
 * order each time `records()` is iterated (they are kept as their compact text until then).
 */
export interface K6Run {
  run: RunRecord;
  end: EndRecord;
  /** Exchange records the file carries. */
  exchanges: number;
  /** The run record, the exchanges by start (seq 1, 2, …, on the run clock), the end record. */
  records(): Generator<HistoryRecord>;
  facts: K6Facts;
  /** The scripts' run facts were present. */
  hasRunFacts: boolean;
  /** records() can decode the exchanges: false when a follower was handed them as they were read (read the file again for them). */
  kept: boolean;
  /** The run clock's origin (epoch ms): records() puts the exchanges' times on it. */
  originMs: number;
  /**
   * The text exchange `seq` of records() is decoded from, handed to `use` as its JSON string
   * literal's bytes, buf[start, end), and its line: `k6ExchangeOfText(path, literalText(buf, start,
   * end), line, seq, originMs)` gives the same record again (a merge keeps shards so: a few hundred
   * bytes a record, and decoded faster than any serialization of the object). Only when kept.
   */
  exchangeText<T>(seq: number, use: (buf: Buffer, start: number, end: number, line: number) => T): T;
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

function labelKey(label: string): KeyInfo {
  const m = /^([^/]+)\/(test|live)\/…?(.*)$/.exec(label);
  return { label, merchant: m?.[1] ?? label, mode: m?.[2] === 'live' ? 'live' : 'test', prefix: '', last4: m?.[3] ?? '' };
}

const OPS = new Set<string>(OPERATIONS);

/** A metric's counts (facts.points, facts.sums) and which of the metrics the converter reads more of it is. */
interface MetricCounts {
  name: string;
  points: number;
  sum: number;
  kind: 'http_reqs' | 'checks' | 'iterations' | 'dropped_iterations' | 'record' | 'other';
}

const METRIC_KINDS: Record<string, MetricCounts['kind']> = {
  http_reqs: 'http_reqs',
  checks: 'checks',
  iterations: 'iterations',
  dropped_iterations: 'dropped_iterations',
  [K6_RECORD_METRIC]: 'record',
};

/** What the converter reads from a tag set, worked out once per distinct set. */
interface TagFacts {
  tags: Readonly<Record<string, string>>;
  /** facts.requests' key of an http_reqs point. */
  request: string;
  /** The tags carry a record, run facts or an end marker themselves (read before the metadata). */
  carries: boolean;
}

function tagFactsOf(tags: Readonly<Record<string, string>>): TagFacts {
  return {
    tags,
    request: `${tags.op ?? tags.name ?? tags.url ?? '?'} ${tags.status ?? '?'}`,
    carries: tags[K6_RECORD_TAG] !== undefined || tags[K6_RUN_TAG] !== undefined || tags[K6_END_TAG] !== undefined,
  };
}

/** The schema's parse of a decoded record without zod's cost when it surely holds (schema-check.ts). */
const fastExchange = compileFastParse(exchangeRecordSchema);

/**
 * Follows a k6 file's exchanges in start order while it is still being read, so a judge can
 * start before the last line (`paystorm check` judges on a second core meanwhile). The reader
 * foresees the run record once the scripts' run facts are read, and hands each exchange on once
 * the records read since are far enough past its start that no later one can start before it
 * (k6 writes a record when its exchange ends). When the file does not keep to that (a record
 * starting before one already handed on, a run record other than foreseen), the follower is
 * told to abandon, and the caller judges the records as `records()` gives them instead: the
 * same verdict either way.
 */
export interface K6Follower {
  /** The run record as foreseen (its `facts` are filled at `finish`), and the run clock's origin (epoch ms). */
  start(run: RunRecord, originMs: number): void;
  /** The next exchange in start order: its record's text as a JSON string literal, buf[start, end), from line `line`. */
  exchange(buf: Buffer, start: number, end: number, line: number): void;
  /** The file ended as foreseen: the run record's facts, and the end record. */
  finish(facts: RunRecord['facts'], end: EndRecord): void;
  /** The file did not go as foreseen: what was handed on is not the run's order or run record. */
  abandon(why: string): void;
}

/**
 * How far (ms) the latest exchange end read must be past an exchange's start before it is handed
 * on: twice the scripts' default request timeout (k6/lib/api.ts, 30 s). An exchange longer than
 * that (a larger REQUEST_TIMEOUT) only costs the judging after the read.
 */
export const FOLLOW_WINDOW_MS = 60_000;

export interface ConvertK6Options {
  onWarning?: (m: string) => void;
  /** Read every line with JSON.parse (tests compare the in-place reader with it). */
  parseEveryLine?: boolean;
  /** Told the exchanges in start order while the file is read (K6Follower). */
  follower?: K6Follower;
  /** The follower's window (ms; default FOLLOW_WINDOW_MS). */
  followWindowMs?: number;
  /** Told after each chunk of the file: the lines read so far and the file's bytes read (compressed, for a gzipped file). */
  onRead?: (lines: number, bytesRead: number) => void;
}

/** Reads a k6 --out json file (plain or gzipped) and converts it to history records (all in memory: readK6 for large files). */
export async function convertK6(path: string, opts: ConvertK6Options = {}): Promise<K6Conversion> {
  const k6 = await readK6(path, opts);
  return { records: [...k6.records()], facts: k6.facts, hasRunFacts: k6.hasRunFacts };
}

/**
 * Reads a k6 --out json file (plain or gzipped): every line is read and checked now (a bad one
 * is refused, naming it); the exchange records are kept as their text, with what they are
 * sorted and summarised by (k6RecordHead), and decoded whole again when `records()` is read.
 */
export async function readK6(path: string, opts: ConvertK6Options = {}): Promise<K6Run> {
  const facts: K6Facts = { points: {}, sums: {}, requests: {}, checks: {}, records: 0, scenarios: [], end: { marker: false, planRan: false, why: '', evidence: null, expected: false, ranMs: null, iterations: {} } };
  const markers: Record<string, unknown>[] = [];
  // The exchange records: their text (as a JSON string literal), line, start and end (epoch ms), and script (an index into scripts).
  const texts = new TextArena();
  const recordLines: number[] = [];
  const tStarts: number[] = [];
  const tEnds: number[] = [];
  const recordScripts: number[] = [];
  const scripts: string[] = [];
  const labels = new Set<string>();
  let learnedLimit: number | null = null;
  /** Some records' rate limits were not read (k6RecordHeadOfLiteral): read at the end if the run facts have none. */
  let unreadLimits = false;
  const scenarios = new Set<string>();
  let run: RunFacts | null = null;
  let n = 0;
  let nonEmpty = 0;
  let pendingBad: { line: number; text: string } | null = null;
  let dropped = 0;
  const iterations: Record<string, number> = {};
  let firstPointMs = Infinity;
  let lastPointMs = -Infinity;
  const counts = new Map<string, MetricCounts>();
  const countsOf = (name: string): MetricCounts => {
    let c = counts.get(name);
    if (c === undefined) counts.set(name, (c = { name, points: 0, sum: 0, kind: METRIC_KINDS[name] ?? 'other' }));
    return c;
  };

  /** An exchange record's head, for sorting and the run record; its text goes to `texts` beside it (as a JSON string literal). */
  const keep = (head: K6RecordHead): void => {
    recordLines.push(n);
    tStarts.push(head.tStart);
    tEnds.push(head.tEnd);
    let script = scripts.indexOf(head.scenario);
    if (script < 0) script = scripts.push(head.scenario) - 1;
    recordScripts.push(script);
    labels.add(head.key);
    if (head.rateLimit === undefined) unreadLimits = true;
    else if (head.rateLimit !== null && (learnedLimit === null || head.rateLimit > learnedLimit)) learnedLimit = head.rateLimit;
    facts.records++;
  };
  /** The record of a point the in-place reader read: its literal's bytes are kept as they are. */
  const recordBytes = (buf: Buffer, start: number, end: number, t: TagFacts): void => {
    const head = t.carries ? null : k6RecordHeadOfLiteral(buf, start, end, interned);
    if (head === null) {
      carried(t.tags, { [K6_RECORD_TAG]: JSON.parse(lineText(buf, start, end)) as string });
      return;
    }
    keep(head);
    if (ahead === null) texts.addBytes(buf, start, end);
    else followed(buf.subarray(start, end));
  };
  /**
   * A record read while a follower is under way: its text is held only until it is handed on
   * (a fleet's million records are a gigabyte; the file is read again if the follower gives up).
   */
  const followed = (text: Buffer): void => {
    const i = tStarts.length - 1;
    pending[i] = Buffer.from(text);
    ahead!.window.add(i);
  };

  /** A `paystorm_exchange` point: an exchange record, the run facts or an end marker. */
  const carried = (tags: Readonly<Record<string, string>>, metadata: Readonly<Record<string, string>> | null | undefined): void => {
    const rec = tags[K6_RECORD_TAG] ?? metadata?.[K6_RECORD_TAG];
    const runText = tags[K6_RUN_TAG] ?? metadata?.[K6_RUN_TAG];
    const endText = tags[K6_END_TAG] ?? metadata?.[K6_END_TAG];
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
      // A plain compact record is checked whole when it is decoded (records()); any other now.
      keep(k6RecordHead(rec) ?? headOf(exchangeOf(path, rec, n)));
      if (ahead === null) texts.add(JSON.stringify(rec));
      else followed(Buffer.from(JSON.stringify(rec)));
    } else if (runText !== undefined && run === null) {
      try {
        run = JSON.parse(runText) as RunFacts;
      } catch {
        bad(path, n, `the ${K6_RUN_TAG} tag is not JSON`);
      }
      if (opts.follower) ahead = follow(opts.follower, run);
    }
  };

  /** What every Point adds to the facts; `metadata` is the point's when its line was read whole (a record the in-place reader found is at quick.recordStart…recordEnd). */
  const point = (c: MetricCounts, tMs: number, value: number, t: TagFacts, metadata: Readonly<Record<string, string>> | null | undefined): void => {
    if (Number.isFinite(tMs)) {
      if (tMs < firstPointMs) firstPointMs = tMs;
      if (tMs > lastPointMs) lastPointMs = tMs;
    }
    c.points++;
    c.sum += value;
    const tags = t.tags;
    switch (c.kind) {
      case 'http_reqs':
        facts.requests[t.request] = (facts.requests[t.request] ?? 0) + value;
        break;
      case 'checks':
        if (tags.check) {
          const k = (facts.checks[tags.check] ??= { passes: 0, fails: 0 });
          if (value > 0) k.passes++;
          else k.fails++;
        }
        break;
      case 'iterations': {
        // One point per completed iteration: the evidence that an iteration-based plan ran.
        const sc = tags.scenario ?? '';
        iterations[sc] = (iterations[sc] ?? 0) + value;
        break;
      }
      case 'dropped_iterations':
        dropped += value;
        break;
      case 'record':
        if (quickRecord) recordBytes(quickBuf!, quick.recordStart, quick.recordEnd, t);
        else carried(tags, metadata);
        break;
      default:
    }
  };

  /** The follower, once the run facts let the run record be foreseen. */
  let ahead: Following | null = null;
  /** While following: the texts of the records not yet handed on, by record index (an array, not a Map: a million records pass through it). */
  const pending: (Buffer | null)[] = [];
  /** Starts the follower on the run record the run facts foresee (none when they leave it open: it is judged after the read). */
  const follow = (follower: K6Follower, f: RunFacts | null): Following | null => {
    if (!f || typeof f.script !== 'string' || !f.keys?.length || typeof f.wall !== 'number') return null;
    let originMs = Math.min(f.wall, firstPointMs);
    for (const t of tStarts) if (t < originMs) originMs = t;
    // Foreseen: this script's exchanges alone; the facts are the file's at the end.
    const foreseen = runRecordOf({ path, runFacts: f, originMs, scriptsSeen: [f.script], otherScript: undefined, labels, learnedLimit, facts: { ...facts, records: 1 } });
    const window = new StartOrderWindow(tStarts, tEnds, opts.followWindowMs ?? FOLLOW_WINDOW_MS, (i) => {
      const text = pending[i]!;
      pending[i] = null;
      follower.exchange(text, 0, text.length, recordLines[i]);
    });
    follower.start(foreseen, originMs);
    // The records read before the run facts: held as the ones to come.
    for (let i = 0; i < texts.length; i++) texts.bytesOf(i, (chunk, start, end) => (pending[i] = Buffer.from(chunk.subarray(start, end))));
    for (let i = 0; i < texts.length; i++) window.add(i);
    return { follower, window, run: foreseen, originMs };
  };
  const quick = new PointBytes(k6TimeMs, K6_RECORD_METRIC);
  // The line `point` is given: the in-place reader's (its record's bytes in quickBuf), or one read whole.
  let quickBuf: Buffer | null = null;
  let quickRecord = false;
  const interned = internedText();
  const parseEveryLine = opts.parseEveryLine === true;
  try {
    const read = { bytes: () => 0 };
    for await (const chunk of lineChunks(path, undefined, read)) {
      opts.onRead?.(n, read.bytes());
      for (let start = 0; start < chunk.length; ) {
        let end = chunk.indexOf(10, start);
        if (end < 0) end = chunk.length;
        const lineEnd = end > start && chunk[end - 1] === 13 ? end - 1 : end;
        const lineStart = start;
        start = end + 1;
        n++;
        if (!parseEveryLine && quick.read(chunk, lineStart, lineEnd)) {
          if (pendingBad) bad(path, pendingBad.line, `not a JSON line (${JSON.stringify(pendingBad.text.slice(0, 60))}) in the middle of the file`);
          nonEmpty++;
          const m: MetricName = quick.metric;
          if (m.slot === undefined) m.slot = countsOf(m.name);
          const ts: TagSet = quick.tags;
          if (ts.slot === undefined) {
            ts.slot = tagFactsOf(ts.tags);
            if (ts.tags.scenario) scenarios.add(ts.tags.scenario);
          }
          quickBuf = chunk;
          quickRecord = quick.recordStart >= 0;
          point(m.slot as MetricCounts, quick.timeMs, quick.value, ts.slot as TagFacts, null);
          continue;
        }
        // Any other line is read whole.
        const text = lineText(chunk, lineStart, lineEnd);
        if (text.trim() === '') continue;
        if (pendingBad) bad(path, pendingBad.line, `not a JSON line (${JSON.stringify(pendingBad.text.slice(0, 60))}) in the middle of the file`);
        let o: { type?: unknown; metric?: unknown; data?: { time?: unknown; value?: unknown; tags?: Record<string, string> | null; metadata?: Record<string, string> | null } } | null;
        try {
          o = JSON.parse(text);
        } catch {
          pendingBad = { line: n, text };
          continue;
        }
        nonEmpty++;
        if (o === null || typeof o !== 'object' || (o.type !== 'Metric' && o.type !== 'Point') || typeof o.metric !== 'string') {
          bad(path, n, `not a k6 Metric or Point line (${text.slice(0, 60)}…)`);
        }
        if (o.type === 'Metric') continue;
        const d = o.data;
        if (!d || typeof d.time !== 'string' || typeof d.value !== 'number') bad(path, n, 'a Point line without data.time and a numeric data.value');
        const tags = d.tags ?? {};
        if (tags.scenario) scenarios.add(tags.scenario);
        quickRecord = false;
        point(countsOf(o.metric), k6TimeMs(d.time), d.value, tagFactsOf(tags), d.metadata);
      }
    }
  } catch (e) {
    if (e instanceof PaystormError) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw new PaystormError(`${path}: the file is cut short or corrupt (${msg}) after ${n} lines; ${EXPECTED_K6}. A k6 run that was killed leaves its gzip unfinished: judge a complete file.`, EXIT.usage, 'history');
  }
  for (const c of counts.values()) {
    facts.points[c.name] = c.points;
    facts.sums[c.name] = c.sum;
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
  if (!run && facts.records === 0) {
    opts.onWarning?.(
      `${basename(path)}: k6 output without paystorm exchange records (a script built before the recorder, or not one of paystorm's): nothing can be judged. Rebuild the bundles (npm run k6:build) and run again with --out json.`,
    );
  }

  // (read through a cast: TypeScript cannot see the closures that set it)
  const following = ahead as Following | null;
  /** The follower gave up: the records it was handed are read again, kept this time, without it. */
  const readAgain = (why: string | null): Promise<K6Run> => {
    if (why !== null) following!.follower.abandon(why);
    return readK6(path, { ...opts, follower: undefined, onWarning: undefined });
  };
  // Rate limits the quick head did not read, when the run facts do not say the limit.
  if (following !== null && unreadLimits && !runFacts.rateLimit) return readAgain('the rate limit is to be learned from the records\' texts');
  if (unreadLimits && !runFacts.rateLimit) {
    for (let i = 0; i < texts.length; i++) {
      const limit = recordLimit(path, texts.bytesOf(i, literalText), recordLines[i]);
      if (limit !== null && (learnedLimit === null || limit > learnedLimit)) learnedLimit = limit;
    }
  }
  // By start (then end), as paystorm numbers exchanges; a stable sort keeps the file's order of ties.
  const order = Array.from(tStarts, (_, i) => i).sort((i, j) => tStarts[i] - tStarts[j] || tEnds[i] - tEnds[j]);
  const origin = Math.min(order.length ? tStarts[order[0]] : Infinity, runFacts.wall ?? Infinity, firstPointMs);
  const originMs = Number.isFinite(origin) ? origin : 0;
  const round = roundMicros;
  // The latest end on the run clock (rounding keeps the order of ends).
  let tEndMax = 0;
  if (order.length) tEndMax = Math.max(0, round(tEnds.reduce((m, t) => (t > m ? t : m), -Infinity) - originMs));
  if (Number.isFinite(lastPointMs)) tEndMax = Math.max(tEndMax, round(lastPointMs - originMs));

  // The scripts in the order their first exchange started.
  const scriptsSeen: string[] = [];
  for (const i of order) {
    const name = scripts[recordScripts[i]];
    if (scriptsSeen.length === scripts.length) break;
    if (!scriptsSeen.includes(name)) scriptsSeen.push(name);
  }
  const runRecord = runRecordOf({ path, runFacts, originMs, scriptsSeen, otherScript: facts.scenarios[0], labels, learnedLimit, facts });
  const end: EndRecord = {
    v: HISTORY_VERSION,
    kind: 'end',
    tEnd: tEndMax,
    wall: originMs + tEndMax,
    complete: facts.end.planRan,
    reason: facts.end.planRan ? 'done' : 'interrupted',
    requests: order.length,
    dropped,
  };
  if (following !== null) {
    const { follower, window } = following;
    window.drain();
    const differing = runFieldsDiffering(following.run, runRecord);
    if (window.broken !== null) return readAgain(window.broken);
    if (following.originMs !== originMs) return readAgain(`the run clock starts at ${originMs}, not at ${following.originMs} as the run facts foresaw`);
    if (differing.length) return readAgain(`the run record's ${differing.join(', ')} are not what the run facts foresaw`);
    follower.finish(runRecord.facts, end);
  }
  /** The exchanges by start, numbered, on the run clock (0 = the earliest send). */
  function* exchangesInOrder(): Generator<ExchangeRecord> {
    if (following !== null) throw new Error(`${path}: its records were handed to the follower as they were read, not kept: read the file again (readK6 without a follower) to decode them`);
    let seq = 0;
    for (const i of order) yield k6ExchangeOfText(path, texts.bytesOf(i, literalText), recordLines[i], ++seq, originMs);
  }
  return {
    run: runRecord,
    end,
    exchanges: order.length,
    *records() {
      yield runRecord;
      yield* exchangesInOrder();
      yield end;
    },
    facts,
    hasRunFacts: run !== null,
    kept: following === null,
    originMs,
    exchangeText(seq, use) {
      const i = order[seq - 1];
      if (following !== null || i === undefined) throw new Error(`${path}: no kept text for exchange ${seq}`);
      return texts.bytesOf(i, (chunk, start, end) => use(chunk, start, end, recordLines[i]));
    },
  };
}

/**
 * Exchange number `seq` on the run clock (0 = originMs), from its record's text (the content of
 * the JSON string literal k6 wrote, unescaped: k6-lines.ts literalText): what records() yields,
 * and what a follower decodes.
 */
export function k6ExchangeOfText(path: string, text: string, line: number, seq: number, originMs: number): ExchangeRecord {
  const x = exchangeOf(path, text, line);
  x.seq = seq;
  x.tIntended = roundMicros(x.tIntended - originMs);
  x.tStart = roundMicros(x.tStart - originMs);
  x.tEnd = roundMicros(x.tEnd - originMs);
  if (!OPS.has(x.op)) x.op = 'raw';
  return x;
}

const roundMicros = (x: number) => Math.round(x * 1000) / 1000;

/** The exchange record a `paystorm_record` text holds, checked against the schema; refused naming the line. */
function exchangeOf(path: string, text: string, line: number): ExchangeRecord {
  let x: unknown;
  try {
    x = decodeK6Record(text);
  } catch (e) {
    bad(path, line, `the ${K6_RECORD_TAG} tag is not a JSON or compact exchange record (${(e as Error).message})`);
  }
  const fast = fastExchange(x);
  if (fast !== NOT_SURE) return fast as ExchangeRecord;
  const parsed = exchangeRecordSchema.safeParse(x);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    bad(path, line, `the ${K6_RECORD_TAG} tag is not a history exchange record (${issue.path.join('.') || 'record'}: ${issue.message})`);
  }
  return parsed.data;
}

/** A kept record's rate limit (from its text). */
function recordLimit(path: string, rec: string, line: number): number | null {
  const head = k6RecordHead(rec) ?? headOf(exchangeOf(path, rec, line));
  return head.rateLimit ?? null;
}

/** Bytes -> string, the same string for the same bytes (keys and scripts repeat on every record). */
function internedText(): (buf: Uint8Array, from: number, to: number) => string {
  const seen: { bytes: Uint8Array; text: string }[] = [];
  return (buf, from, to) => {
    for (const s of seen) {
      if (s.bytes.length !== to - from) continue;
      let same = true;
      for (let i = 0; i < s.bytes.length && same; i++) same = s.bytes[i] === buf[from + i];
      if (same) return s.text;
    }
    const text = Buffer.from(buf.buffer, buf.byteOffset + from, to - from).toString('utf8');
    if (seen.length < 64) seen.unshift({ bytes: Uint8Array.prototype.slice.call(buf, from, to), text });
    return text;
  };
}

function headOf(x: ExchangeRecord): K6RecordHead {
  return { key: x.key, scenario: x.scenario, tStart: x.tStart, tEnd: x.tEnd, rateLimit: x.rate?.limit ?? null };
}

/** A follower under way: its window, and the run record and clock origin it was given. */
interface Following {
  follower: K6Follower;
  window: StartOrderWindow;
  run: RunRecord;
  originMs: number;
}

/** What the run record is made of (readK6 at the end of the file, or foreseen by a follower). */
interface RunRecordParts {
  path: string;
  runFacts: RunFacts;
  originMs: number;
  /** The scripts in the order their first exchange started. */
  scriptsSeen: readonly string[];
  /** The script named when neither the run facts nor an exchange names one (a scenario tag). */
  otherScript: string | undefined;
  labels: ReadonlySet<string>;
  learnedLimit: number | null;
  facts: K6Facts;
}

function runRecordOf(p: RunRecordParts): RunRecord {
  const { runFacts, originMs, facts } = p;
  const script = runFacts.script ?? (p.scriptsSeen[0] || p.otherScript || 'k6');
  const keys: KeyInfo[] = runFacts.keys?.length ? runFacts.keys : [...p.labels].sort().map(labelKey);
  const windowMs = runFacts.rateLimit?.windowMs ?? runFacts.windowMs ?? SPEC_WINDOW_MS;
  const rateLimit = runFacts.rateLimit ?? (p.learnedLimit !== null ? { limit: p.learnedLimit, windowMs } : null);
  const scenarios = p.scriptsSeen.length ? p.scriptsSeen : [script];
  return {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: `k6-${script}-${new Date(originMs).toISOString().replace(/[:.]/g, '-')}`,
    wall: originMs,
    target: { url: runFacts.target ?? 'unknown (k6 output without run facts)', embedded: false, presentation: runFacts.presentation ?? null },
    rateLimit,
    keys,
    // Only scripts that recorded exchanges declare rules: an old output that carries none judges nothing, and fails.
    scenarios: scenarios.map((name) => ({ name, rules: facts.records > 0 ? [...(K6_SCRIPT_RULES[name] ?? [])] : [] })),
    seed: 0,
    timeScale: 1,
    settleBoundMs: DEFAULT_SETTLE_BOUND_MS,
    webhooks: null,
    cardOutcomes: (runFacts.cardOutcomes ?? []).filter((c): c is RunRecord['cardOutcomes'][number] =>
      ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge', 'upstream_error'].includes(c),
    ),
    facts: { source: 'k6', file: basename(p.path), k6: facts },
  };
}

/** The fields in which two run records differ, facts aside (a follower's foreseen one and the file's). */
function runFieldsDiffering(a: RunRecord, b: RunRecord): string[] {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  fields.delete('facts');
  return [...fields].filter((k) => JSON.stringify(a[k as keyof RunRecord]) !== JSON.stringify(b[k as keyof RunRecord]));
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
