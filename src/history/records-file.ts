/**
 * A history file written from records in hand, whole, in one go (the merged history of
 * `paystorm merge`): binary frames or NDJSON by the file's name (format.ts), gzipped when it
 * ends in .gz, through a BatchFile.
 */
import { BatchFile } from './batch-file.ts';
import { BINARY_MAGIC, RecordEncoder } from './codec.ts';
import { encodingOf } from './format.ts';
import type { HistoryRecord } from './schema.ts';

/**
 * Bytes of the history queued for the disk above which the writer lets its writes complete. The
 * file grows only when it does, and a merge's judge follows the file: at 8 MB the judge waited
 * about 2 s for the first bytes and then read in 8 MB steps (a 1M-exchange merge, 5 interleaved
 * rounds: 1 MB ended 0.5-1.3 s sooner in 4 of them).
 */
const HIGH_WATER_BYTES = 1024 * 1024;

/** Records between looks at the queue. */
const CHECK_EVERY = 1024;

/** Writes `records` to `path`; resolves with how many once the file is closed. */
export async function writeRecords(path: string, records: Iterable<HistoryRecord>): Promise<number> {
  const encoding = encodingOf(path);
  const file = new BatchFile(path, { gzip: encoding.gzip });
  const encoder = encoding.records === 'binary' ? new RecordEncoder() : null;
  if (encoder !== null) file.bytes(BINARY_MAGIC);
  let n = 0;
  for (const r of records) {
    if (encoder !== null) file.bytes(encoder.encode(r));
    else file.line(JSON.stringify(r));
    if (++n % CHECK_EVERY === 0 && file.queued > HIGH_WATER_BYTES) await new Promise((resolve) => setImmediate(resolve));
  }
  await file.close();
  return n;
}
