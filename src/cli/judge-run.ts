/**
 * Judges a saved history exactly as a live run is judged: one pass for the oracle,
 * one for the metrics, then thresholds, verdict and summary. `paystorm run`,
 * `check` and `report` all go through here, so a saved run and a live one agree.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, PaystormError, type Finding, type Summary } from '../spec/index.ts';
import { type FaultRecord, type HistoryRecord, type RunRecord } from '../history/index.ts';
import { judge } from '../oracle/judge.ts';
import { notAHistory } from '../history/sniff.ts';
import { readHistory } from '../history/reader.ts';
import { evaluateThresholds } from '../oracle/thresholds.ts';
import { verdictOf } from '../oracle/verdict.ts';
import { buildSummary } from '../oracle/summary.ts';
import { MetricsAggregator } from '../history/metrics.ts';
import { RateBoundaryCollector } from '../oracle/lib/rate-boundary.ts';
import { feedScopes, thresholdScopes } from '../oracle/threshold-scopes.ts';
import { compareWithBaseline, defaultRegressions, isRegressionExpr, type Baseline } from '../oracle/baseline.ts';
import { computeDrift, DEFAULT_TREND_WINDOW_MS, isDriftExpr, WindowCollector } from '../oracle/trend.ts';
import { describeOffsets, type ClockOffset } from '../history/merge.ts';

export interface JudgeRunOptions {
  /** Thresholds in k6 syntax, beside the ones the run's scenarios carry by default. */
  thresholds?: readonly string[];
  /** Scenario default thresholds by scenario name (the history names the scenarios; their defaults live in code). */
  scenarioThresholds?: (scenario: string) => readonly string[];
  /** The run was interrupted (SIGINT/SIGTERM). */
  interrupted?: boolean;
  onWarning?: (message: string) => void;
  /** Compare with this baseline (`--baseline`): regression thresholds (or the defaults) and the side-by-side comparison. */
  baseline?: { baseline: Baseline; source: string };
  /** Window of the soak drift's per-window figures (default 60 s). */
  trendWindowMs?: number;
}

/** `reports/<run-id>` or a history file -> the history file's path, once its start looks like a history. */
export function historyFileOf(pathArg: string): string {
  if (!existsSync(pathArg)) throw new PaystormError(`no run directory or history file at ${pathArg}. Pass reports/<run-id> or a history.ndjson.`, EXIT.usage);
  const p = statSync(pathArg).isDirectory() ? join(pathArg, 'history.ndjson') : pathArg;
  if (!existsSync(p)) throw new PaystormError(`${pathArg} holds no history.ndjson. Pass the directory of a paystorm run (reports/<run-id>).`, EXIT.usage);
  const wrong = notAHistory(p);
  if (wrong) throw new PaystormError(`${p}: ${wrong}`, EXIT.usage, 'history');
  return p;
}

export async function judgeHistory(historyPath: string, opts: JudgeRunOptions = {}): Promise<Summary> {
  const warn = opts.onWarning ?? ((m: string) => process.stderr.write(`paystorm: ${m}\n`));
  const judgement = await judge(readHistory(historyPath, { onWarning: warn }));

  const windows = new WindowCollector(opts.trendWindowMs ?? DEFAULT_TREND_WINDOW_MS);
  const metrics = new MetricsAggregator({ onTrendSample: (name, t, ms) => windows.trend(name, t, ms) });
  // A scenario's default thresholds judge its own traffic (src/oracle/threshold-scopes.ts); the user's judge the whole run.
  const userExprs = new Set<string>(opts.thresholds ?? []);
  const runScenarios = judgement.run?.scenarios ?? [];
  const defaults = runScenarios.map((s) => ({ scenario: s.name, exprs: (s.thresholds ?? opts.scenarioThresholds?.(s.name) ?? []).filter((e) => !isRegressionExpr(e) && !isDriftExpr(e)) }));
  const { scopes } = thresholdScopes(
    // An expression every scenario declares judges the whole run anyway; dropped iterations are counted per run.
    defaults.map((d) => ({ ...d, exprs: d.exprs.filter((e) => !e.trim().startsWith('dropped_iterations') && defaults.some((o) => !o.exprs.includes(e))) })),
    userExprs,
    () => new MetricsAggregator(),
  );
  const faults: FaultRecord[] = [];
  const boundary = new RateBoundaryCollector();
  for await (const rec of readHistory(historyPath) as AsyncIterable<HistoryRecord>) {
    metrics.add(rec);
    windows.add(rec);
    boundary.add(rec);
    feedScopes(scopes, rec);
    if (rec.kind === 'fault') faults.push(rec);
  }
  const run = judgement.run;
  const end = judgement.end;
  if (end) metrics.addDropped(end.dropped);
  const snapshot = metrics.snapshot();

  const exprs = new Set<string>(opts.thresholds ?? []);
  // The run record carries each scenario's default thresholds; older histories name them only.
  for (const s of run?.scenarios ?? []) for (const t of s.thresholds ?? opts.scenarioThresholds?.(s.name) ?? []) exprs.add(t);
  // Regression (`< baseline * 1.2`) and drift (`trend(...) < 10%/h`) thresholds are judged by their own modules.
  const all = [...exprs];
  const regressionExprs = all.filter(isRegressionExpr);
  const driftExprs = all.filter(isDriftExpr);
  const scopedExprs = new Set(scopes.flatMap((sc) => sc.exprs));
  const thresholds = evaluateThresholds(all.filter((e) => !isRegressionExpr(e) && !isDriftExpr(e) && !scopedExprs.has(e)), snapshot);
  for (const sc of scopes) {
    for (const t of evaluateThresholds(sc.exprs, sc.metrics.snapshot())) thresholds.push({ ...t, scope: [...sc.scenarios].sort() });
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

  const interrupted = opts.interrupted ?? (end ? end.reason === 'interrupted' : true);
  const declaredRules = (run?.scenarios ?? []).flatMap((s) => s.rules);
  const verdict = verdictOf({ invariants: judgement.invariants, thresholds, declaredRules, interrupted });
  const summary = buildSummary({
    run,
    end,
    invariants: judgement.invariants,
    thresholds,
    metrics: snapshot,
    faults,
    exitCode: verdict.exitCode,
    verdict: verdict.verdict,
    findings: [...judgement.findings, ...shardOffsetFindings(judgement.run)],
    reason: verdict.reason,
    rateBoundary: boundary.result(),
  });
  if (comparison) summary.comparison = comparison as unknown as Record<string, unknown>;
  if (drift) summary.drift = drift as unknown as Record<string, unknown>;
  return summary;
}

/** A merged run (`paystorm merge`) reports each shard's clock offset, as the run record's facts hold it. */
export function shardOffsetFindings(run: RunRecord | null): Finding[] {
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
