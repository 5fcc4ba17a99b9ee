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

/** A history file being written, and a follower of it counting the records it has read. */
function followed(file: string, follow: { done: () => boolean; held: () => boolean; maxHeldMs: number }) {
  resetSeq();
  const path = join(mkdtempSync(join(tmpdir(), 'paystorm-follow-')), file);
  const writer = new HistoryWriter({ path, flushIntervalMs: 10 });
  const state = { seen: 0, reading: Promise.resolve() };
  state.reading = (async () => {
    for await (const r of readHistory(path, { follow: { pollMs: 10, ...follow } })) {
      void r;
      state.seen++;
    }
  })();
  return { writer, state };
}

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

  it('waits while held, at most maxHeldMs behind the writer, and reads everything once the writer is done even if held', async () => {
    let closed = false;
    let held = true;
    const { writer, state } = followed('history.bin.gz', { done: () => closed, held: () => held, maxHeldMs: 600_000 });
    writer.write(runRec());
    for (let i = 0; i < 50; i++) writer.write(ex({ tStart: i }));
    await sleep(300);
    // Held: nothing read although the records are in the file.
    expect(state.seen).toBe(0);
    held = false;
    for (let i = 0; i < 100 && state.seen < 51; i++) await sleep(20);
    expect(state.seen).toBe(51);
    // Held again: what is written meanwhile waits until the writer is done, then all of it is read.
    held = true;
    for (let i = 0; i < 20; i++) writer.write(ex({ tStart: 100 + i }));
    writer.write(endRec());
    await sleep(200);
    expect(state.seen).toBe(51);
    await writer.close();
    closed = true;
    await state.reading;
    expect(state.seen).toBe(72);
  });

  it('a hold keeps the reader back at most maxHeldMs, then it catches up', async () => {
    let closed = false;
    const { writer, state } = followed('history.ndjson', { done: () => closed, held: () => true, maxHeldMs: 1500 });
    writer.write(runRec());
    for (let i = 0; i < 30; i++) writer.write(ex({ tStart: i }));
    await sleep(300);
    // Inside the bound: nothing read although the records are in the file.
    expect(state.seen).toBe(0);
    // Past the bound: read to the end although still held.
    for (let i = 0; i < 200 && state.seen < 31; i++) await sleep(20);
    expect(state.seen).toBe(31);
    writer.write(endRec());
    await writer.close();
    closed = true;
    await state.reading;
    expect(state.seen).toBe(32);
  });
});
