/**
 * Oracle memory benchmark: how the judge's retained state grows with the length of a history.
 * Writes the synthetic history (bench/lib/synthetic-history.ts: the set of payments still being
 * polled stays about the same size however long it runs) at several lengths, then judges each
 * in a fresh process and measures, after a full garbage collection at the end of the pass (the
 * moment the oracle holds the most), the live heap plus typed-array memory, the process's peak
 * RSS, and what it wrote to its scratch files (lib/spill.ts). It prints bytes per record and per
 * payment, the growth between lengths, and what the oracle's ledger holds, field by field, for
 * the longest history.
 *
 *   npx tsx bench/oracle-memory.ts [--lengths 250000,500000,1000000] [--rounds 1]
 *   npx tsx bench/oracle-memory.ts --per-invariant [--lengths 250000]
 *   npx tsx bench/oracle-memory.ts --history FILE [--lengths 100000,200000,400000] [--per-invariant]
 *
 * --history judges the first N records of a recorded history (a real run's: its hosted pages, 3DS,
 * webhook retries and probes, which the synthetic history has few of) in place of the synthetic
 * history of N records; a record count past the file's end judges the whole file. Its verdict is
 * not asked to pass (a prefix ends mid-run).
 *
 * --per-invariant judges the first length once with no invariant and once with each invariant
 * alone, and prints what each holds beyond the ledger they share (the largest first).
 *
 * The bar (issue 13): memory bounded by the number of open payments, not the length of the run.
 * A flat line would meet it; the slope per payment is what a soak pays for every payment made.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { INVARIANTS, judge, type Invariant, type OracleContext } from '../src/oracle/index.ts';
import { readHistory, type HistoryRecord } from '../src/history/index.ts';
import { writeSyntheticHistory } from './lib/synthetic-history.ts';
import { scratchBytesWritten } from '../src/oracle/lib/spill.ts';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};

interface Measure {
  records: number;
  payments: number;
  /** Live heap + array buffers after a full GC at the end of the pass, MB. */
  liveMb: number;
  peakRssMb: number;
  /** Written to the judge's scratch files (lib/spill.ts), MB: what waits for the end on disk, not in the heap. */
  scratchMb: number;
  /** Ledger fields, MB (only with --fields). */
  fields: Record<string, number>;
}

const MB = 1e6;

/** In the child: judge the file with every invariant, measuring live memory at the end of the pass. */
async function measure(file: string, fields: boolean, only?: readonly string[], limit = Infinity): Promise<Measure> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  const live = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  let ctx: OracleContext | null = null;
  // Holds the context (and so the ledger) so its fields can be weighed after the pass.
  const holder: Invariant = { id: 'memory-probe', title: 'memory probe', rules: [], create: (c) => ((ctx = c), { finish: () => ({ status: 'pass', checked: 0, violations: 0, examples: [], reason: null }) }) };
  const base = live();
  let atEnd = 0;
  const src = readHistory(file);
  async function* tapped(): AsyncIterable<HistoryRecord[]> {
    let left = limit;
    for await (const b of src.batches()) {
      if (left <= 0) break;
      yield b.length <= left ? b : b.slice(0, left);
      left -= b.length;
    }
    atEnd = live(); // every record is in; no invariant has finished yet
  }
  const result = await judge({ batches: tapped, [Symbol.asyncIterator]: () => { throw new Error('batched only'); } } as unknown as AsyncIterable<HistoryRecord>, { invariants: [...(only ? INVARIANTS.filter((i) => only.includes(i.id)) : INVARIANTS), holder] });
  const bad = result.invariants.filter((i) => i.status === 'fail' || i.status === 'error');
  if (bad.length && limit === Infinity) throw new Error(`false fail on the synthetic history: ${bad.map((i) => i.id).join(', ')}`);
  const payments = (ctx as OracleContext | null)?.ledger.payments.size ?? 0;
  const out: Record<string, number> = {};
  if (fields && ctx) {
    const ledger = (ctx as OracleContext).ledger as unknown as Record<string, unknown>;
    let prev = live();
    for (const name of Object.keys(ledger)) {
      if (typeof ledger[name] !== 'object' || ledger[name] === null || name === 'keys') continue;
      ledger[name] = null;
      const now = live();
      out[name] = (prev - now) / MB;
      prev = now;
    }
  }
  return { records: result.records, payments, liveMb: (atEnd - base) / MB, peakRssMb: process.resourceUsage().maxRSS / 1024, scratchMb: scratchBytesWritten() / MB, fields: out };
}

function child(file: string, fields: boolean, only?: readonly string[], limit?: number): Measure {
  const args = [fileURLToPath(import.meta.url), '--measure', file, fields ? '--fields' : '', ...(only ? ['--only', only.join(',')] : []), ...(limit !== undefined ? ['--limit', String(limit)] : [])];
  const r = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`the judging process failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** A recorded history to judge prefixes of (--history), or null: the synthetic history. */
const recorded = argv.includes('--history') && !argv.includes('--measure') ? opt('history', '') : null;
if (recorded !== null && (!recorded || !existsSync(recorded))) {
  console.error(`--history: no history file at ${JSON.stringify(recorded)}; give the path of a history.bin.gz (or .ndjson) a run wrote`);
  process.exit(3);
}

/** The file to judge for `n` records, and the prefix length to stop at (recorded histories). */
async function historyOf(dir: string, n: number): Promise<{ file: string; limit?: number }> {
  if (recorded) return { file: recorded, limit: n };
  const file = join(dir, `history-${n}.bin.gz`);
  await writeSyntheticHistory(file, n);
  return { file };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (argv[0] === '--measure') {
  const only = argv.includes('--only') ? opt('only', '').split(',').filter(Boolean) : undefined;
  process.stdout.write(JSON.stringify(await measure(argv[1], argv.includes('--fields'), only, argv.includes('--limit') ? Number(opt('limit', '')) : Infinity)) + '\n');
} else if (argv.includes('--per-invariant')) {
  const n = Number(opt('lengths', '250000').split(',')[0]);
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-bench-'));
  try {
    const { file, limit } = await historyOf(dir, n);
    const none = child(file, false, [], limit);
    console.log(`${n.toLocaleString('en')} records, ${none.payments.toLocaleString('en')} payments: the ledger alone ${none.liveMb.toFixed(1)} MB`);
    const rows = INVARIANTS.map((inv) => ({ id: inv.id, mb: child(file, false, [inv.id], limit).liveMb - none.liveMb }));
    rows.sort((a, b) => b.mb - a.mb);
    console.log(`the invariants together beyond the ledger: ${rows.reduce((t, r) => t + r.mb, 0).toFixed(1)} MB; each alone (MB, B/payment):`);
    for (const r of rows) if (r.mb >= 0.2) console.log(`  ${r.id.padEnd(40)} ${r.mb.toFixed(1).padStart(6)} ${((r.mb * MB) / Math.max(1, none.payments)).toFixed(0).padStart(6)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  const lengths = opt('lengths', '250000,500000,1000000').split(',').map(Number);
  const rounds = Number(opt('rounds', '1'));
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-bench-'));
  try {
    const files = new Map<number, { file: string; limit?: number }>();
    for (const n of lengths) files.set(n, await historyOf(dir, n));
    const rows: Measure[] = [];
    for (const n of lengths) {
      const ms: Measure[] = [];
      const { file, limit } = files.get(n)!;
      for (let r = 0; r < rounds; r++) ms.push(child(file, n === lengths[lengths.length - 1] && r === 0, undefined, limit));
      const live = median(ms.map((m) => m.liveMb));
      const rss = median(ms.map((m) => m.peakRssMb));
      const m = { ...ms[0], liveMb: live, peakRssMb: rss };
      rows.push(m);
      console.log(
        `${m.records.toLocaleString('en').padStart(9)} records, ${m.payments.toLocaleString('en').padStart(7)} payments: live state ${live.toFixed(1)} MB (${((live * MB) / m.records).toFixed(0)} B/record, ${((live * MB) / Math.max(1, m.payments)).toFixed(0)} B/payment), peak RSS ${rss.toFixed(0)} MB, scratch files ${m.scratchMb.toFixed(1)} MB`,
      );
    }
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      const dLive = (b.liveMb - a.liveMb) * MB;
      console.log(`growth ${a.records.toLocaleString('en')} -> ${b.records.toLocaleString('en')}: ${(dLive / (b.records - a.records)).toFixed(0)} B per added record, ${(dLive / Math.max(1, b.payments - a.payments)).toFixed(0)} B per added payment`);
    }
    const last = rows[rows.length - 1];
    console.log(`ledger fields at ${last.records.toLocaleString('en')} records (MB):`);
    for (const [k, v] of Object.entries(last.fields).sort((x, y) => y[1] - x[1])) if (Math.abs(v) >= 0.05) console.log(`  ${k.padEnd(18)} ${v.toFixed(1)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
