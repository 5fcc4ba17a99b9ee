/**
 * The live judge's thread: the oracle's `check` over the history file, followed as it is written
 * (`live`; asked, it gives its verdict so far for a run's snapshot), or over the file as it stands
 * (`snapshot`, when the live judge's thread is gone). The same `check` as `paystorm check`, so the
 * verdict a run prints is the one a later check of its folder gives. Told violations are posted as
 * checks confirm them; the summary is posted at the end. `paystorm merge` (`merge`) has it follow
 * the merged history as it writes it, as a run does. For `paystorm check` of k6 output (`k6`) it
 * runs the invariants alone and posts their judgement, while the main thread folds the rest of
 * `check` from the same records. `paystorm check` and `report` of a history file (`file`) judge it
 * as it stands, at full priority. Every mode watches its heap (HeapWatch) and warns near its limit.
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { readHistory, type HistoryFile } from '../../history/reader.ts';
import { check, type CheckOptions, type InterimCheck } from '../../oracle/check.ts';
import { judge } from '../../oracle/judge.ts';
import { K6Feed } from './k6-feed.ts';
import { HeapWatch, JudgeFileForecast } from './judge-memory.ts';
import { fileSizeOf, JudgeProgress } from './judge-progress.ts';
import { withBoundedTimeline } from '../../report/bound.ts';
import type { HistoryRecord } from '../../history/index.ts';
import { isHeld } from './load-pacer.ts';
import type { FromJudge, JudgeWorkerData, ToJudge } from './protocol.ts';

// Below the load's threads (as the history writer's worker): judging may lag while the machine is
// busy and catches up after; the load (and an embedded service in the same process) must not wait.
// On Linux the nice value of pid 0 is this thread's alone.
// (`paystorm check` of k6 output and `paystorm merge` are no run: their judge thread is the work itself, at full priority.)
const data = workerData as JudgeWorkerData;
if (data.mode === 'live' || data.mode === 'snapshot') {
  try {
    setPriority(Math.min(19, getPriority() + 10));
  } catch {
    // Not permitted or not supported: run at the same priority.
  }
}
const port = parentPort!;
const post = (m: FromJudge) => port.postMessage(m);

let closed = false;
let interrupted: boolean | undefined;
let pathSent: (path: string) => void = () => undefined;
/** The merged history's path, once `paystorm merge` is about to write it. */
const mergedHistory = new Promise<string>((resolve) => (pathSent = resolve));
/** `live`: the verdict so far, asked for by a snapshot between two batches of records. */
const interim: InterimCheck = { result: null };
const k6 = data.mode === 'k6' ? new K6Feed(data.historyPath, (b) => port.postMessage({ recycle: b } satisfies FromJudge, [b.bytes.buffer as ArrayBuffer, b.bounds.buffer as ArrayBuffer])) : null;
port.on('message', (m: ToJudge) => {
  if ('close' in m) {
    interrupted = m.close.interrupted;
    closed = true;
  } else if ('follow' in m) pathSent(m.follow.historyPath);
  else if ('snapshot' in m) {
    // Bounded here: the run's thread, which receives and writes it, is the load's (bound.ts MAX_SNAPSHOT_POINTS).
    const summary = interim.result?.()?.summary ?? null;
    post({ snapshot: { id: m.snapshot.id, summary: summary && withBoundedTimeline(summary) } });
  }
  else if (k6) k6.take(m);
});

/** The run's hold on the reading (a saturated load: load-pacer.ts), when it gave one. */
function holding(): { held?: () => boolean; maxHeldMs?: number } {
  const hold = data.hold;
  return hold ? { held: () => isHeld(hold.flag), maxHeldMs: hold.maxHeldMs } : {};
}

/**
 * The records, counted as they are judged: a judge near its memory limit says so while there is
 * time to act (HeapWatch), and a judge of a file as it stands (`file`) says how far it got (JudgeProgress).
 */
function watched(source: AsyncIterable<HistoryRecord> & { batches(): AsyncIterable<HistoryRecord[]> }, file?: HistoryFile): AsyncIterable<HistoryRecord> & { batches(): AsyncIterable<HistoryRecord[]> } {
  const watch = new HeapWatch((m) => post({ warning: m }), data.memoryMb);
  const size = file ? fileSizeOf(file.path) : 0;
  const progress = file ? new JudgeProgress((p) => post({ progress: p }), size, () => file.bytesRead(), data.progressEveryMs) : null;
  const forecast = file && data.memoryMb !== undefined ? new JudgeFileForecast((m) => post({ warning: m }), data.memoryMb, size, () => file.bytesRead(), data.forecastAfter) : null;
  return {
    [Symbol.asyncIterator]: () => source[Symbol.asyncIterator](),
    async *batches() {
      for await (const batch of source.batches()) {
        yield batch;
        watch.judged(batch.length);
        progress?.judged(batch.length);
        forecast?.judged(batch.length);
      }
    },
  };
}

async function main(): Promise<void> {
  const o = data.options;
  const live = data.mode === 'live';
  if (k6) {
    // The invariants alone: the main thread folds metrics and thresholds from the same records.
    post({ judgement: await judge(watched(k6)) });
    return;
  }
  // A merge writes its history as a run does: followed the same way.
  const following = live || data.mode === 'merge';
  const historyPath = data.mode === 'merge' ? await mergedHistory : data.historyPath;
  const read =
    readHistory(historyPath, {
      onWarning: (m) => (live || data.mode === 'file' ? post({ warning: m }) : undefined),
      ...(following ? { follow: { done: () => closed, ...(data.pollMs !== undefined ? { pollMs: data.pollMs } : {}), ...holding() } } : {}),
    });
  const records = watched(read, data.mode === 'file' ? read : undefined);
  const options: CheckOptions = {
    thresholds: o.thresholds,
    scenarioThresholds: (name: string) => (Object.hasOwn(o.scenarioThresholds, name) ? o.scenarioThresholds[name] : []),
    ...(o.baseline ? { baseline: o.baseline } : {}),
    ...(o.trendWindowMs !== undefined ? { trendWindowMs: o.trendWindowMs } : {}),
    ...(live ? { onViolation: (inv, evidence) => post({ violation: { invariant: inv.id, rules: [...inv.rules], evidence } }), interim } : {}),
  };
  // Read once the records are judged: the run says it when it closes the history, before the last records are read.
  Object.defineProperty(options, 'interrupted', { get: () => interrupted, enumerable: true });
  const { summary } = await check(records, options);
  post({ summary });
}

// Loaded: the oracle's modules are in (the costly part of starting).
post({ ready: true });
main().catch((e: unknown) => post({ error: (e as Error)?.message ?? String(e), exitCode: (e as { exitCode?: number }).exitCode ?? null }));
