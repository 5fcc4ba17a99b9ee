/**
 * `paystorm run`: the whole pipeline, scenario -> engine -> client -> history -> oracle -> report,
 * as a list of steps (src/cli/run-steps/), each taking what the earlier ones gave it. Whatever
 * happens after the history is opened, the history is closed and judged, so nothing already
 * measured is lost; whatever happens, what the steps started (embedded target, proxies,
 * receiver) is closed.
 */
import type { HistoryWriter } from '../history/index.ts';
import type { RunConfig } from './config.ts';
import { readRunSettings, type RunSettings } from './run-steps/settings.ts';
import { RunScope, type RunIo } from './run-steps/scope.ts';
import { openDashboard } from './run-steps/dashboard.ts';
import { resolveTarget } from './run-steps/target.ts';
import { openChaos } from './run-steps/chaos.ts';
import { probeTarget } from './run-steps/probe.ts';
import { openHistory, prepareScenarios, runScenarioSuite, writeRunRecord } from './run-steps/scenarios.ts';
import { RunJudge } from './run-steps/judge.ts';
import { openMetrics, type OpenedMetrics } from './run-steps/metrics.ts';
import { reportRun, type RunResult } from './run-steps/report.ts';

export type { RunIo, RunResult };

export async function executeRun(cfg: RunConfig, io: RunIo): Promise<RunResult> {
  const settings = await readRunSettings(cfg, io);
  const scope = new RunScope(io);
  try {
    // Before anything starts: a busy --metrics-port stops the run before any load (exit 3).
    const metrics = await openMetrics(settings, scope);
    return await judgedRun(settings, scope, metrics);
  } finally {
    await scope.final();
  }
}

async function judgedRun(settings: RunSettings, scope: RunScope, metrics: OpenedMetrics | null): Promise<RunResult> {
  // Started first, so its thread is up by the time the history opens: it waits for the file.
  const judge = new RunJudge(settings, scope);
  try {
    return await loadAndJudge(settings, scope, judge, metrics);
  } finally {
    // Whatever failed (a history that would not close, a report that could not be written), its threads end.
    await judge.close();
  }
}

async function loadAndJudge(settings: RunSettings, scope: RunScope, judge: RunJudge, metrics: OpenedMetrics | null): Promise<RunResult> {
  const { io } = scope;
  let history: HistoryWriter | null = null;
  try {
    await openDashboard(settings, scope);
    const resolved = await resolveTarget(settings, scope);
    const chaos = await openChaos(settings, resolved, scope);
    metrics?.watchChaos(chaos.chaos);
    const target = await probeTarget(settings, chaos.targetUrl, io);
    const prepared = prepareScenarios(settings, target, resolved.receiver, chaos.faultPlan, io);
    const suite = { target, prepared, receiver: resolved.receiver, chaos };
    history = openHistory(settings);
    writeRunRecord(history, settings, scope, suite);
    await runScenarioSuite(history, settings, scope, suite, judge);
  } catch (e) {
    await scope.cleanup();
    if (!history || history.written === 0) {
      await history?.close().catch(() => {});
      throw e;
    }
    // The history is open: keep what was measured, judge it, then report the error.
    io.stderr.write(`paystorm: ${(e as Error).message}\n`);
  }
  await scope.cleanup();
  await history.close();
  scope.live.loadEnded();
  const summary = await judge.final(io.signal?.aborted ?? false);
  const result = await reportRun(summary, settings, io);
  scope.live.verdict(summary);
  return result;
}
