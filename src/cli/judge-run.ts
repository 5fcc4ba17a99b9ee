/**
 * Judges a saved history exactly as a live run is judged: one pass for the oracle,
 * one for the metrics, then thresholds, verdict and summary. `paystorm run`,
 * `check` and `report` all go through here, so a saved run and a live one agree.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT, PaystormError, type FaultRecord, type HistoryRecord, type Summary } from '../spec/index.ts';
import { judge } from '../oracle/judge.ts';
import { notAHistory } from './history-file.ts';
import { readHistory } from '../oracle/read-history.ts';
import { evaluateThresholds } from '../oracle/thresholds.ts';
import { verdictOf } from '../oracle/verdict.ts';
import { buildSummary } from '../oracle/summary.ts';
import { MetricsAggregator } from '../engine/metrics.ts';
import { RateBoundaryCollector } from '../oracle/lib/rate-boundary.ts';

export interface JudgeRunOptions {
  /** Thresholds in k6 syntax, beside the ones the run's scenarios carry by default. */
  thresholds?: readonly string[];
  /** Scenario default thresholds by scenario name (the history names the scenarios; their defaults live in code). */
  scenarioThresholds?: (scenario: string) => readonly string[];
  /** The run was interrupted (SIGINT/SIGTERM). */
  interrupted?: boolean;
  onWarning?: (message: string) => void;
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

  const metrics = new MetricsAggregator();
  const faults: FaultRecord[] = [];
  const boundary = new RateBoundaryCollector();
  for await (const rec of readHistory(historyPath) as AsyncIterable<HistoryRecord>) {
    metrics.add(rec);
    boundary.add(rec);
    if (rec.kind === 'fault') faults.push(rec);
  }
  const run = judgement.run;
  const end = judgement.end;
  if (end) metrics.addDropped(end.dropped);
  const snapshot = metrics.snapshot();

  const exprs = new Set<string>(opts.thresholds ?? []);
  // The run record carries each scenario's default thresholds; older histories name them only.
  for (const s of run?.scenarios ?? []) for (const t of s.thresholds ?? opts.scenarioThresholds?.(s.name) ?? []) exprs.add(t);
  const thresholds = evaluateThresholds([...exprs], snapshot);

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
    findings: judgement.findings,
    reason: verdict.reason,
    rateBoundary: boundary.result(),
  });
  return summary;
}
