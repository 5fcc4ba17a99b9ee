/**
 * Merges shards (paystorm runs and k6 runs alike, as history records) into one history
 * the oracle judges as one run: `paystorm merge RUN...`.
 *
 * - Clocks: every shard's times are its own machine's. Each shard's offset from the
 *   service's clock is estimated from the answers' `Date` headers (the server's clock,
 *   whole seconds): an answer dated D was made between the shard's send and receive, so
 *   offset ∈ [start − (D+1 s), end − D]; the intersection over all answers bounds it, its
 *   middle is the estimate (median of the per-answer middles when jitter empties it). All
 *   shards are put on the service's clock, so they share one time line; a shard without
 *   Date headers is left uncorrected and reported so.
 * - Records: exchanges, webhooks and faults of all shards are interleaved by time (0 = the
 *   earliest shard start) and renumbered; per-key rules see every shard that used a key.
 * - Run record: one run, its keys, scenarios (rules united) and card outcomes the union;
 *   facts.merge lists the shards with their offsets and how far each shard's scenarios got;
 *   facts.mixedShards what differed between shards merged anyway (shard-compat.ts checks
 *   first that they are one test of one service). End record: requests and dropped summed,
 *   complete only when every shard was.
 * - Metrics: the metrics aggregator reads the merged exchanges, so latency histograms are
 *   built from every sample of every shard (exact, not averaged percentiles).
 */
import { HISTORY_VERSION } from './version.ts';
import type { EndRecord, ExchangeRecord, HistoryRecord, KeyInfo, RunRecord } from './schema.ts';
import type { ScenarioStatus } from '../spec/summary.ts';
import { ServerClock } from './server-clock.ts';
import { scenarioProgressOf } from './scenario-progress.ts';
import type { ShardDifference } from './shard-compat.ts';

export interface Shard {
  /** What the user named (a run directory, a history file, a k6 output file). */
  source: string;
  kind: 'paystorm' | 'k6';
  records: HistoryRecord[];
}

export interface ClockOffset {
  source: string;
  kind: Shard['kind'];
  runId: string;
  /** Shard clock minus the service's clock, ms; null when no answer carried a Date header. */
  offsetMs: number | null;
  /** Half the width of the bound (the estimate's uncertainty), ms. */
  plusMinusMs: number | null;
  /** Answers with a Date header the estimate used. */
  samples: number;
  /** Added to the shard's wall times to put them on the merged clock, ms. */
  correctionMs: number;
}

export interface MergeResult {
  records: HistoryRecord[];
  offsets: ClockOffset[];
}

function runOf(s: Shard): RunRecord {
  const r = s.records.find((x): x is RunRecord => x.kind === 'run');
  if (!r) throw new Error(`${s.source}: no run record`);
  return r;
}

/**
 * Shard clock minus server clock, from the Date headers of its answers: the server clock's
 * estimate (server-clock.ts) turned around, so a stale cached Date header, which pulls one
 * bound past the truth, is discounted here as it is when the oracle reads the server's times.
 */
export function estimateOffset(run: RunRecord, exchanges: readonly ExchangeRecord[]): { offsetMs: number | null; plusMinusMs: number | null; samples: number } {
  const estimate = new OffsetEstimate(run);
  for (const x of exchanges) estimate.add(x);
  return estimate.result();
}

/** estimateOffset one exchange at a time (a shard read as a stream). */
export class OffsetEstimate {
  private readonly clock = new ServerClock();
  constructor(private readonly run: RunRecord) {}

  add(x: ExchangeRecord): void {
    // On the shard's own clock: its run's wall time plus the exchange's run time.
    this.clock.add({ ...x, wall: this.run.wall + x.tStart });
  }

  result(): { offsetMs: number | null; plusMinusMs: number | null; samples: number } {
    const e = this.clock.estimate();
    if (!e) return { offsetMs: null, plusMinusMs: null, samples: 0 };
    return { offsetMs: Math.round(-e.offsetMs), plusMinusMs: Math.round(e.uncertaintyMs), samples: e.samples };
  }
}

/** Each shard's clock offset from the service's, and the correction that puts it on the merged clock. */
export function shardOffsets(shards: readonly Shard[]): ClockOffset[] {
  return shards.map((s) => {
    const run = runOf(s);
    return clockOffset(s.source, s.kind, run, estimateOffset(run, s.records.filter((r): r is ExchangeRecord => r.kind === 'exchange')));
  });
}

export interface MergeOptions {
  /** shardOffsets(shards), when the caller already has them. */
  offsets?: ClockOffset[];
  /** What differs between the shards, merged anyway (--allow-mixed-shards): kept in the run record's `facts.mixedShards`. */
  mixed?: readonly ShardDifference[];
}

/**
 * A shard as the merge reads it: what it says about itself, and its body (every record but
 * run and end) in the order the merge takes it, which a reader can hand over in chunks
 * without the shard held as objects (merge-worker.ts reads k6 shards so, on worker threads).
 */
export interface ShardInput {
  source: string;
  kind: Shard['kind'];
  /** The shard's first run record. */
  run: RunRecord;
  /** Its end records (one, or none when it was cut). */
  ends: EndRecord[];
  /** How far each of its scenarios got (scenarioProgressOf). */
  progress: { name: string; status: ScenarioStatus }[];
  /** Its clock offset from the service's (estimateOffset). */
  estimate: ReturnType<typeof estimateOffset>;
  /** The latest completion time of its body on its run clock (0 when it has none). */
  lastMs: number;
  /** Its body, by completion time on the shard's clock (completionTime), ties by position in the shard. */
  body: () => Iterable<BodyChunk>;
}

/** Body records in the merge's order and their positions in the shard (the tie-break of equal merged times). */
export interface BodyChunk {
  records: HistoryRecord[];
  positions: ArrayLike<number>;
}

/** When a record was done: what the merge orders by. */
export function completionTime(r: HistoryRecord): number {
  if (r.kind === 'exchange') return r.tEnd;
  if (r.kind === 'webhook') return r.tReceived;
  if (r.kind === 'fault') return r.tEnd;
  return 0;
}

/**
 * A shard held as records, as a ShardInput. Its body records are copied when read, since the
 * merge shifts them in place; `copy: false` when they are serialized instead (shard-chunks.ts).
 */
export function shardInputOf(s: Shard, opts: { copy?: boolean } = {}): ShardInput {
  const copy = opts.copy !== false;
  const run = runOf(s);
  const ends = s.records.filter((r): r is EndRecord => r.kind === 'end');
  let lastMs = 0;
  for (const r of s.records) if (r.kind !== 'run' && r.kind !== 'end' && completionTime(r) > lastMs) lastMs = completionTime(r);
  return {
    source: s.source,
    kind: s.kind,
    run,
    ends,
    progress: scenarioProgressOf(s.records).map((p) => ({ name: p.name, status: p.status })),
    estimate: estimateOffset(run, s.records.filter((r): r is ExchangeRecord => r.kind === 'exchange')),
    lastMs,
    body: () => {
      const positions: number[] = [];
      s.records.forEach((r, i) => {
        if (r.kind !== 'run' && r.kind !== 'end') positions.push(i);
      });
      const times = positions.map((i) => completionTime(s.records[i]));
      const order = positions.map((_, k) => k).sort((a, b) => times[a] - times[b] || a - b);
      return [{ records: order.map((k) => (copy ? { ...s.records[positions[k]] } : s.records[positions[k]])), positions: order.map((k) => positions[k]) }];
    },
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Puts a body record on the merged clock, in place: run times shifted by `shift`, wall times corrected by `corr`. */
function shiftRecord(r: HistoryRecord, shift: number, corr: number, slack: number): void {
  if (r.kind === 'exchange') {
    r.tIntended = round3(r.tIntended + shift);
    r.tStart = round3(r.tStart + shift);
    r.tEnd = round3(r.tEnd + shift);
    r.wall = r.wall + corr;
    if (slack > 0) r.clockSlackMs = slack;
  } else if (r.kind === 'webhook') {
    r.tReceived = round3(r.tReceived + shift);
    r.wall = r.wall + corr;
    if (slack > 0) r.clockSlackMs = slack;
  } else if (r.kind === 'fault') {
    r.tStart = round3(r.tStart + shift);
    r.tEnd = round3(r.tEnd + shift);
    if (r.tApplied !== undefined && r.tRemoving !== undefined) {
      r.tApplied = round3(r.tApplied + shift);
      r.tRemoving = round3(r.tRemoving + shift);
    }
    r.wallStart = r.wallStart + corr;
    if (slack > 0) r.clockSlackMs = slack;
  }
}

/**
 * One shard's body on the merged clock, in the merge's order: by merged completion time, ties
 * by position in the shard (what a stable sort of the shard's records gives). Shifting and
 * rounding can make two different times equal, so each run of equal times is put in position order.
 */
function* shiftedBody(s: ShardInput, shift: number, corr: number, slack: number): Generator<HistoryRecord> {
  let run: HistoryRecord[] = [];
  let runPositions: number[] = [];
  let runTime = NaN;
  let sorted = true;
  for (const chunk of s.body()) {
    const { records, positions } = chunk;
    for (let k = 0; k < records.length; k++) {
      const r = records[k];
      shiftRecord(r, shift, corr, slack);
      const t = completionTime(r);
      if (t !== runTime && run.length > 0) {
        if (!sorted) run = positionOrder(run, runPositions);
        yield* run;
        run = [];
        runPositions = [];
        sorted = true;
      }
      if (run.length > 0 && positions[k] < runPositions[runPositions.length - 1]) sorted = false;
      run.push(r);
      runPositions.push(positions[k]);
      runTime = t;
    }
  }
  if (!sorted) run = positionOrder(run, runPositions);
  yield* run;
}

function positionOrder(records: HistoryRecord[], positions: number[]): HistoryRecord[] {
  return records.map((_, i) => i).sort((a, b) => positions[a] - positions[b]).map((i) => records[i]);
}

export interface MergeStream {
  /** The merged run record (the first record). */
  run: RunRecord;
  offsets: ClockOffset[];
  /** The run record, the body of every shard interleaved by time and numbered, the end record; once. */
  records(): Generator<HistoryRecord>;
}

/** Each shard's clock offset from the service's (estimateOffset of its exchanges), as ClockOffset. */
export function clockOffset(source: string, kind: Shard['kind'], run: RunRecord, est: ReturnType<typeof estimateOffset>): ClockOffset {
  return { source, kind, runId: run.runId, ...est, correctionMs: est.offsetMs === null ? 0 : -est.offsetMs };
}

/** Every shard's probe payments (a payment its presentation probe made before its first request), once each. */
function probePaymentsOf(runs: readonly RunRecord[]): { probePayments?: string[] } {
  const ids = [...new Set(runs.flatMap((r) => r.target.probePayments ?? []))];
  return ids.length ? { probePayments: ids } : {};
}

/**
 * The merge as a stream: the shards' bodies are interleaved by time as they are read (a k-way
 * merge of their ordered bodies), so no shard needs to be held whole as objects.
 */
export function mergeShardInputs(shards: readonly ShardInput[], offsets: readonly ClockOffset[], mixed?: readonly ShardDifference[]): MergeStream {
  if (shards.length === 0) throw new Error('mergeShards: no shard');
  const runs = shards.map((s) => s.run);
  const starts = runs.map((r, i) => r.wall + offsets[i].correctionMs);
  const origin = Math.min(...starts);
  const shardEnds = shards.map((s) => s.ends.at(-1));

  const keys = new Map<string, KeyInfo>();
  for (const r of runs) for (const k of r.keys) if (!keys.has(k.label) || (!keys.get(k.label)!.prefix && k.prefix)) keys.set(k.label, k);
  const scenarios = new Map<string, Set<string>>();
  for (const r of runs) for (const sc of r.scenarios) for (const rule of sc.rules) (scenarios.get(sc.name) ?? scenarios.set(sc.name, new Set()).get(sc.name)!).add(rule);
  for (const r of runs) for (const sc of r.scenarios) if (!scenarios.has(sc.name)) scenarios.set(sc.name, new Set());
  const first = <T>(pick: (r: RunRecord) => T | null | undefined): T | undefined => {
    for (const r of runs) {
      const v = pick(r);
      if (v !== null && v !== undefined) return v;
    }
    return undefined;
  };
  const run: RunRecord = {
    v: HISTORY_VERSION,
    kind: 'run',
    runId: `merge-${new Date(origin).toISOString().replace(/[:.]/g, '-')}`,
    wall: origin,
    target: { url: first((r) => (r.target.url.startsWith('unknown') ? null : r.target.url)) ?? runs[0].target.url, embedded: runs.every((r) => r.target.embedded), presentation: first((r) => r.target.presentation) ?? null, ...probePaymentsOf(runs) },
    rateLimit: first((r) => r.rateLimit) ?? null,
    keys: [...keys.values()],
    scenarios: [...scenarios].map(([name, rules]) => ({ name, rules: [...rules].sort() })),
    seed: runs[0].seed,
    timeScale: runs[0].timeScale,
    settleBoundMs: Math.max(...runs.map((r) => r.settleBoundMs)),
    webhooks: first((r) => r.webhooks) ?? null,
    cardOutcomes: [...new Set(runs.flatMap((r) => r.cardOutcomes))],
    facts: {
      // `scenarios`: how far each of the shard's scenarios got (scenario-progress.ts), which the merged run's progress combines.
      merge: offsets.map((o, i) => ({
        ...o,
        requests: shardEnds[i]?.requests ?? null,
        scenarios: shards[i].progress,
        facts: runs[i].facts ?? null,
      })),
      ...(mixed?.length ? { mixedShards: mixed.map((d) => ({ ...d })) } : {}),
    },
  };
  const challenge = first((r) => r.challengeTimeoutMs);
  if (challenge !== undefined) run.challengeTimeoutMs = challenge;
  const upstream = first((r) => r.upstreamTimeoutMs);
  if (upstream !== undefined) run.upstreamTimeoutMs = upstream;
  const skipped = runs.flatMap((r) => r.faultsSkipped ?? []);
  if (skipped.length) run.faultsSkipped = skipped;

  // With more than one clock, each shard's records carry its offset's uncertainty (see clockSlackMs).
  const slackOf = (i: number): number => (shards.length > 1 ? (offsets[i].plusMinusMs ?? 0) : 0);
  const ends: EndRecord[] = shards.flatMap((s, i) => {
    const shift = starts[i] - origin;
    const corr = offsets[i].correctionMs;
    return s.ends.map((r) => {
      const e: EndRecord = { ...r, tEnd: round3(r.tEnd + shift), wall: r.wall + corr };
      if (r.load) e.load = r.load.map((l) => ({ ...l, tStart: round3(l.tStart + shift), tEnd: round3(l.tEnd + shift) }));
      return e;
    });
  });

  function* records(): Generator<HistoryRecord> {
    yield run;
    const bodies = shards.map((s, i) => shiftedBody(s, starts[i] - origin, offsets[i].correctionMs, slackOf(i)));
    const heads: (HistoryRecord | undefined)[] = bodies.map((b) => b.next().value as HistoryRecord | undefined);
    const times = heads.map((h) => (h === undefined ? Infinity : completionTime(h)));
    let seq = 0;
    let tEnd = 0;
    for (const e of ends) if (e.tEnd > tEnd) tEnd = e.tEnd;
    for (;;) {
      // The earliest head; ties go to the earlier shard (the order of a stable sort of all shards' records).
      let at = -1;
      for (let i = 0; i < heads.length; i++) if (heads[i] !== undefined && (at < 0 || times[i] < times[at])) at = i;
      if (at < 0) break;
      const r = heads[at]!;
      const t = times[at];
      const next = bodies[at].next();
      heads[at] = next.done ? undefined : next.value;
      times[at] = next.done ? Infinity : completionTime(next.value);
      if (r.kind === 'exchange' || r.kind === 'webhook') r.seq = ++seq;
      if (t > tEnd) tEnd = t;
      yield r;
    }
    const incomplete = ends.length < shards.length || ends.some((e) => !e.complete);
    const load = ends.flatMap((e) => e.load ?? []);
    const end: EndRecord = {
      v: HISTORY_VERSION,
      kind: 'end',
      tEnd,
      wall: origin + tEnd,
      complete: !incomplete,
      // Not 'interrupted' for a shard cut short: the merge itself was not, and the reports say which shard.
      reason: incomplete
        ? shards
            .map((s, i) => {
              const e = shardEnds[i];
              return !e ? `shard without end record: ${s.source}` : !e.complete ? `shard ${s.source}: ${e.reason}` : '';
            })
            .filter(Boolean)
            .join('; ')
        : 'done',
      requests: ends.reduce((s, e) => s + e.requests, 0),
      dropped: ends.reduce((s, e) => s + e.dropped, 0),
    };
    if (load.length) end.load = load;
    yield end;
  }
  return { run, offsets: [...offsets], records };
}

export function mergeShards(shards: readonly Shard[], opts: MergeOptions = {}): MergeResult {
  if (shards.length === 0) throw new Error('mergeShards: no shard');
  const offsets = opts.offsets ?? shardOffsets(shards);
  const merged = mergeShardInputs(shards.map((s) => shardInputOf(s)), offsets, opts.mixed);
  return { records: [...merged.records()], offsets };
}

/** One line per shard, for the console. */
export function describeOffsets(offsets: readonly ClockOffset[]): string[] {
  return offsets.map((o) =>
    o.offsetMs === null
      ? `${o.source} (${o.kind}): clock offset unknown (no answer carried a Date header); left uncorrected`
      : `${o.source} (${o.kind}): clock ${Math.abs(o.offsetMs)} ms ${o.offsetMs >= 0 ? 'ahead of' : 'behind'} the service's (±${o.plusMinusMs} ms, ${o.samples} answers); corrected by ${o.correctionMs >= 0 ? '+' : ''}${o.correctionMs} ms`,
  );
}
