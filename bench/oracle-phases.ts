/**
 * Where a judge's peak memory is reached: judges one history file and prints the peak RSS at the
 * end of the pass, then after each invariant's finish() that raised it (or took over half a
 * second), with the RSS at that moment. The end of a soak's judgement is a row of such phases
 * (docs/oracle.md, Memory: The end of a 30M-record soak); this names the one that sets the peak.
 *
 *   npx tsx bench/oracle-phases.ts HISTORY_FILE
 *
 * Write a synthetic history to judge with bench/lib/synthetic-history.ts (bench/oracle-memory.ts
 * writes and deletes its own).
 */
import { INVARIANTS, judge, type Invariant } from '../src/oracle/index.ts';
import { readHistory, type HistoryRecord } from '../src/history/index.ts';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: npx tsx bench/oracle-phases.ts HISTORY_FILE\n');
  process.exit(3);
}
const peakMb = () => Math.round(process.resourceUsage().maxRSS / 1024);
const nowMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const t0 = performance.now();
const src = readHistory(file);
async function* tapped(): AsyncIterable<HistoryRecord[]> {
  for await (const b of src.batches()) yield b;
  console.log(`end of pass ${((performance.now() - t0) / 1000).toFixed(1)} s: peak RSS ${peakMb()} MB, now ${nowMb()} MB`);
}
const wrapped: Invariant[] = INVARIANTS.map((inv) => ({
  ...inv,
  create: (ctx) => {
    const check = inv.create(ctx);
    const finish = check.finish.bind(check);
    check.finish = () => {
      const before = peakMb();
      const t = performance.now();
      const out = finish();
      const after = peakMb();
      const took = (performance.now() - t) / 1000;
      if (after > before + 5 || took > 0.5) console.log(`finish ${inv.id.padEnd(36)} ${took.toFixed(1)} s: peak RSS ${before} -> ${after} MB, now ${nowMb()} MB`);
      return out;
    };
    return check;
  },
}));
const result = await judge({ batches: tapped, [Symbol.asyncIterator]: () => { throw new Error('batched only'); } } as unknown as AsyncIterable<HistoryRecord>, { invariants: wrapped });
console.log(`done ${((performance.now() - t0) / 1000).toFixed(1)} s, ${result.records.toLocaleString('en')} records: peak RSS ${peakMb()} MB`);
