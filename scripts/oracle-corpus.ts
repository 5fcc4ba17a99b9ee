/**
 * The oracle's regression corpus: histories with the fingerprint of their judgement
 * (scripts/corpus/fingerprint.ts), recorded before a change to the oracle that must change
 * nothing but its speed, and judged again after it (`--verify`): every history must get the same
 * verdict, the same violation count for each invariant, the same evidence (docs/oracle.md,
 * "Regression corpus").
 *
 * Build (replaces the entries already in --out):
 *
 *   npx tsx scripts/oracle-corpus.ts [--out reports/corpus] \
 *     [--run-matrices [--bugs A,B] [--variants A,B] [--presentation both] [--seed 1] [--jobs 1] [--runs-out reports/corpus-runs]] \
 *     [--runs DIR]... [--random 200] [--random-seed 1] [--synthetic 1000000]
 *
 * - `--run-matrices`: runs the detection matrix (every seeded bug and the clean service in A and
 *   B; `--bugs` to choose) and the variant matrix (every conforming variant; `--variants` to
 *   choose) through the selftest code, keeping every run under --runs-out, and prints their tallies;
 *   then takes their runs as `--runs` does. `--presentation A|B` runs the clean service and the
 *   variants that fix none in that presentation only. No docs are written.
 * - `--runs DIR` (repeatable): every run kept in a `paystorm selftest [--variants] --out DIR`
 *   folder (its selftest.json or variants.json names what each run was; a bug's narrow run and
 *   its full-suite rerun are both taken). The live summary.json of each is compared with the
 *   history judged again; a disagreement is printed.
 * - `--random N`: N seeded random histories (scripts/corpus/random-history.ts), seeds
 *   --random-seed .. --random-seed + N - 1 (default 200 from 1; 0: none).
 * - `--synthetic RECORDS`: the benchmarks' synthetic history (bench/lib/synthetic-history.ts) of
 *   that many records (default 1,000,000; 0: none); only its fingerprint, seed and size are kept,
 *   it is generated again to verify.
 *
 * Verify (exit 0: every fingerprint the same; 1: a difference, each printed as `invariant <id>:
 * <field>: <old> -> <new>`; 3: usage):
 *
 *   npx tsx scripts/oracle-corpus.ts --verify [DIR] [--no-synthetic] [--write]
 *
 * `--write` records the fingerprints judged now in place of those that differ (exit 0): for a
 * change of the oracle's answer that is meant, once each printed difference is understood. The
 * histories stay as they are (matrix runs are not repeatable, so they are never made again for this).
 *
 * The committed sample, test/fixtures/oracle-corpus/, is built by this script too (see its README.md).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT, type Summary } from '../src/spec/index.ts';
import { HISTORY_FILES, HistoryWriter, historyFileIn } from '../src/history/index.ts';
import { safeName, type PresentationChoice, type SelftestReport } from '../src/cli/selftest.ts';
import type { VariantMatrixReport } from '../src/cli/variant-matrix.ts';
import { compareFingerprints, describeDifference, type Fingerprint } from './corpus/fingerprint.ts';
import { checkEntry, corpusEntries, ENTRY_FILES, fingerprintFile, fingerprintIn, fingerprintSynthetic, readJson, REPO_ROOT, sizeOf, writeJson, type CorpusSource, type SourceFile } from './corpus/corpus.ts';
import { randomHistory } from './corpus/random-history.ts';

const USAGE = 'usage: npx tsx scripts/oracle-corpus.ts [--out DIR] [--run-matrices [--bugs A,B] [--variants A,B] [--presentation A|B|both] [--seed N] [--jobs N] [--runs-out DIR]] [--runs DIR]... [--random N] [--random-seed N] [--synthetic RECORDS]\n       npx tsx scripts/oracle-corpus.ts --verify [DIR] [--no-synthetic] [--write]';

function usage(message: string): never {
  process.stderr.write(`oracle-corpus: ${message}\n${USAGE}\n`);
  process.exit(EXIT.usage);
}

const { values: args, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        out: { type: 'string', default: 'reports/corpus' },
        verify: { type: 'boolean', default: false },
        'no-synthetic': { type: 'boolean', default: false },
        write: { type: 'boolean', default: false },
        'run-matrices': { type: 'boolean', default: false },
        bugs: { type: 'string' },
        variants: { type: 'string' },
        presentation: { type: 'string', default: 'both' },
        seed: { type: 'string', default: '1' },
        jobs: { type: 'string', default: '1' },
        'runs-out': { type: 'string', default: 'reports/corpus-runs' },
        runs: { type: 'string', multiple: true, default: [] },
        random: { type: 'string', default: '200' },
        'random-seed': { type: 'string', default: '1' },
        synthetic: { type: 'string', default: '1000000' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    usage((e as Error).message);
  }
})();

function wholeNumber(name: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) usage(`--${name}: expected a whole number >= ${min}, got ${value}`);
  return n;
}

const say = (line: string) => process.stdout.write(line + '\n');
const list = (s: string | undefined) => (s === undefined ? undefined : s.split(',').map((x) => x.trim()).filter(Boolean));

// ---------------------------------------------------------------- verify

async function verify(dir: string): Promise<number> {
  const names = corpusEntries(dir);
  if (!names.length) usage(`${dir} holds no corpus entries (folders with ${ENTRY_FILES.source})`);
  let differing = 0;
  let skipped = 0;
  for (const name of names) {
    const r = await checkEntry(dir, name, { synthetic: !args['no-synthetic'] });
    if (r.differences === null) {
      skipped++;
      say(`skip  ${name} (synthetic; --no-synthetic)`);
      continue;
    }
    if (r.differences.length) differing++;
    say(`${r.differences.length ? 'DIFF' : 'same'}  ${name} (${(r.ms / 1000).toFixed(1)} s)`);
    for (const d of r.differences) say(`      ${describeDifference(d)}`);
    if (r.differences.length && args.write) writeJson(join(dir, name, ENTRY_FILES.fingerprint), r.now);
  }
  const judged = names.length - skipped;
  if (args.write) {
    say(`${differing} of ${judged} fingerprints rewritten; corpus ${dir}`);
    return EXIT.pass;
  }
  say(`${differing ? 'FAIL' : 'PASS'}: ${judged - differing} of ${judged} histories judged as recorded${skipped ? ` (${skipped} synthetic skipped)` : ''}; corpus ${dir}`);
  return differing ? EXIT.violation : EXIT.pass;
}

// ---------------------------------------------------------------- build

/** A kept run: its folder and what the matrix report says it was. */
interface KeptRun {
  name: string;
  dir: string;
  source: CorpusSource;
}

/** Run folders under `dir` holding a history, skipping the `latest` copies. */
function runDirsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (e === 'latest' || !statSync(p).isDirectory()) continue;
    if (HISTORY_FILES.some((f) => existsSync(join(p, f)))) out.push(p);
    else out.push(...runDirsUnder(p));
  }
  return out;
}

/** Every run kept in a selftest or variant-matrix out dir, named after the folder the matrix gave it. */
function keptRuns(outDir: string): KeptRun[] {
  if (!existsSync(outDir)) usage(`--runs: no folder ${outDir}`);
  const selftest = existsSync(join(outDir, 'selftest.json')) ? readJson<SelftestReport>(join(outDir, 'selftest.json')) : null;
  const variants = existsSync(join(outDir, 'variants.json')) ? readJson<VariantMatrixReport>(join(outDir, 'variants.json')) : null;
  const runs: KeptRun[] = [];
  for (const dir of runDirsUnder(outDir)) {
    const folder = relative(outDir, dir).split(/[\\/]/)[0]!;
    const run = relative(outDir, dir).split(/[\\/]/).join('/');
    const bug = selftest?.bugs.find((b) => safeName(b.bug) === folder || safeName(`${b.bug}/full-suite`) === folder);
    const clean = selftest?.clean.find((c) => `clean-${c.presentation}` === folder);
    const variant = variants?.runs.find((v) => safeName(`${v.variant}-${v.presentation}`) === folder);
    const source: CorpusSource = bug
      ? { kind: 'bug', bug: bug.bug, rule: bug.rule, presentation: bug.presentation, rerun: folder !== safeName(bug.bug), run }
      : clean
        ? { kind: 'clean', presentation: clean.presentation, run }
        : variant
          ? { kind: 'variant', variant: variant.variant, presentation: variant.presentation, run }
          : { kind: 'run', run };
    const prefix = source.kind === 'clean' ? '' : `${source.kind}-`;
    runs.push({ name: `${prefix}${folder}`, dir, source });
  }
  // Two runs in one folder (an out dir used twice): numbered in folder order.
  const seen = new Map<string, number>();
  for (const r of runs) {
    const n = (seen.get(r.name) ?? 0) + 1;
    seen.set(r.name, n);
    if (n > 1) r.name = `${r.name}-${n}`;
  }
  return runs;
}

async function runMatrices(): Promise<string[]> {
  const { runSelftest, renderTable } = await import('../src/cli/selftest.ts');
  const { runVariantMatrix, renderVariantTable } = await import('../src/cli/variant-matrix.ts');
  const seed = wholeNumber('seed', args.seed, 0);
  const jobs = wholeNumber('jobs', args.jobs, 1);
  const base = resolve(args['runs-out']);
  const log = (line: string) => process.stderr.write(line + '\n');
  const selftestOut = join(base, 'selftest');
  const variantsOut = join(base, 'variants');
  for (const d of [selftestOut, variantsOut]) if (existsSync(d)) usage(`--runs-out: ${d} exists; remove it or pass another --runs-out`);
  const bugs = list(args.bugs);
  const variants = list(args.variants);
  const presentation = args.presentation as PresentationChoice;
  if (!['A', 'B', 'both'].includes(presentation)) usage(`--presentation: expected A, B or both, got ${presentation}`);
  const st = await runSelftest({ ...(bugs ? { bugs } : {}), seed, jobs, presentation, out: selftestOut, matrix: null, log });
  process.stdout.write(renderTable(st));
  const vm = await runVariantMatrix({ ...(variants ? { variants } : {}), seed, jobs, presentation, out: variantsOut, matrix: null, log });
  process.stdout.write(renderVariantTable(vm));
  say(`detection matrix: ${st.bugs.filter((b) => b.caught).length}/${st.bugs.length} caught, clean ${st.clean.map((c) => `${c.presentation} ${c.passed ? 'pass' : 'FAIL'}`).join(', ')}; variant matrix: ${vm.runs.filter((r) => r.passed).length}/${vm.runs.length} conforming`);
  return [selftestOut, variantsOut];
}

async function writeRandom(file: string, seed: number) {
  const { records, info } = randomHistory(seed);
  const w = new HistoryWriter({ path: file });
  for (const r of records) {
    w.write(r);
    if (w.needsDrain) await w.drained();
  }
  await w.close();
  return info;
}

function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'scenarios'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    return dirty ? `${head} (with uncommitted changes under src/ or scenarios/)` : head;
  } catch {
    return 'unknown';
  }
}

async function build(dir: string): Promise<number> {
  const randomN = wholeNumber('random', args.random, 0);
  const randomSeed = wholeNumber('random-seed', args['random-seed'], 0);
  const synthetic = wholeNumber('synthetic', args.synthetic, 0);
  const runDirs = [...(args['run-matrices'] ? await runMatrices() : []), ...args.runs.map((d) => resolve(d))];
  const runs = runDirs.flatMap(keptRuns);

  const old = corpusEntries(dir);
  if (old.length) say(`replacing the ${old.length} entries in ${dir}`);
  for (const name of old) rmSync(join(dir, name), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const entry = (name: string, source: SourceFile, fp: Fingerprint) => {
    writeJson(join(dir, name, ENTRY_FILES.source), source);
    writeJson(join(dir, name, ENTRY_FILES.fingerprint), fp);
    const failing = Object.entries(fp.invariants).filter(([, i]) => i.status === 'fail' || i.status === 'error');
    say(`${name}: ${fp.verdict} (exit ${fp.exitCode}${fp.complete ? '' : ', incomplete'})${failing.length ? `; ${failing.map(([id, i]) => `${id} ${i.status === 'error' ? 'error' : i.violations}`).join(', ')}` : ''}`);
  };

  let disagreements = 0;
  for (const r of runs) {
    const history = historyFileIn(r.dir)!;
    const target = join(dir, r.name, ENTRY_FILES.history);
    mkdirSync(join(dir, r.name), { recursive: true });
    // Runs write history.bin.gz; an older NDJSON history is kept as it is (readers look at the bytes, not the name).
    copyFileSync(history, target);
    const fp = await fingerprintFile(target);
    const livePath = join(r.dir, 'summary.json');
    let liveAgrees: boolean | undefined;
    if (existsSync(livePath)) {
      const diffs = compareFingerprints(fingerprintIn(readJson<Summary>(livePath), r.dir), fp);
      liveAgrees = diffs.length === 0;
      if (!liveAgrees) {
        disagreements++;
        say(`${r.name}: the live run's summary.json and its history judged again differ:`);
        for (const d of diffs) say(`      ${describeDifference(d)}`);
      }
    }
    entry(r.name, { ...r.source, ...(liveAgrees !== undefined ? { liveAgrees } : {}) }, fp);
  }
  for (let seed = randomSeed; seed < randomSeed + randomN; seed++) {
    const name = `random-${seed}`;
    const file = join(dir, name, ENTRY_FILES.history);
    mkdirSync(join(dir, name), { recursive: true });
    const info = await writeRandom(file, seed);
    entry(name, { kind: 'random', seed, generator: 'scripts/corpus/random-history.ts', bendShare: info.bendShare, records: info.records }, await fingerprintFile(file));
  }
  if (synthetic > 0) {
    const { SYNTHETIC_SEED } = await import('../bench/lib/synthetic-history.ts');
    entry(`synthetic-${synthetic}`, { kind: 'synthetic', seed: SYNTHETIC_SEED, records: synthetic, generator: 'bench/lib/synthetic-history.ts' }, await fingerprintSynthetic(synthetic));
  }
  const entries = corpusEntries(dir).length;
  writeJson(join(dir, 'corpus.json'), { generatedAt: new Date().toISOString(), commit: gitCommit(), entries, runs: runDirs.map((d) => relative(REPO_ROOT, d)), random: { n: randomN, firstSeed: randomSeed }, synthetic });
  say(`corpus ${dir}: ${entries} entries, ${(sizeOf(dir) / 1e6).toFixed(1)} MB${disagreements ? `; ${disagreements} live summaries disagree with their history judged again (printed above)` : ''}`);
  return disagreements ? EXIT.violation : EXIT.pass;
}

if (args.help) {
  say(USAGE);
  process.exit(EXIT.pass);
}
if (positionals.length > (args.verify ? 1 : 0)) usage(`unexpected argument ${positionals.at(-1)}`);
if (args.write && !args.verify) usage('--write goes with --verify (it rewrites the fingerprints that differ)');
const dir = resolve(positionals[0] ?? args.out);
process.exitCode = args.verify ? await verify(dir) : await build(dir);
