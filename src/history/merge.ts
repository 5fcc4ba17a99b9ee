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
import type { EndRecord, ExchangeRecord, FaultRecord, HistoryRecord, KeyInfo, RunRecord, WebhookRecord } from './schema.ts';
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
  const clock = new ServerClock();
  // On the shard's own clock: its run's wall time plus the exchange's run time.
  for (const x of exchanges) clock.add({ ...x, wall: run.wall + x.tStart });
  const e = clock.estimate();
  if (!e) return { offsetMs: null, plusMinusMs: null, samples: 0 };
  return { offsetMs: Math.round(-e.offsetMs), plusMinusMs: Math.round(e.uncertaintyMs), samples: e.samples };
}

function completionTime(r: HistoryRecord): number {
  if (r.kind === 'exchange') return r.tEnd;
  if (r.kind === 'webhook') return r.tReceived;
  if (r.kind === 'fault') return r.tEnd;
  return 0;
}

/** Each shard's clock offset from the service's, and the correction that puts it on the merged clock. */
export function shardOffsets(shards: readonly Shard[]): ClockOffset[] {
  return shards.map((s) => {
    const run = runOf(s);
    const est = estimateOffset(run, s.records.filter((r): r is ExchangeRecord => r.kind === 'exchange'));
    return { source: s.source, kind: s.kind, runId: run.runId, ...est, correctionMs: est.offsetMs === null ? 0 : -est.offsetMs };
  });
}

export interface MergeOptions {
  /** shardOffsets(shards), when the caller already has them. */
  offsets?: ClockOffset[];
  /** What differs between the shards, merged anyway (--allow-mixed-shards): kept in the run record's `facts.mixedShards`. */
  mixed?: readonly ShardDifference[];
}

export function mergeShards(shards: readonly Shard[], opts: MergeOptions = {}): MergeResult {
  if (shards.length === 0) throw new Error('mergeShards: no shard');
  const runs = shards.map(runOf);
  const offsets = opts.offsets ?? shardOffsets(shards);
  const starts = runs.map((r, i) => r.wall + offsets[i].correctionMs);
  const origin = Math.min(...starts);
  const round = (x: number) => Math.round(x * 1000) / 1000;

  const body: HistoryRecord[] = [];
  const ends: EndRecord[] = [];
  const shardEnds: (EndRecord | undefined)[] = shards.map(() => undefined);
  // With more than one clock, each shard's records carry its offset's uncertainty (see clockSlackMs).
  const slackOf = (i: number): number => (shards.length > 1 ? (offsets[i].plusMinusMs ?? 0) : 0);
  shards.forEach((s, i) => {
    const shift = starts[i] - origin;
    const corr = offsets[i].correctionMs;
    const slack = slackOf(i);
    for (const r of s.records) {
      if (r.kind === 'run') continue;
      if (r.kind === 'end') {
        const e: EndRecord = { ...r, tEnd: round(r.tEnd + shift), wall: r.wall + corr };
        if (r.load) e.load = r.load.map((l) => ({ ...l, tStart: round(l.tStart + shift), tEnd: round(l.tEnd + shift) }));
        ends.push(e);
        shardEnds[i] = e;
      } else if (r.kind === 'exchange') {
        body.push({ ...r, tIntended: round(r.tIntended + shift), tStart: round(r.tStart + shift), tEnd: round(r.tEnd + shift), wall: r.wall + corr, ...(slack > 0 ? { clockSlackMs: slack } : {}) } satisfies ExchangeRecord);
      } else if (r.kind === 'webhook') {
        body.push({ ...r, tReceived: round(r.tReceived + shift), wall: r.wall + corr, ...(slack > 0 ? { clockSlackMs: slack } : {}) } satisfies WebhookRecord);
      } else if (r.kind === 'fault') {
        const sure = r.tApplied !== undefined && r.tRemoving !== undefined ? { tApplied: round(r.tApplied + shift), tRemoving: round(r.tRemoving + shift) } : {};
        body.push({ ...r, tStart: round(r.tStart + shift), tEnd: round(r.tEnd + shift), ...sure, wallStart: r.wallStart + corr, ...(slack > 0 ? { clockSlackMs: slack } : {}) } satisfies FaultRecord);
      }
    }
  });
  body.sort((a, b) => completionTime(a) - completionTime(b));
  let seq = 0;
  for (const r of body) if (r.kind === 'exchange' || r.kind === 'webhook') r.seq = ++seq;

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
    target: { url: first((r) => (r.target.url.startsWith('unknown') ? null : r.target.url)) ?? runs[0].target.url, embedded: runs.every((r) => r.target.embedded), presentation: first((r) => r.target.presentation) ?? null },
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
        scenarios: scenarioProgressOf(shards[i].records).map((p) => ({ name: p.name, status: p.status })),
        facts: runs[i].facts ?? null,
      })),
      ...(opts.mixed?.length ? { mixedShards: opts.mixed.map((d) => ({ ...d })) } : {}),
    },
  };
  const challenge = first((r) => r.challengeTimeoutMs);
  if (challenge !== undefined) run.challengeTimeoutMs = challenge;
  const upstream = first((r) => r.upstreamTimeoutMs);
  if (upstream !== undefined) run.upstreamTimeoutMs = upstream;
  const skipped = runs.flatMap((r) => r.faultsSkipped ?? []);
  if (skipped.length) run.faultsSkipped = skipped;

  // A loop, not a spread: a million records as arguments overflow the call stack.
  let tEnd = 0;
  for (const e of ends) if (e.tEnd > tEnd) tEnd = e.tEnd;
  for (const r of body) {
    const t = completionTime(r);
    if (t > tEnd) tEnd = t;
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
          .map((s, i) => (!shardEnds[i] ? `shard without end record: ${s.source}` : !shardEnds[i]!.complete ? `shard ${s.source}: ${shardEnds[i]!.reason}` : ''))
          .filter(Boolean)
          .join('; ')
      : 'done',
    requests: ends.reduce((s, e) => s + e.requests, 0),
    dropped: ends.reduce((s, e) => s + e.dropped, 0),
  };
  if (load.length) end.load = load;
  return { records: [run, ...body, end], offsets };
}

/** One line per shard, for the console. */
export function describeOffsets(offsets: readonly ClockOffset[]): string[] {
  return offsets.map((o) =>
    o.offsetMs === null
      ? `${o.source} (${o.kind}): clock offset unknown (no answer carried a Date header); left uncorrected`
      : `${o.source} (${o.kind}): clock ${Math.abs(o.offsetMs)} ms ${o.offsetMs >= 0 ? 'ahead of' : 'behind'} the service's (±${o.plusMinusMs} ms, ${o.samples} answers); corrected by ${o.correctionMs >= 0 ? '+' : ''}${o.correctionMs} ms`,
  );
}
