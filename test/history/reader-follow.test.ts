/**
 * The live judge reads the history while the writer appends to it (`follow`): records arrive as
 * batches are written, and once the writer is done every record is read, the same as a read of
 * the finished file.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryWriter, readHistory, type HistoryRecord } from '../../src/history/index.ts';
import { endRec, ex, resetSeq, runRec } from '../oracle/fixtures.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('readHistory follow', () => {
  for (const file of ['history.bin.gz', 'history.ndjson']) {
    it(`reads ${file} as it is written, and all of it once the writer is done`, async () => {
      resetSeq();
      const path = join(mkdtempSync(join(tmpdir(), 'paystorm-follow-')), file);
      const writer = new HistoryWriter({ path, flushIntervalMs: 10 });
      let closed = false;
      const seen: HistoryRecord[] = [];
      let seenBeforeClose = 0;
      const reading = (async () => {
        for await (const r of readHistory(path, { follow: { done: () => closed, pollMs: 10 } })) {
          seen.push(r);
          if (!closed) seenBeforeClose++;
        }
      })();
      writer.write(runRec());
      for (let i = 0; i < 200; i++) {
        writer.write(ex({ tStart: i }));
        if (i % 20 === 0) await sleep(30);
      }
      // The reader keeps up with the writer.
      for (let i = 0; i < 100 && seen.length < 150; i++) await sleep(20);
      writer.write(endRec());
      await writer.close();
      closed = true;
      await reading;
      expect(seenBeforeClose).toBeGreaterThan(0);
      const whole: HistoryRecord[] = [];
      for await (const r of readHistory(path)) whole.push(r);
      expect(whole).toHaveLength(202);
      expect(seen).toEqual(whole);
    });
  }
});
