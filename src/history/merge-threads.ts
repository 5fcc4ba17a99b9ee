/**
 * The threads of `paystorm merge` (merge-worker.ts): k6 shards are read on threads of their own,
 * two at a time on two cores. Each hands its shard back as serialized chunks in shared memory
 * (shard-chunks.ts), never as a million objects; a thread of its own then merges them and writes
 * the merged history (cli/merge-judging.ts), with a young generation big enough for the records
 * it decodes and lets go of at full speed.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerScript } from './worker-script.ts';
import { PaystormError, type ExitCode } from '../spec/index.ts';
import type { SerializedShard } from './shard-chunks.ts';
import type { ClockOffset } from './merge.ts';
import type { ShardDifference } from './shard-compat.ts';

export type MergeWorkerTask =
  | { task: 'read-k6'; source: string; path: string }
  /** mergeShardInputs(shards, offsets, mixed), written to historyPath (records-file.ts writeRecords). */
  | { task: 'write'; shards: SerializedShard[]; offsets: ClockOffset[]; mixed: ShardDifference[]; historyPath: string };

/** What a merge worker says. */
export type MergeWorkerMessage =
  | { warning: string }
  | { shard: SerializedShard }
  | { written: number }
  | { error: { message: string; exitCode: ExitCode | null; field: string | null; stack: string } };

/** The worker's script as the build inlined it into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_MERGE_WORKER: string | undefined;

/** The worker's code as one script (worker-script.ts). */
export function mergeWorkerSource(): string {
  return workerScript(typeof PAYSTORM_MERGE_WORKER === 'string' ? PAYSTORM_MERGE_WORKER : undefined, fileURLToPath(new URL('./merge-worker.ts', import.meta.url)));
}

/**
 * Runs one task on a worker thread; resolves with its result message. Rejects with the task's
 * own error (a PaystormError keeps its exit code and field); the warnings given before are on
 * the error's `warnings`.
 */
function runTask<T>(task: MergeWorkerTask, result: (m: MergeWorkerMessage) => T | undefined, youngGenerationMb?: number): Promise<{ value: T; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const warnings: string[] = [];
    let settled = false;
    const limits = youngGenerationMb !== undefined ? { resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb } } : {};
    const worker = new Worker(mergeWorkerSource(), { eval: true, workerData: task, ...limits });
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      (err as Error & { warnings?: string[] }).warnings = warnings;
      void worker.terminate();
      reject(err);
    };
    worker.on('message', (m: MergeWorkerMessage) => {
      if ('warning' in m) warnings.push(m.warning);
      else if ('error' in m) {
        const e = m.error;
        if (e.exitCode !== null) return fail(new PaystormError(e.message, e.exitCode, e.field ?? undefined));
        const err = new Error(e.message);
        err.stack = e.stack;
        fail(err);
      } else {
        const value = result(m);
        if (value === undefined || settled) return;
        settled = true;
        void worker.terminate();
        resolve({ value, warnings });
      }
    });
    worker.on('error', (err) => fail(err));
    worker.on('exit', (code) => fail(new Error(`the merge's ${task.task} thread exited (code ${code}) before it was done`)));
  });
}

/** Reads a k6 shard on a worker thread: its body serialized, and the warnings its reading gave (for the caller to print in shard order). */
export async function readK6Shard(source: string, path: string): Promise<{ shard: SerializedShard; warnings: string[] }> {
  const { value, warnings } = await runTask({ task: 'read-k6', source, path }, (m) => ('shard' in m ? m.shard : undefined));
  return { shard: value, warnings };
}

/**
 * The merge's writing thread's young generation (MB; Node's default is 16 MB of semi-space, about
 * 48 MB in all): it decodes a record object per exchange and lets it go once written, and with the
 * default most of its time went to the garbage collector.
 */
const WRITER_YOUNG_MB = Number(process.env.PAYSTORM_MERGE_WRITER_YOUNG_MB ?? 192);

/** Merges the shards (mergeShardInputs over their chunks) and writes the merged history to `historyPath`, on a thread of its own; resolves with the records written. */
export async function writeMergedHistory(shards: SerializedShard[], offsets: ClockOffset[], mixed: readonly ShardDifference[], historyPath: string): Promise<number> {
  const { value } = await runTask({ task: 'write', shards, offsets, mixed: [...mixed], historyPath }, (m) => ('written' in m ? m.written : undefined), WRITER_YOUNG_MB);
  return value;
}
