/**
 * What a run's snapshot costs (`--snapshot-every`), late in a long run: the live judge's verdict
 * so far (check.ts InterimCheck: every invariant concludes on what it has read, the pass goes on)
 * against judging the history so far from its start on a thread of its own, as snapshots were
 * made before. The synthetic history (bench/lib/synthetic-history.ts) is judged once, streamed,
 * asking for the verdict so far at each of `--at` (fractions of it); the same prefixes are then
 * judged from their start. Each is timed on this thread (CPU and wall), interleaved over rounds.
 *
 *   nice -n -15 npx tsx bench/snapshot-cost.ts [--records 1000000] [--at 0.5,1] [--rounds 3]
 */
import { check, type InterimCheck } from '../src/oracle/check.ts';
import { syntheticHistory } from './lib/synthetic-history.ts';
import type { HistoryRecord } from '../src/history/index.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : def;
};
const RECORDS = Number(opt('records', '1000000'));
const AT = opt('at', '0.5,1').split(',').map(Number);
const ROUNDS = Number(opt('rounds', '3'));
const options = { thresholds: [] as string[], scenarioThresholds: () => [] as string[] };

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The records once (a snapshot is asked before the end record: the run is still going). */
const all: HistoryRecord[] = [...syntheticHistory(RECORDS)].filter((r) => r.kind !== 'end');
const cuts = AT.map((f) => Math.max(1, Math.min(all.length, Math.round(f * all.length))));
console.log(`${all.length.toLocaleString()} records; snapshots at ${cuts.map((c) => c.toLocaleString()).join(', ')}`);

const interimMs: number[][] = cuts.map(() => []);
const interimCpu: number[][] = cuts.map(() => []);
const freshMs: number[][] = cuts.map(() => []);
const freshCpu: number[][] = cuts.map(() => []);
for (let round = 1; round <= ROUNDS; round++) {
  const runInterim = async (): Promise<void> => {
    const interim: InterimCheck = { result: null };
    const at = new Map(cuts.map((c, i) => [c, i]));
    function* fed(): Generator<HistoryRecord> {
      for (let n = 0; n <= all.length; n++) {
        const i = at.get(n);
        if (i !== undefined) {
          const t0 = performance.now();
          const c0 = cpuMs();
          interim.result?.();
          interimMs[i].push(performance.now() - t0);
          interimCpu[i].push(cpuMs() - c0);
        }
        if (n < all.length) yield all[n];
      }
    }
    await check(fed(), { ...options, interim });
  };
  const runFresh = async (): Promise<void> => {
    for (let i = 0; i < cuts.length; i++) {
      const t0 = performance.now();
      const c0 = cpuMs();
      await check(all.slice(0, cuts[i]), options);
      freshMs[i].push(performance.now() - t0);
      freshCpu[i].push(cpuMs() - c0);
    }
  };
  if (round % 2) {
    await runInterim();
    await runFresh();
  } else {
    await runFresh();
    await runInterim();
  }
  console.log(`round ${round}: ${cuts.map((c, i) => `at ${c.toLocaleString()}: verdict so far ${(interimMs[i].at(-1)! / 1000).toFixed(2)} s, judged from the start ${(freshMs[i].at(-1)! / 1000).toFixed(2)} s`).join('; ')}`);
}
for (let i = 0; i < cuts.length; i++) {
  const a = median(interimMs[i]);
  const b = median(freshMs[i]);
  console.log(`at ${cuts[i].toLocaleString()} records: verdict so far ${(a / 1000).toFixed(2)} s (CPU ${(median(interimCpu[i]) / 1000).toFixed(2)} s), judged from the start ${(b / 1000).toFixed(2)} s (CPU ${(median(freshCpu[i]) / 1000).toFixed(2)} s): ${(a / b).toFixed(2)}x (median of ${ROUNDS} rounds)`);
}
