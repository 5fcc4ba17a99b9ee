/**
 * The oracle as one function of the history, in the manner of Jepsen's checkers:
 * `check(history, options) -> verdict`. One pass over the records feeds the invariants
 * (`judge`), the run's metrics, the per-scenario threshold scopes, the drift windows and the
 * rate-boundary probe; then thresholds, baseline comparison, drift, verdict and summary.
 * A live run, `paystorm check`, `report` and `merge` all judge through here, so they agree.
 */
import { EXIT, PaystormError, type Finding, type Summary, type ThresholdResult } from '../spec/index.ts';
import { MetricsAggregator, runStop, type FaultRecord, type HistoryRecord, type RunRecord } from '../history/index.ts';
import { describeOffsets, type ClockOffset } from '../history/merge.ts';
import type { ShardDifference } from '../history/shard-compat.ts';
import { judge, unjudged, type InterimJudgement, type JudgeOptions, type Judgement, type Unjudged } from './judge.ts';
import { evaluateThresholds, replacedByUser } from './thresholds.ts';
import { verdictOf, type Verdict } from './verdict.ts';
import { buildSummary } from './summary.ts';
import { RateBoundaryCollector } from './lib/rate-boundary.ts';
import { feedScopes, thresholdScopes, type ThresholdScope } from './threshold-scopes.ts';
import { compareWithBaseline, defaultRegressions, isRegressionExpr, type Baseline } from './baseline.ts';
import { computeDrift, DEFAULT_TREND_WINDOW_MS, isDriftExpr, WindowCollector } from './trend.ts';

export interface CheckOptions {
  /** Thresholds in k6 syntax, beside the ones the run's scenarios carry by default. */
  thresholds?: readonly string[];
  /** Scenario default thresholds by scenario name, for histories whose run record names the scenarios only. */
  scenarioThresholds?: (scenario: string) => readonly string[];
  /** The run was interrupted (SIGINT/SIGTERM); default: the end record says so, or there is none. */
  interrupted?: boolean;
  /** Compare with this baseline (`--baseline`): regression thresholds (or the defaults) and the side-by-side comparison. */
  baseline?: { baseline: Baseline; source: string };
  /** Window of the soak drift's per-window figures (default 60 s). */
  trendWindowMs?: number;
  /** Told of each violation as a check confirms it while reading (judge.ts `JudgeOptions.onViolation`). */
  onViolation?: JudgeOptions['onViolation'];
  /** Filled in by `check`: the result over the records read so far, the pass going on after (InterimCheck). */
  interim?: InterimCheck;
}

/** The verdict over the records read so far (a run's snapshot): incomplete, no end record read. null before the first record. */
export interface InterimCheck {
  result: (() => CheckResult | null) | null;
}

export interface CheckResult {
  /** The invariants' results and what they learned. */
  judgement: Judgement;
  /** Every threshold judged: the run's, each scenario scope's, regressions and drift. */
  thresholds: ThresholdResult[];
  verdict: Verdict;
  /** summary.json, everything above assembled. */
  summary: Summary;
}

type Records = Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>;

/**
 * The same records, with `tap` seeing each before `judge` does: one read of the history serves
 * every fold. Keeps the source's batches (readHistory's), which spare a promise per record.
 */
function tapped(records: Records, tap: (rec: HistoryRecord) => void): AsyncIterable<HistoryRecord> & { batches?: () => AsyncIterable<HistoryRecord[]> } {
  const batched = (records as { batches?: () => AsyncIterable<HistoryRecord[]> }).batches;
  const out: AsyncIterable<HistoryRecord> & { batches?: () => AsyncIterable<HistoryRecord[]> } = {
    async *[Symbol.asyncIterator]() {
      for await (const rec of records) {
        tap(rec);
        yield rec;
      }
    },
  };
  if (typeof batched === 'function') {
    out.batches = async function* () {
      for await (const batch of batched.call(records)) {
        for (const rec of batch) tap(rec);
        yield batch;
      }
    };
  }
  return out;
}

/**
 * What one pass over the records folds besides the invariants: the run's metrics, the
 * per-scenario threshold scopes, the drift windows, the rate-boundary probe, the fault windows.
 * `check` feeds it beside `judge`; `paystorm check` of k6 output feeds it on the main thread
 * while a judge thread runs `judge` on the same records in the same order (cli/live/live-judge.ts).
 */
export class CheckFolds {
  readonly windows: WindowCollector;
  readonly metrics: MetricsAggregator;
  readonly userExprs: Set<string>;
  readonly faults: FaultRecord[] = [];
  readonly boundary = new RateBoundaryCollector();
  /** Made from the run record (the history's first), before any exchange needs them. */
  scopes: ThresholdScope[] | null = null;

  constructor(private readonly opts: CheckOptions = {}) {
    this.windows = new WindowCollector(opts.trendWindowMs ?? DEFAULT_TREND_WINDOW_MS);
    const windows = this.windows;
    this.metrics = new MetricsAggregator({ onTrendSample: (name, t, ms) => windows.trend(name, t, ms) });
    this.userExprs = new Set<string>(opts.thresholds ?? []);
  }

  add(rec: HistoryRecord): void {
    if (this.scopes === null) this.scopes = scenarioScopes(rec.kind === 'run' ? rec : null, this.userExprs, this.opts.scenarioThresholds);
    this.metrics.add(rec);
    this.windows.add(rec);
    this.boundary.add(rec);
    feedScopes(this.scopes, rec);
    if (rec.kind === 'fault') this.faults.push(rec);
  }
}

export async function check(records: Records, opts: CheckOptions = {}): Promise<CheckResult> {
  const folds = new CheckFolds(opts);
  const interim: InterimJudgement | undefined = opts.interim ? { conclude: null } : undefined;
  if (opts.interim) {
    opts.interim.result = () => {
      const conclude = interim!.conclude;
      return conclude === null ? null : checkResultOf(conclude(), folds, opts);
    };
  }
  try {
    const judgement = await judge(tapped(records, (rec) => folds.add(rec)), { ...(opts.onViolation ? { onViolation: opts.onViolation } : {}), ...(interim ? { interim } : {}) });
    return checkResultOf(judgement, folds, opts);
  } finally {
    if (opts.interim) opts.interim.result = null;
  }
}

/**
 * `check` without the invariants, every one `error` for `why` (judge.ts `unjudged`): the metrics,
 * thresholds and drift of the records, when the judge could not run (it ran out of memory).
 */
export async function checkUnjudged(records: Records, why: Unjudged, opts: CheckOptions = {}): Promise<CheckResult> {
  const folds = new CheckFolds(opts);
  return checkResultOf(await unjudged(tapped(records, (rec) => folds.add(rec)), why), folds, opts);
}

/** The verdict from the invariants' judgement and the folds of the same records: thresholds, baseline, drift, summary. */
export function checkResultOf(judgement: Judgement, folds: CheckFolds, opts: CheckOptions = {}): CheckResult {
  const { metrics, windows, userExprs, faults, boundary, scopes } = folds;
  const { run, end } = judgement;
  const finalScopes: ThresholdScope[] = scopes ?? scenarioScopes(null, userExprs, opts.scenarioThresholds);
  // Dropped iterations come in with the end record, which the metrics fold took like any other (history/metrics.ts).
  const snapshot = metrics.snapshot();

  const exprs = new Set<string>(opts.thresholds ?? []);
  // The run record carries each scenario's default thresholds; older histories name them only.
  // A user's threshold on the same metric, tags, aggregate and comparison replaces a default.
  const replaced = replacedByUser(userExprs);
  for (const s of run?.scenarios ?? []) for (const t of s.thresholds ?? opts.scenarioThresholds?.(s.name) ?? []) if (!replaced(t)) exprs.add(t);
  // Regression (`< baseline * 1.2`) and drift (`trend(...) < 10%/h`) thresholds are judged by their own modules.
  const all = [...exprs];
  const regressionExprs = all.filter(isRegressionExpr);
  const driftExprs = all.filter(isDriftExpr);
  const scopedExprs = new Set(finalScopes.flatMap((sc) => sc.exprs));
  const thresholds = evaluateThresholds(all.filter((e) => !isRegressionExpr(e) && !isDriftExpr(e) && !scopedExprs.has(e)), snapshot, { invariants: judgement.invariants });
  for (const sc of finalScopes) {
    for (const t of evaluateThresholds(sc.exprs, sc.metrics.snapshot(), { invariants: judgement.invariants })) thresholds.push({ ...t, scope: [...sc.scenarios].sort() });
  }
  if (regressionExprs.length && !opts.baseline) {
    throw new PaystormError(`--threshold: "${regressionExprs[0]}" compares with a baseline: add --baseline DIR (saved by --save-baseline).`, EXIT.usage, '--threshold');
  }
  let comparison: ReturnType<typeof compareWithBaseline> | undefined;
  if (opts.baseline) {
    const used = regressionExprs.length ? regressionExprs : defaultRegressions(opts.baseline.baseline);
    comparison = compareWithBaseline(opts.baseline.baseline, opts.baseline.source, snapshot, used);
    for (const r of comparison.regressions) thresholds.push({ metric: r.metric, expr: r.expr, value: r.value, ok: r.ok });
  }
  const figures = windows.figures();
  const drift = driftExprs.length || figures.length >= 3 ? computeDrift(figures, windows.windowMs, driftExprs) : undefined;
  for (const d of drift?.thresholds ?? []) thresholds.push({ metric: d.key, expr: d.expr, value: d.value, ok: d.ok });

  const stop = runStop(end);
  const interrupted = opts.interrupted ?? stop.kind === 'interrupted';
  const declaredRules = (run?.scenarios ?? []).flatMap((s) => s.rules);
  const verdict = verdictOf({ invariants: judgement.invariants, thresholds, declaredRules, interrupted, scenarios: judgement.scenarios, ...(stop.kind === 'scenario-error' ? { scenarioError: stop.reason } : {}), ...(judgement.unjudged !== undefined ? { unjudged: judgement.unjudged } : {}) });
  const summary = buildSummary({
    run,
    end,
    invariants: judgement.invariants,
    thresholds,
    metrics: snapshot,
    faults,
    exitCode: verdict.exitCode,
    verdict: verdict.verdict,
    findings: [...judgement.findings, ...mixedShardFindings(run), ...shardOffsetFindings(run)],
    reason: verdict.reason,
    rateBoundary: boundary.result(),
    scenarios: judgement.scenarios,
  });
  if (comparison) summary.comparison = comparison as unknown as Record<string, unknown>;
  if (drift) summary.drift = drift as unknown as Record<string, unknown>;
  return { judgement, thresholds, verdict, summary };
}

/** A scenario's default thresholds judge its own traffic (threshold-scopes.ts); the user's judge the whole run. */
function scenarioScopes(run: RunRecord | null, userExprs: ReadonlySet<string>, scenarioThresholds: CheckOptions['scenarioThresholds']): ThresholdScope[] {
  const defaults = (run?.scenarios ?? []).map((s) => ({ scenario: s.name, exprs: (s.thresholds ?? scenarioThresholds?.(s.name) ?? []).filter((e) => !isRegressionExpr(e) && !isDriftExpr(e)) }));
  return thresholdScopes(
    // An expression every scenario declares judges the whole run anyway; dropped iterations are counted per run.
    defaults.map((d) => ({ ...d, exprs: d.exprs.filter((e) => !e.trim().startsWith('dropped_iterations') && defaults.some((o) => !o.exprs.includes(e))) })),
    userExprs,
    () => new MetricsAggregator(),
  ).scopes;
}

/** Shards merged with --allow-mixed-shards although they differ (history/shard-compat.ts): the verdict may blame the service for that. */
function mixedShardFindings(run: RunRecord | null): Finding[] {
  const mixed = run?.facts?.mixedShards;
  if (!Array.isArray(mixed) || mixed.length === 0) return [];
  const texts = (mixed as ShardDifference[]).map((d) => d.text);
  return [
    {
      id: 'mixed-shards',
      level: 'warning',
      text: `Merged with --allow-mixed-shards, though the shards are not one test of one service: ${texts.join('; ')}. The verdict judges them as one run, so a violation between shards may be no fault of the service.`,
    },
  ];
}

/** A merged run (`paystorm merge`) reports each shard's clock offset, as the run record's facts hold it. */
function shardOffsetFindings(run: RunRecord | null): Finding[] {
  const shards = run?.facts?.merge;
  if (!Array.isArray(shards) || shards.length === 0) return [];
  const offsets = shards as ClockOffset[];
  const worst = Math.max(0, ...offsets.map((o) => Math.abs(o.offsetMs ?? 0)));
  return [
    {
      id: 'shard-clock-offsets',
      level: worst > 1000 || offsets.some((o) => o.offsetMs === null) ? 'warning' : 'info',
      text: `Merged ${offsets.length} shards on the service's clock: ${describeOffsets(offsets).join('; ')}.`,
    },
  ];
}
