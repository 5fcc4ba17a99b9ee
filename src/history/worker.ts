/**
 * The history writer's worker thread (offload mode): builds exchange records
 * from raw captures (parse, normalize, shape and leak checks), serializes every
 * line and writes the file, in exactly the order the main thread queued them.
 * It acknowledges queued bytes once they reached the OS (back-pressure).
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { captureRecord } from './exchange-record.ts';
import { LeakScanner } from './leak-scanner.ts';
import { BatchFile } from './batch-file.ts';
import { BINARY_MAGIC, RecordEncoder } from './codec.ts';
import type { HistoryEncoding } from './format.ts';
import { CAPTURE_SLOTS, TAG_CAPTURE, TAG_CARD, TAG_KEY, TAG_LINE, captureCost, lineCost, readCapture, type Slot, type ToWorker } from './worker-protocol.ts';

const port = parentPort!;
// Run below the main thread: a closed-model loop stalls whenever its thread (or the target on a
// shared machine) waits for a CPU this thread holds; records can wait (back-pressure bounds them).
// On Linux the nice value of pid 0 is this thread's alone.
try {
  setPriority(Math.min(19, getPriority() + 10));
} catch {
  // Not permitted or not supported: run at the same priority.
}
const data = workerData as { path: string; batchBytes?: number; flushIntervalMs?: number; encoding: HistoryEncoding; flushCost: number };
const file = new BatchFile(data.path, {
  ...(data.batchBytes !== undefined ? { batchBytes: data.batchBytes } : {}),
  ...(data.flushIntervalMs !== undefined ? { flushIntervalMs: data.flushIntervalMs } : {}),
  onWritten: (cost) => {
    if (cost > 0) port.postMessage({ ack: cost });
  },
  gzip: data.encoding.gzip,
  // A quarter of the writer's high-water mark: acknowledgements keep flowing well before it is reached.
  flushCost: data.flushCost,
});
const encoder = data.encoding.records === 'binary' ? new RecordEncoder() : null;
if (encoder !== null) file.bytes(BINARY_MAGIC);

/** One record into the file, in its encoding (`line`: the record as JSON when the main thread sent it so). */
function put(record: unknown, line: string | null, cost: number): void {
  if (encoder !== null) file.bytes(encoder.encode(record ?? JSON.parse(line!)), cost);
  else file.line(line ?? JSON.stringify(record), cost);
}
const scanner = new LeakScanner();

function onItems(a: Slot[]): void {
  let i = 0;
  while (i < a.length) {
    switch (a[i]) {
      case TAG_LINE: {
        const line = a[i + 1] as string;
        put(null, line, lineCost(line));
        i += 2;
        break;
      }
      case TAG_KEY:
        scanner.addKey(a[i + 1] as string, a[i + 2] as string);
        i += 3;
        break;
      case TAG_CARD:
        scanner.addCard(a[i + 1] as string);
        i += 2;
        break;
      case TAG_CAPTURE: {
        const c = readCapture(a, i);
        i += CAPTURE_SLOTS;
        let rec: unknown;
        try {
          rec = captureRecord(c, scanner);
        } catch (err) {
          // Cannot happen for a well-formed capture; the main thread reports it once.
          port.postMessage({ buildError: (err as Error)?.message ?? String(err) });
          port.postMessage({ ack: captureCost(c.body) });
          break;
        }
        put(rec, null, captureCost(c.body));
        break;
      }
      default:
        throw new Error(`history worker: bad item tag ${String(a[i])}`);
    }
  }
}

port.on('message', (m: ToWorker) => {
  if ('items' in m) onItems(m.items);
  else if ('sync' in m) {
    try {
      file.closeSync();
    } finally {
      Atomics.store(m.sync, 0, 1);
      Atomics.notify(m.sync, 0);
    }
  } else if ('close' in m) {
    file.close().then(
      () => port.postMessage({ closed: true, error: null }),
      (err: unknown) => port.postMessage({ closed: true, error: (err as Error)?.message ?? String(err) }),
    );
  }
});
port.postMessage({ ready: true });
