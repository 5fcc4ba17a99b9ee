/**
 * Step 5 of `paystorm run`: the oracle's verdict, judged while the run goes. The live judge
 * (src/cli/live/live-judge.ts) follows the history file on its own thread: each violation a check
 * confirms reaches `scope.live` at once (the progress line, the metrics endpoint, the live page),
 * stops the run under --abort-on-violation, and when the history closes the same judge gives the
 * final summary, so an interrupted run has its reports as soon as the judge has read the last
 * records. Snapshots (--snapshot-every, and a scenario's `ctx.snapshot`) take the same judge's
 * verdict so far and rewrite summary.json and report.html, marked as a snapshot.
 */
import { FOLLOW_MAX_HELD_MS } from '../../history/reader.ts';
import type { Summary } from '../../spec/index.ts';
import { readHistory, type HistoryRecord } from '../../history/index.ts';
import { check, type Unjudged } from '../../oracle/index.ts';
import { unjudgedRecords } from '../judge-run.ts';
import { JudgeOutOfMemory } from '../live/judge-memory.ts';
import { writeSnapshot } from '../../report/index.ts';
import { STOP_REASONS } from '../../engine/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';
import { judgeSnapshot, LiveJudge, scenarioThresholdsOf, type JudgedViolation, type JudgeWorkerOptions } from '../live/live-judge.ts';
import { SNAPSHOT_DEFAULT, type JudgeSettings, type RunSettings } from './settings.ts';
import type { RunScope } from './scope.ts';

/** The end record's reason when --abort-on-violation stopped the run. */
export const violationStopReason = (invariant: string) => `${STOP_REASONS.violation}: ${invariant}`;

/** The judge's options as data its thread can be sent. */
export function judgeWorkerOptions(judging: JudgeSettings, scenarios: RunSettings['scenarios']): JudgeWorkerOptions {
  return {
    thresholds: [...judging.thresholds],
    scenarioThresholds: scenarioThresholdsOf(scenarios),
    ...(judging.baseline ? { baseline: judging.baseline } : {}),
    ...(judging.trendWindowMs !== undefined ? { trendWindowMs: judging.trendWindowMs } : {}),
  };
}

/** Does --abort-on-violation stop the run at this violation? */
export function abortsOn(setting: RunSettings['abortOnViolation'], v: Pick<JudgedViolation, 'invariant' | 'rules'>): boolean {
  if (setting === null) return false;
  return setting === 'any' || setting.has(v.invariant) || v.rules.some((r) => setting.has(r));
}

/** Does the live judge hold off while the load saturates the machine? Not when a violation must stop the run at once (--abort-on-violation). */
export function judgeYieldsToLoad(s: Pick<RunSettings, 'abortOnViolation'>): boolean {
  return s.abortOnViolation === null;
}

/** How often to snapshot: --snapshot-every, else every 5 minutes of a run planned over 15 (else never). */
export function snapshotEveryMs(s: Pick<RunSettings, 'snapshotEveryMs'>, plannedMs: number): number | null {
  if (s.snapshotEveryMs !== undefined) return s.snapshotEveryMs;
  return plannedMs > SNAPSHOT_DEFAULT.whenPlannedOverMs ? SNAPSHOT_DEFAULT.everyMs : null;
}

export class RunJudge {
  /** Aborted (reason: the end record's) when --abort-on-violation stops the run. */
  readonly stop = new AbortController();
  private readonly live: LiveJudge;
  private readonly options: JudgeWorkerOptions;
  private timer: NodeJS.Timeout | null = null;
  private snapshotting: { cancel: () => Promise<void>; done: Promise<void> } | null = null;
  private finished = false;
  /** The live judge holds off while the load saturates the machine: a snapshot covers what it read before. */
  private held = false;

  constructor(
    private readonly s: RunSettings,
    private readonly scope: RunScope,
  ) {
    this.options = judgeWorkerOptions(s.judging, s.scenarios);
    const { io } = scope;
    this.live = new LiveJudge(
      s.historyPath,
      this.options,
      {
        onViolation: (v) => this.onViolation(v),
        onWarning: (m) => io.stderr.write(`paystorm: ${m}\n`),
        onFailed: (e) => this.onFailed(e),
        onHold: (held) => {
          this.held = held;
          this.scope.live.judging(held);
        },
      },
      { yieldToLoad: judgeYieldsToLoad(s), memoryMb: s.judgeMemoryMb },
    );
  }

  /** The live judge ran out of memory while the load went on: no snapshot can be judged either. */
  private outOfMemory: JudgeOutOfMemory | null = null;

  /** The live judge's thread is gone while the load goes on: said at once, since nothing is judged live from now on. */
  private onFailed(e: Error): void {
    if (e instanceof JudgeOutOfMemory) this.outOfMemory = e;
    const at = `${(this.scope.clock.now() / 1000).toFixed(1)} s`;
    const after =
      e instanceof JudgeOutOfMemory
        ? `the run's invariants will not be judged (its metrics and thresholds will); afterwards, ${e.recheck(this.s.runDir)}`
        : 'its history will be judged when the load ends';
    const abort = this.s.abortOnViolation !== null ? '; --abort-on-violation can no longer stop it' : '';
    this.scope.io.stderr.write(`paystorm: the live judge stopped at ${at}: ${e.message}. The load goes on; no violation is found while it runs${abort}, and ${after}\n`);
  }

  private onViolation(v: JudgedViolation): void {
    const t = this.scope.clock.now();
    this.scope.live.violation({ invariant: v.invariant, rules: v.rules, evidence: v.evidence, t });
    if (!this.stop.signal.aborted && abortsOn(this.s.abortOnViolation, v)) {
      this.scope.io.stderr.write(`paystorm: --abort-on-violation: ${v.invariant} (${v.rules.join(', ')}) violated: ${v.evidence.message}; found at ${(t / 1000).toFixed(1)} s, stopping the run\n`);
      this.stop.abort(violationStopReason(v.invariant));
    }
  }

  /** Snapshots every `everyMs` from now until the load ends. */
  every(everyMs: number, log: (m: string) => void): void {
    this.timer = setInterval(() => void this.snapshot(`every ${Math.round(everyMs / 1000)} s`, log), everyMs);
    this.timer.unref();
  }

  /**
   * Rewrites summary.json and report.html with the verdict so far, marked as a snapshot: the live
   * judge's, over the records it has read (check.ts InterimCheck: what `check` of them gives, in
   * the time its invariants take to conclude, without judging the file again); if its thread is
   * gone, the file as it stands judged on a thread of its own. One at a time: a snapshot asked for
   * while one runs is skipped.
   */
  async snapshot(label: string, log: (m: string) => void): Promise<void> {
    if (this.snapshotting || this.finished) return;
    // A judge from the start would read more than the one that ran out, within the same limit.
    if (this.outOfMemory) return log(`snapshot (${label}) skipped: ${this.outOfMemory.message}, so there is no verdict so far`);
    const fresh = this.live.gone ? judgeSnapshot(this.s.historyPath, this.options, this.s.judgeMemoryMb) : null;
    const summary: Promise<Summary | null> = fresh ? fresh.summary : this.live.snapshot();
    let cancelled = false;
    const cancel = async (): Promise<void> => {
      cancelled = true;
      await fresh?.cancel();
    };
    const done = summary.then(
      async (sum) => {
        if (this.finished || cancelled) return;
        const yielding = `the judge is yielding to the saturated load (at most ${FOLLOW_MAX_HELD_MS / 1000} s at a stretch)`;
        if (sum === null) return log(`snapshot (${label}) skipped: the judge has no verdict so far to give (no record read yet, or the history already closed)${this.held ? `; ${yielding}` : ''}`);
        await writeSnapshot(this.s.runDir, sum, this.scope.clock.now());
        log(`snapshot (${label}): ${sum.invariants.filter((i) => i.status === 'fail').length} failing invariant(s) so far, summary.json and report.html in ${this.s.runDir}${this.held ? `; ${yielding}, so it covers the records read before` : ''}`);
      },
      // Cancelled by the end of the run: nothing to say.
      (e: unknown) => (this.finished ? undefined : log(`snapshot (${label}) failed: ${(e as Error).message}`)),
    );
    this.snapshotting = { cancel, done };
    try {
      await done;
    } finally {
      this.snapshotting = null;
    }
  }

  /** The history is closed: the live judge's verdict (or, if its thread failed, the file judged here). */
  async final(interrupted: boolean): Promise<Summary> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    await this.endSnapshot();
    try {
      return await this.live.close(interrupted);
    } catch (e) {
      if ((e as { exitCode?: unknown }).exitCode !== undefined) throw e;
      // Judged again on this thread, it would run out of memory too, and take the run's reports with it.
      if (e instanceof JudgeOutOfMemory) return unjudgedFile(this.s, interrupted, e.unjudged(this.s.runDir), this.scope.io.stderr);
      this.scope.io.stderr.write(`paystorm: ${(e as Error).message}; judging the history file instead\n`);
      return judgeFile(this.s, interrupted);
    }
  }

  /** Ends its threads (after the verdict, or without one when the run failed). Safe to call twice. */
  async close(): Promise<void> {
    this.finished = true;
    if (this.timer) clearInterval(this.timer);
    await this.endSnapshot();
    await this.live.terminate();
  }

  /** A snapshot still judging is cancelled, one being written is let finish: neither may overwrite the final reports. */
  private async endSnapshot(): Promise<void> {
    const s = this.snapshotting;
    if (!s) return;
    await s.cancel();
    await s.done;
  }
}

/** Records judged on this thread (the fallback when the judge's thread failed). */
export async function judgeRun(history: Iterable<HistoryRecord> | AsyncIterable<HistoryRecord>, judging: JudgeSettings, interrupted: boolean): Promise<Summary> {
  const { summary } = await check(history, {
    ...judging,
    // Histories whose run record names scenarios without their thresholds: take them from the code.
    scenarioThresholds: (name) => scenarioByName(name)?.thresholds ?? [],
    interrupted,
  });
  return summary;
}

function judgeFile(s: RunSettings, interrupted: boolean): Promise<Summary> {
  return judgeRun(readHistory(s.historyPath, { onWarning: () => {} }), s.judging, interrupted);
}

/** The run's metrics and thresholds with no invariant judged: the live judge ran out of memory (`why` says so, and how to judge the history). */
function unjudgedFile(s: RunSettings, interrupted: boolean, why: Unjudged, stderr: { write: (text: string) => unknown }): Promise<Summary> {
  const opts = { ...s.judging, scenarioThresholds: (name: string) => scenarioByName(name)?.thresholds ?? [], interrupted };
  return unjudgedRecords(readHistory(s.historyPath, { onWarning: () => {} }), why, opts, (t) => void stderr.write(t));
}
