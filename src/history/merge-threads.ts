/**
 * The reading threads of `paystorm merge` (merge-worker.ts): k6 shards are read on threads of
 * their own, two at a time on two cores. Each hands its shard back as serialized chunks in shared
 * memory (shard-chunks.ts), never as a million objects, which the judging threads then merge
 * (cli/merge-judging.ts).
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { workerScript } from './worker-script.ts';
import { PaystormError, type ExitCode } from '../spec/index.ts';
import type { SerializedShard } from './shard-chunks.ts';

export type MergeWorkerTask = { task: 'read-k6'; source: string; path: string };

/** What a merge worker says. */
export type MergeWorkerMessage =
  | { warning: string }
  | { shard: SerializedShard }
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
function runTask<T>(task: MergeWorkerTask, result: (m: MergeWorkerMessage) => T | undefined): Promise<{ value: T; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    const warnings: string[] = [];
    let settled = false;
    const worker = new Worker(mergeWorkerSource(), { eval: true, workerData: task });
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
