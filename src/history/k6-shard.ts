/**
 * k6 shards for `paystorm merge`, each read on a worker thread (k6-shard-worker.ts) so that two
 * shards are read at once on two cores, and so that the shards' records are held as compact
 * serialized chunks until the merge takes them, not as a million objects.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { deserialize } from 'node:v8';
import { buildSync } from 'esbuild';
import { PaystormError, type ExitCode } from '../spec/index.ts';
import type { ShardInput, estimateOffset } from './merge.ts';
import type { EndRecord, HistoryRecord, RunRecord } from './schema.ts';
import type { ScenarioStatus } from '../spec/summary.ts';

/** What the shard's worker says. */
export type K6ShardMessage =
  | { warning: string }
  | { chunk: ArrayBuffer; positions: Int32Array }
  | { done: { run: RunRecord; ends: EndRecord[]; progress: { name: string; status: ScenarioStatus }[]; estimate: ReturnType<typeof estimateOffset>; lastMs: number } }
  | { error: { message: string; exitCode: ExitCode | null; field: string | null; stack: string } };

/** A k6 shard read: the merge's input, and the warnings its reading gave (for the caller to print in shard order). */
export interface K6Shard {
  input: ShardInput;
  warnings: string[];
}

let bundled: string | null = null;

/** The worker's script as the build inlined it into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_K6_SHARD_WORKER: string | undefined;

/** The worker's code, bundled once per process (as the history writer's worker is, writer.ts `workerSource`). */
export function k6ShardWorkerSource(): string {
  if (bundled === null && typeof PAYSTORM_K6_SHARD_WORKER === 'string') bundled = PAYSTORM_K6_SHARD_WORKER;
  if (bundled === null) {
    // The same options as scripts/build.mjs's inlined copy.
    const out = buildSync({ entryPoints: [fileURLToPath(new URL('./k6-shard-worker.ts', import.meta.url))], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
    bundled = out.outputFiles[0].text;
  }
  return bundled;
}

/**
 * Reads one k6 shard on a worker thread. Rejects with the reader's own error (a PaystormError
 * naming the file and line, exit 3) when the file is refused; the warnings given before it are
 * on the error's `warnings`.
 */
export function readK6Shard(source: string, path: string): Promise<K6Shard> {
  return new Promise((resolve, reject) => {
    const warnings: string[] = [];
    const chunks: (ArrayBuffer | null)[] = [];
    const positions: Int32Array[] = [];
    let settled = false;
    const worker = new Worker(k6ShardWorkerSource(), { eval: true, workerData: { path } });
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      (err as Error & { warnings?: string[] }).warnings = warnings;
      void worker.terminate();
      reject(err);
    };
    worker.on('message', (m: K6ShardMessage) => {
      if ('warning' in m) warnings.push(m.warning);
      else if ('chunk' in m) (chunks.push(m.chunk), positions.push(m.positions));
      else if ('error' in m) {
        const e = m.error;
        const err = e.exitCode !== null ? new PaystormError(e.message, e.exitCode, e.field ?? undefined) : new Error(`${path}: ${e.message}`);
        if (e.exitCode === null) err.stack = e.stack;
        fail(err);
      } else if ('done' in m) {
        settled = true;
        void worker.terminate();
        const d = m.done;
        const body = function* (): Generator<{ records: HistoryRecord[]; positions: Int32Array }> {
          for (let c = 0; c < chunks.length; c++) {
            const bytes = chunks[c];
            if (bytes === null) throw new Error(`${source}: the shard's body was read already`);
            chunks[c] = null;
            yield { records: deserialize(new Uint8Array(bytes)) as HistoryRecord[], positions: positions[c] };
          }
        };
        resolve({ input: { source, kind: 'k6', run: d.run, ends: d.ends, progress: d.progress, estimate: d.estimate, lastMs: d.lastMs, body }, warnings });
      }
    });
    worker.on('error', (err) => fail(new Error(`${path}: reading the k6 shard failed (${err.message})`)));
    worker.on('exit', (code) => {
      if (!settled) fail(new Error(`${path}: reading the k6 shard stopped (its worker exited with code ${code})`));
    });
  });
}
