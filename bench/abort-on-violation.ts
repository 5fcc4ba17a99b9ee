/**
 * How soon `--abort-on-violation` stops a run at a seeded double charge: `paystorm run
 * idempotency mixed --duration 60s` against the embedded service with `idem-no-inflight-lock`
 * (concurrent creates under one Idempotency-Key each make a payment). Per round, on the run's
 * clock: from the answer that brought the second object back to the live judge's confirmation
 * (the "found at" of the stop line), and to the end record (the run stopped). Rounds run one
 * after another in this process; the median and the worst are printed.
 *
 *   npx tsx bench/abort-on-violation.ts [--rounds 5] [--warm 10s]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeRun } from '../src/cli/run.ts';
import { resolveRunConfig } from '../src/cli/run-checks.ts';
import { bufferIo } from '../src/cli/selftest.ts';
import { historyFileIn, readHistory, type EndRecord, type ExchangeRecord, type HistoryRecord } from '../src/history/index.ts';
import { arg, fmt, median } from './engine-lib.ts';

const rounds = Number(arg('rounds', '5'));
// --warm 10s: `mixed` runs that long first, so the violation comes when the judge is well under way
// (a violation in a run's first seconds also waits for the judge's thread to start).
const warm = arg('warm', '');
const found: number[] = [];
const stopped: number[] = [];
for (let round = 1; round <= rounds; round++) {
  const out = mkdtempSync(join(tmpdir(), 'paystorm-abort-'));
  const io = bufferIo();
  const cfg = resolveRunConfig({ scenarios: warm ? ['mixed', 'idempotency'] : ['idempotency', 'mixed'], duration: warm || '60s', bugs: ['idem-no-inflight-lock'], seed: round, out, abortOnViolation: true }, null);
  const result = await executeRun(cfg, io);
  const records: HistoryRecord[] = [];
  for await (const r of readHistory(historyFileIn(result.runDir!)!)) records.push(r);
  const end = records.find((r) => r.kind === 'end') as EndRecord;
  const seqs = result.summary!.invariants.find((i) => i.id === 'idem-single-object')?.examples[0]?.seqs ?? [];
  const answers = records.filter((r): r is ExchangeRecord => r.kind === 'exchange' && seqs.includes(r.seq)).map((r) => r.tEnd).sort((a, b) => a - b);
  const foundAt = Number(/found at ([\d.]+) s, stopping/.exec(io.text())?.[1]) * 1000;
  if (end.reason !== 'violation: idem-single-object' || answers.length < 2 || !Number.isFinite(foundAt)) {
    console.log(`round ${round}: not stopped by the violation (end reason ${end.reason}, exit ${result.exitCode})`);
  } else {
    // The second object's answer is the violating exchange.
    const at = answers[1];
    found.push(foundAt - at);
    stopped.push(end.tEnd - at);
    console.log(`round ${round}: violating answer at ${fmt(at / 1000)} s; confirmed ${fmt((foundAt - at) / 1000)} s later, run stopped ${fmt((end.tEnd - at) / 1000)} s after it; exit ${result.exitCode}`);
  }
  rmSync(out, { recursive: true, force: true });
}
console.log('');
console.log(`median: confirmed ${fmt(median(found) / 1000)} s, stopped ${fmt(median(stopped) / 1000)} s after the violating exchange (worst ${fmt(Math.max(...stopped) / 1000)} s; ${stopped.length} of ${rounds} rounds)`);
