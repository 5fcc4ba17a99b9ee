/**
 * The cost of paystorm's k6 output at fleet size: writes k6's `--out json` output of the
 * `mixed` script for 1,000,000 exchanges as the scripts write it (lib/k6-output.ts: every
 * Point line a request makes in the real recording, with the scripts' systemTags, and the
 * compact exchange records), gzipped as k6 writes `--out json=….gz`, once whole and once
 * split into shard files by key set (one per k6-operator runner); prints the bytes per
 * exchange, then times `paystorm check` on the whole file and `paystorm merge` of the shards,
 * each in a fresh process (the real CLI), interleaved over rounds (order reversed every other
 * round), medians. The bars: at most 250 B per exchange gzipped; judged in under 30 s.
 *
 * Before that, the same figures for the real 30 s recording (as k6 wrote it, re-gzipped here,
 * and re-encoded as the rebuilt scripts would write it) and for the model at a small size in
 * both styles (today's scripts and the rebuilt ones), so the model can be compared with reality.
 *
 *   npx tsx bench/k6-check.ts [exchanges] [--rounds 3] [--shards 4] [--sample FILE] [--calibrate 20000] [--dir DIR]
 *
 * --dir DIR keeps the k6 files in DIR and, when DIR already holds them for this many exchanges
 * and shards, times the CLI on them without writing them again (writing 1,000,000 exchanges takes minutes).
 *
 * The synthetic history is consistent with the spec: a failed invariant printed is a false fail.
 */
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createGzip, gunzipSync, gzipSync, type Gzip } from 'node:zlib';
import { once } from 'node:events';
import { syntheticHistory } from './lib/synthetic-history.ts';
import { k6Lines, readSample, rebuildRecording, type K6Style } from './lib/k6-output.ts';

const root = join(fileURLToPath(import.meta.url), '../..');
const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const EXCHANGES = Number(argv[0] !== undefined && /^\d+$/.test(argv[0]) ? argv[0] : 1_000_000);
const ROUNDS = Number(opt('rounds', '3'));
const SHARDS = Number(opt('shards', '4'));
const CALIBRATE = Number(opt('calibrate', '20000'));
const SAMPLE = opt('sample', join(root, '../shared/samples/k6/mixed-30s-clean.k6.json.gz'));
const DIR = opt('dir', '');
const BAR_BYTES = 250;
const BAR_SECS = 30;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const perExchange = (bytes: number, n: number) => `${(bytes / n).toFixed(0)} B/exchange`;
/** Exchanges the synthetic history is asked for: its records also hold webhooks and probes the model leaves out. */
const historyFor = (n: number) => syntheticHistory(n * 2);

/** One gzip file written line by line (k6 gzips `--out json=….gz` itself; zlib's default level here). */
class GzFile {
  private readonly gz: Gzip = createGzip();
  private readonly out;
  private chunk: string[] = [];
  private size = 0;
  constructor(readonly path: string) {
    this.out = createWriteStream(path);
    this.gz.pipe(this.out);
  }
  async write(line: string): Promise<void> {
    this.chunk.push(line);
    this.size += line.length + 1;
    if (this.size >= 1 << 16) await this.flush();
  }
  private async flush(): Promise<void> {
    const text = this.chunk.join('\n') + '\n';
    this.chunk = [];
    this.size = 0;
    if (!this.gz.write(text)) await once(this.gz, 'drain');
  }
  async close(): Promise<number> {
    if (this.chunk.length) await this.flush();
    this.gz.end();
    await once(this.out, 'close');
    return statSync(this.path).size;
  }
}

/** The model in memory (small sizes): gzipped bytes per exchange, and how much each kind of line adds. */
function modelSize(style: K6Style, n: number): { bytes: number; raw: number; without: Record<string, number> } {
  const lines = [...k6Lines(sample, historyFor(n), n, style)].map((l) => l.line);
  const gz = (ls: string[]) => gzipSync(ls.join('\n') + '\n').length;
  const all = gz(lines);
  const groups: Record<string, (l: string) => boolean> = {
    'HTTP points': (l) => l.startsWith('{"metric":"http_req'),
    checks: (l) => l.startsWith('{"metric":"checks"'),
    'exchange records': (l) => l.startsWith('{"metric":"paystorm_exchange"'),
  };
  const without: Record<string, number> = {};
  for (const [name, test] of Object.entries(groups)) without[name] = all - gz(lines.filter((l) => !test(l)));
  return { bytes: all, raw: lines.reduce((s, l) => s + l.length + 1, 0), without };
}

/** CPU seconds (user + system) of this process's finished children (Linux: /proc/self/stat cutime + cstime, at 100 ticks a second). */
function childrenCpuSecs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return NaN;
  }
}

/** The real CLI in a fresh process: wall seconds, CPU seconds (a shared machine's load shows in the first, much less in the second). */
function runCli(args: string[]): { secs: number; cpu: number; status: number | null; out: string } {
  const c0 = childrenCpuSecs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(root, 'bin/paystorm.js'), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { secs: (performance.now() - t0) / 1000, cpu: childrenCpuSecs() - c0, status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

const sample = readSample(SAMPLE);
const dir = DIR || mkdtempSync(join(tmpdir(), 'paystorm-k6-bench-'));
mkdirSync(dir, { recursive: true });
const wholePath = join(dir, 'mixed.k6.json.gz');
const shardPaths = Array.from({ length: SHARDS }, (_, i) => join(dir, `shard-${i + 1}.k6.json.gz`));
/** What the files in --dir were written for: reused only when it matches. */
const stampPath = join(dir, 'written.json');
const stamp = JSON.stringify({ exchanges: EXCHANGES, shards: SHARDS });
try {
  // The real recording: as k6 wrote it, re-gzipped here (the model's gzip), and as the rebuilt scripts would write it.
  const text = gunzipSync(readFileSync(SAMPLE)).toString('utf8');
  const n = sample.exchangeCount;
  console.log(`real recording ${SAMPLE.split('/').pop()}: ${n} exchanges, ${sample.requestCount} load requests`);
  console.log(`  today's scripts, k6's gzip:      ${perExchange(statSync(SAMPLE).size, n)} (${perExchange(text.length, n)} raw)`);
  console.log(`  today's scripts, gzip here:      ${perExchange(gzipSync(text).length, n)}`);
  const rebuilt = rebuildRecording(text);
  console.log(`  rebuilt scripts, gzip here:      ${perExchange(gzipSync(rebuilt).length, n)} (${perExchange(rebuilt.length, n)} raw)`);
  for (const style of ['today', 'rebuilt'] as const) {
    const m = modelSize(style, CALIBRATE);
    const parts = Object.entries(m.without).map(([k, v]) => `${k} ${perExchange(v, CALIBRATE).replace(' B/exchange', ' B')}`).join(', ');
    console.log(`model, ${style} scripts, ${CALIBRATE.toLocaleString('en')} exchanges: ${perExchange(m.bytes, CALIBRATE)} gzipped (${perExchange(m.raw, CALIBRATE)} raw); what each adds: ${parts}`);
  }

  let exchanges = EXCHANGES;
  let bytes: number;
  if (DIR && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp && existsSync(wholePath) && shardPaths.every((p) => existsSync(p))) {
    bytes = statSync(wholePath).size;
    console.log(`reusing ${dir}: ${(bytes / 1e6).toFixed(0)} MB, ${perExchange(bytes, exchanges)} gzipped`);
  } else {
    // The full size: one file, and the same lines split by key (one key set per runner).
    rmSync(stampPath, { force: true });
    const g0 = performance.now();
    const whole = new GzFile(wholePath);
    const shards = shardPaths.map((p) => new GzFile(p));
    const shardOf = new Map<string, GzFile>();
    exchanges = 0;
    for (const { line, key } of k6Lines(sample, historyFor(EXCHANGES), EXCHANGES, 'rebuilt')) {
      if (line.startsWith('{"metric":"paystorm_exchange"') && line.includes('"paystorm_record"')) exchanges++;
      await whole.write(line);
      if (key === null) for (const s of shards) await s.write(line);
      else {
        let s = shardOf.get(key);
        if (!s) shardOf.set(key, (s = shards[shardOf.size % SHARDS]));
        await s.write(line);
      }
    }
    bytes = await whole.close();
    const shardBytes = (await Promise.all(shards.map((s) => s.close()))).reduce((a, b) => a + b, 0);
    if (DIR) writeFileSync(stampPath, stamp);
    console.log(
      `wrote ${exchanges.toLocaleString('en')} exchanges in ${((performance.now() - g0) / 1000).toFixed(0)} s: ${(bytes / 1e6).toFixed(0)} MB, ${perExchange(bytes, exchanges)} gzipped; ${SHARDS} shards ${(shardBytes / 1e6).toFixed(0)} MB`,
    );
  }

  const secs: Record<string, number[]> = { check: [], merge: [] };
  const cpus: Record<string, number[]> = { check: [], merge: [] };
  const contenders = {
    check: () => runCli(['check', wholePath]),
    merge: () => runCli(['merge', ...shardPaths, '--out', join(dir, 'merged')]),
  };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? (['merge', 'check'] as const) : (['check', 'merge'] as const);
    for (const c of order) {
      const r = contenders[c]();
      secs[c].push(r.secs);
      cpus[c].push(r.cpu);
      const verdict = /^(PASS|FAIL|INCOMPLETE)[^\n]*/m.exec(r.out)?.[0] ?? '';
      console.log(`round ${round + 1} ${c}: ${r.secs.toFixed(1)} s (CPU ${r.cpu.toFixed(1)} s), exit ${r.status}: ${verdict}`);
      if (r.status !== 0) console.log(r.out.split('\n').filter((l) => /fail|error|interrupted|paystorm:/i.test(l)).slice(0, 12).join('\n'));
    }
  }
  if (ROUNDS > 0) for (const c of ['check', 'merge']) console.log(`${c}: median ${median(secs[c]).toFixed(1)} s (CPU ${median(cpus[c]).toFixed(1)} s) over ${ROUNDS} rounds (${secs[c].map((s) => s.toFixed(1)).join(', ')})`);
  const perEx = bytes / exchanges;
  console.log(perEx <= BAR_BYTES ? `bar (<= ${BAR_BYTES} B/exchange gzipped): met` : `bar (<= ${BAR_BYTES} B/exchange gzipped): MISSED`);
  const slowest = ROUNDS > 0 ? Math.max(median(secs.check), median(secs.merge)) : NaN;
  if (ROUNDS > 0) console.log(slowest < BAR_SECS ? `bar (judged in < ${BAR_SECS} s): met` : `bar (judged in < ${BAR_SECS} s): MISSED`);
} finally {
  if (!DIR) rmSync(dir, { recursive: true, force: true });
}
