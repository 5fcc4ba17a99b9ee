/**
 * Records held in hand (a merge's stream) handed to the oracle as readHistory hands a file's: in
 * batches (`batches()`), one promise per batch, not per record.
 */
import type { HistoryRecord } from './schema.ts';

/** Records a batch. */
const BATCH_RECORDS = 512;

export type BatchedRecords = AsyncIterable<HistoryRecord> & { batches: () => AsyncIterable<HistoryRecord[]> };

/** The records in batches (read once). */
export function inBatches(records: Iterable<HistoryRecord>): BatchedRecords {
  async function* batches(): AsyncGenerator<HistoryRecord[]> {
    let batch: HistoryRecord[] = [];
    for (const r of records) {
      batch.push(r);
      if (batch.length >= BATCH_RECORDS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }
  return {
    batches,
    async *[Symbol.asyncIterator]() {
      for await (const batch of batches()) yield* batch;
    },
  };
}
