/**
 * A k6 shard of `paystorm merge`, read on a worker thread (k6-shard.ts starts it): the file is
 * read (readK6) and its records decoded once; what the merge needs of the shard as a whole
 * (clock offset estimate, scenario progress, latest completion) is worked out here, and its
 * exchanges go back in the merge's order (completion time, then position) as V8-serialized
 * chunks, which the main thread turns into records only when the merge reaches them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { serialize } from 'node:v8';
import { readK6 } from './k6.ts';
import { completionTime, estimateOffset } from './merge.ts';
import { scenarioProgressOf } from './scenario-progress.ts';
import { PaystormError } from '../spec/index.ts';
import type { EndRecord, ExchangeRecord, HistoryRecord } from './schema.ts';
import type { K6ShardMessage } from './k6-shard.ts';

/** Records per chunk sent. */
const CHUNK_RECORDS = 1024;

const port = parentPort!;
const post = (m: K6ShardMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);

async function main(path: string): Promise<void> {
  const k6 = await readK6(path, { onWarning: (m) => post({ warning: m }) });
  const all = [...k6.records()];
  const body: HistoryRecord[] = [];
  const positions: number[] = [];
  const ends: EndRecord[] = [];
  all.forEach((r, i) => {
    if (r.kind === 'end') ends.push(r);
    else if (r.kind !== 'run') (body.push(r), positions.push(i));
  });
  const estimate = estimateOffset(k6.run, body.filter((r): r is ExchangeRecord => r.kind === 'exchange'));
  const progress = scenarioProgressOf(all).map((p) => ({ name: p.name, status: p.status }));
  all.length = 0;
  const times = Float64Array.from(body, completionTime);
  let lastMs = 0;
  for (const t of times) if (t > lastMs) lastMs = t;
  const order = Array.from(times, (_, k) => k).sort((a, b) => times[a] - times[b] || a - b);
  for (let at = 0; at < order.length; at += CHUNK_RECORDS) {
    const ks = order.slice(at, at + CHUNK_RECORDS);
    const bytes = serialize(ks.map((k) => body[k]));
    // Its own ArrayBuffer, handed over rather than copied.
    const chunk = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length ? bytes : Buffer.from(bytes);
    const pos = Int32Array.from(ks, (k) => positions[k]);
    post({ chunk: chunk.buffer as ArrayBuffer, positions: pos }, [chunk.buffer as ArrayBuffer, pos.buffer]);
  }
  post({ done: { run: k6.run, ends, progress, estimate, lastMs } });
}

main((workerData as { path: string }).path).catch((e: unknown) => {
  const err = e instanceof Error ? e : new Error(String(e));
  post({ error: { message: err.message, exitCode: err instanceof PaystormError ? err.exitCode : null, field: err instanceof PaystormError ? (err.field ?? null) : null, stack: err.stack ?? '' } });
});
