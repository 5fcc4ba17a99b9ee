/**
 * `paystorm selftest`: proves the oracle catches every seeded bug of the reference
 * service. For each selected bug it runs scenarios against the embedded service with
 * that bug switched on (via `executeRun`, output captured) and records which
 * invariants failed; the bug is caught when a failing invariant cites the rule the bug
 * breaks. The clean service (no bugs) must pass the full default suite in each
 * presentation. The result is a table, an exit code and the detection matrix
 * (`docs/detection-matrix.md`).
 *
 * Scenario selection per bug (narrow, to save time; `fullSuite` turns it off):
 * 1. the default-suite scenarios that declare the bug's rule for the run's environment;
 * 2. if none does, the other built-in scenarios that declare it (chaos for FT-*);
 * 3. plus EXERCISE_HINTS: scenarios needed to provoke a rule nobody declares;
 * 4. if still none, the full default suite.
 * A bug the narrow run does not catch is run again with the full default suite (plus any
 * non-default scenario chosen), since a rule may need another scenario's traffic; the matrix
 * says so (`escalated`), which points at a scenario that does not exercise its own rule.
 */
import { writeFileSync } from 'node:fs';
import { makeDirsSync } from '../history/index.ts';
import { seededRandom } from '../engine/run.ts';
import { dirname, join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import {
  CARD_OUTCOMES,
  DEFAULT_TEST_CARDS,
  EXIT,
  PaystormError,
  parseKeyArg,
  ruleInfo,
  type InvariantResult,
  type Presentation,
  type Scenario,
  type ScenarioEnv,
  type Summary,
} from '../spec/index.ts';
import { BUGS, type BugInfo } from '../target/bugs.ts';
import { DEFAULT_KEYS } from '../target/options.ts';
import { INVARIANTS } from '../oracle/invariants/index.ts';
import { SCENARIOS } from '../../scenarios/index.ts';
import type { RunConfig } from './config.ts';
import { executeRun, type RunIo, type RunResult } from './run.ts';
import { EMBEDDED_DEFAULTS } from './run-steps/settings.ts';

export type PresentationChoice = Presentation | 'both';

/** Scenarios a rule needs although no scenario declares it (the bug only shows in their traffic). */
export const EXERCISE_HINTS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  // card_error responses: live-key test-card refusals (flows) and card-number/expiry refusals (auth-and-input).
  'ERR-3': ['auth-and-input', 'flows'],
  // 5xx only happen while the upstream link is faulted.
  'ERR-4': ['chaos'],
  // Failed refunds (the sandbox's refund-failure amount) are only sent by the webhooks scenario.
  'SM-2': ['webhooks'],
  'REF-1': ['webhooks'],
});

export const DEFAULT_MATRIX_PATH = 'docs/detection-matrix.md';
/**
 * Per-run cap: a clean chaos run takes about 2.5 minutes; a bug that loses or strands
 * payments can make a scenario's settle phase much longer. A capped run is judged on
 * what it measured.
 */
export const DEFAULT_RUN_CAP_MS = 300_000;

export interface SelftestOptions {
  /** Explicit bug names (exclusive with `sample`). */
  bugs?: readonly string[];
  /** Pick this many bugs from the seed, spread across rule families. */
  sample?: number;
  /** Seed of the sample and of every run (default: random, reported). */
  seed?: number;
  /** Presentation(s) of the clean runs; bug runs use B, or A when only A-presentation scenarios declare the rule (default both). */
  presentation?: PresentationChoice;
  /** Reports directory (default reports/selftest-<ts>); each run writes under <out>/<bug>/. */
  out?: string;
  /** Matrix file; default docs/detection-matrix.md when every bug is selected, none otherwise. null: never write. */
  matrix?: string | null;
  /** Runs at once (default 1). */
  jobs?: number;
  /** Run the full default suite for every bug instead of the scenarios that declare its rule. */
  fullSuite?: boolean;
  /** Hard cap on each run (default DEFAULT_RUN_CAP_MS); the run is judged on what it measured. */
  runCapMs?: number;
  /** Skip the clean runs (tests only). */
  skipClean?: boolean;
  signal?: AbortSignal;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** The run pipeline (default executeRun); injectable for tests. */
  runner?: (cfg: RunConfig, io: RunIo) => Promise<RunResult>;
  /** Overrides of the run config (e.g. timeScale), applied to every run. */
  runOverrides?: Partial<RunConfig>;
}

export interface CitingInvariant {
  id: string;
  status: InvariantResult['status'];
  reason: string | null;
}

export interface BugRunResult {
  bug: string;
  rule: string;
  presentation: Presentation;
  scenarios: string[];
  /** How the scenarios were chosen. */
  basis: 'declared' | 'declared-non-default' | 'hint' | 'full-suite';
  /** The narrow run missed it and the verdict is from a full-default-suite rerun (scenarios lists that run). */
  escalated: boolean;
  caught: boolean;
  /** Catching invariants that also failed on the clean service in this presentation (the catch proves little). */
  cleanAlsoFails: string[];
  /** Failing invariants that cite the bug's rule. */
  catching: string[];
  /** Other failing or erroring invariants (`id (error)` for an exception). */
  otherFailing: string[];
  /** Every invariant of the run that cites the rule, with its status (for the diagnosis). */
  citing: CitingInvariant[];
  exitCode: number;
  runDir: string | null;
  durationMs: number;
  /** The run was stopped by the per-run cap (or otherwise did not complete). */
  incomplete: boolean;
  /** Why the run could not complete, when it threw. */
  error: string | null;
  /** For a bug not caught: why, as far as the run shows. */
  diagnosis: string | null;
}

export interface CleanRunResult {
  presentation: Presentation;
  passed: boolean;
  exitCode: number;
  failing: string[];
  runDir: string | null;
  durationMs: number;
  incomplete: boolean;
  error: string | null;
}

export interface SelftestReport {
  seed: number;
  selection: 'all' | 'sample' | 'list';
  presentation: PresentationChoice;
  fullSuite: boolean;
  jobs: number;
  runCapMs: number;
  startedAt: string;
  durationMs: number;
  bugs: BugRunResult[];
  clean: CleanRunResult[];
  interrupted: boolean;
  exitCode: number;
  outDir: string;
  matrixPath: string | null;
}

// ---------------------------------------------------------------- selection

export function familyOf(rule: string): string {
  return ruleInfo(rule)?.family ?? rule.split('-')[0]!;
}

/** The engine's seeded PRNG: one generator for every seeded choice in paystorm. */
export const prng = seededRandom;

function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Picks `n` bugs of `pool` deterministically from `seed`, spread across rule families:
 * families in a seeded order, one bug from each in turn, so no family gives a second bug
 * before every family has given one. Returned in pool order.
 */
export function sampleBugs<B extends { name: string; rule: string }>(n: number, seed: number, pool: readonly B[]): B[] {
  if (n >= pool.length) return [...pool];
  const rand = prng(seed);
  const families = new Map<string, B[]>();
  for (const b of pool) {
    const f = familyOf(b.rule);
    if (!families.has(f)) families.set(f, []);
    families.get(f)!.push(b);
  }
  const queues = shuffled([...families.keys()], rand).map((f) => shuffled(families.get(f)!, rand));
  const picked = new Set<B>();
  while (picked.size < n) {
    for (const q of queues) {
      if (picked.size >= n) break;
      const b = q.shift();
      if (b) picked.add(b);
    }
  }
  return pool.filter((b) => picked.has(b));
}

/** The environment `executeRun` builds for the embedded target (keys, cards, receiver), in one presentation. */
export function embeddedEnv(presentation: Presentation): ScenarioEnv {
  return {
    presentation,
    embedded: true,
    keys: DEFAULT_KEYS.map((k) => {
      const p = parseKeyArg(`${k.merchant}:${k.key}`);
      return { label: p.label, merchant: p.merchant, mode: p.mode, prefix: p.prefix, last4: p.last4, directApi: k.direct_api };
    }),
    cardOutcomes: CARD_OUTCOMES.filter((o) => DEFAULT_TEST_CARDS[o]),
    webhooks: { wired: true, failShare: 0.2 },
  };
}

function declares(s: Scenario, rule: string, env: ScenarioEnv): boolean {
  return (s.rulesFor ? s.rulesFor(env) : s.rules).includes(rule);
}

/** Presentation of a bug's run: the requested one, or with `both`, B unless only presentation-A runs declare the rule. */
export function bugPresentation(rule: string, choice: PresentationChoice): Presentation {
  if (choice !== 'both') return choice;
  const dflt = EMBEDDED_DEFAULTS.presentation;
  const other: Presentation = dflt === 'A' ? 'B' : 'A';
  const inDefault = SCENARIOS.some((s) => declares(s, rule, embeddedEnv(dflt)));
  const inOther = SCENARIOS.some((s) => declares(s, rule, embeddedEnv(other)));
  return !inDefault && inOther ? other : dflt;
}

export function scenariosForRule(rule: string, presentation: Presentation, fullSuite = false): { scenarios: string[]; basis: BugRunResult['basis'] } {
  const suite = SCENARIOS.filter((s) => s.defaultSuite);
  const full = { scenarios: suite.map((s) => s.name), basis: 'full-suite' as const };
  if (fullSuite) return full;
  const env = embeddedEnv(presentation);
  const hints = EXERCISE_HINTS[rule] ?? [];
  let chosen = suite.filter((s) => declares(s, rule, env));
  let basis: BugRunResult['basis'] = 'declared';
  if (chosen.length === 0) {
    chosen = SCENARIOS.filter((s) => !s.defaultSuite && declares(s, rule, env));
    basis = 'declared-non-default';
  }
  if (chosen.length === 0 && hints.length === 0) return full;
  if (chosen.length === 0) basis = 'hint';
  const names = new Set([...chosen.map((s) => s.name), ...hints]);
  // Keep the order of SCENARIOS (the default suite's order is deliberate).
  return { scenarios: SCENARIOS.filter((s) => names.has(s.name)).map((s) => s.name), basis };
}

export function resolveBugSelection(opts: Pick<SelftestOptions, 'bugs' | 'sample'>, seed: number): { bugs: BugInfo[]; selection: SelftestReport['selection'] } {
  if (opts.bugs?.length && opts.sample !== undefined) throw new PaystormError('--bugs and --sample: pass one of them, not both.', EXIT.usage, '--bugs');
  if (opts.bugs?.length) {
    const unknown = opts.bugs.filter((n) => !BUGS.some((b) => b.name === n));
    if (unknown.length) throw new PaystormError(`--bugs: unknown bug(s) ${unknown.join(', ')}. Known: ${BUGS.map((b) => b.name).join(', ')}.`, EXIT.usage, '--bugs');
    return { bugs: BUGS.filter((b) => opts.bugs!.includes(b.name)), selection: 'list' };
  }
  if (opts.sample !== undefined) {
    if (!Number.isInteger(opts.sample) || opts.sample < 1) throw new PaystormError(`--sample: expected a whole number of bugs >= 1, got ${opts.sample}.`, EXIT.usage, '--sample');
    const bugs = sampleBugs(opts.sample, seed, BUGS);
    return { bugs, selection: bugs.length === BUGS.length ? 'all' : 'sample' };
  }
  return { bugs: [...BUGS], selection: 'all' };
}

// ---------------------------------------------------------------- judging one run

/** Reads a bug run's summary: caught?, which invariants, and why not when it was not. */
export function assessBugRun(rule: string, summary: Summary | null, knownInvariants: readonly { id: string; rules: readonly string[] }[] = INVARIANTS) {
  const invs = summary?.invariants ?? [];
  const failing = invs.filter((i) => i.status === 'fail' || i.status === 'error');
  const catching = invs.filter((i) => i.status === 'fail' && i.rules.includes(rule)).map((i) => i.id);
  const otherFailing = failing.filter((i) => !catching.includes(i.id)).map((i) => (i.status === 'error' ? `${i.id} (error)` : i.id));
  const citing: CitingInvariant[] = invs.filter((i) => i.rules.includes(rule)).map((i) => ({ id: i.id, status: i.status, reason: i.reason }));
  const caught = catching.length > 0;
  let diagnosis: string | null = null;
  if (!caught) {
    if (!summary) diagnosis = 'the run produced no verdict';
    else if (citing.length === 0 && !knownInvariants.some((i) => i.rules.includes(rule))) diagnosis = `missing invariant: no invariant cites ${rule}`;
    else if (citing.length === 0) diagnosis = `no invariant citing ${rule} ran`;
    else {
      const parts: string[] = [];
      const by = (st: string) => citing.filter((c) => c.status === st);
      if (by('not-exercised').length) parts.push(`not exercised: ${by('not-exercised').map((c) => `${c.id} (${c.reason ?? 'no reason given'})`).join('; ')} - the scenarios do not provoke it`);
      if (by('pass').length) parts.push(`held: ${by('pass').map((c) => `${c.id} (${c.reason ?? 'pass'})`).join('; ')} - the check misses this bug, or the scenarios never hit the faulty path`);
      if (by('error').length) parts.push(`threw: ${by('error').map((c) => c.id).join(', ')}`);
      diagnosis = `citing invariants ${parts.join('; ')}`;
    }
  }
  return { caught, catching, otherFailing, citing, diagnosis };
}

// ---------------------------------------------------------------- running

/** A RunIo whose streams keep what is written. */
export function bufferIo(signal?: AbortSignal): RunIo & { text: () => string } {
  const chunks: string[] = [];
  const sink = () =>
    Object.assign(
      new Writable({
        write(chunk, _enc, cb) {
          chunks.push(String(chunk));
          cb();
        },
      }),
      { isTTY: false },
    );
  return { stdout: sink(), stderr: sink(), ...(signal ? { signal } : {}), text: () => chunks.join('') };
}

export function safeName(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, '_');
}

export function timestamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '').replace('T', '-');
}

export interface CapturedRun {
  result: RunResult | null;
  /** Why the run threw, when it did. */
  error: string | null;
  exitCode: number;
  ms: number;
}

/** One selftest run with its output captured into `<dir>/console.txt`; a run that throws is a result, not an exception. */
export async function runCaptured(dir: string, cfg: RunConfig, runner: (cfg: RunConfig, io: RunIo) => Promise<RunResult>, signal?: AbortSignal): Promise<CapturedRun> {
  makeDirsSync(dir);
  const io = bufferIo(signal);
  const t0 = Date.now();
  let result: RunResult | null = null;
  let error: string | null = null;
  let exitCode: number = EXIT.violation;
  try {
    result = await runner({ ...cfg, out: dir }, io);
    exitCode = result.exitCode;
  } catch (e) {
    error = (e as Error)?.message ?? String(e);
    exitCode = e instanceof PaystormError ? e.exitCode : EXIT.violation;
  }
  writeFileSync(join(dir, 'console.txt'), io.text() + (error ? `\nselftest: the run threw: ${error}\n` : ''));
  return { result, error, exitCode, ms: Date.now() - t0 };
}

/** Writes a selftest report as JSON into `outDir` and, when asked, its Markdown matrix. */
export function writeSelftestFiles(outDir: string, jsonName: string, report: { matrixPath: string | null }, markdown: () => string): void {
  makeDirsSync(outDir);
  writeFileSync(join(outDir, jsonName), JSON.stringify(report, null, 2) + '\n');
  if (report.matrixPath) {
    makeDirsSync(dirname(report.matrixPath));
    writeFileSync(report.matrixPath, markdown());
  }
}

export interface Task {
  label: string;
  /** Bigger runs first. */
  weight: number;
  run: () => Promise<void>;
}

export async function pool(tasks: Task[], jobs: number, signal?: AbortSignal): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < tasks.length && !signal?.aborted) {
      const t = tasks[next++]!;
      await t.run();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, tasks.length)) }, worker));
}

export async function runSelftest(opts: SelftestOptions = {}): Promise<SelftestReport> {
  const started = new Date();
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const presentation = opts.presentation ?? 'both';
  if (!['A', 'B', 'both'].includes(presentation)) throw new PaystormError(`--presentation: expected A, B or both, got ${presentation}.`, EXIT.usage, '--presentation');
  const jobs = opts.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw new PaystormError(`--jobs: expected a whole number >= 1, got ${jobs}.`, EXIT.usage, '--jobs');
  const { bugs, selection } = resolveBugSelection(opts, seed);
  const outDir = resolve(opts.out ?? join('reports', `selftest-${timestamp(started)}`));
  const matrixPath = opts.matrix === null ? null : opts.matrix !== undefined ? resolve(opts.matrix) : selection === 'all' ? resolve(DEFAULT_MATRIX_PATH) : null;
  const runner = opts.runner ?? executeRun;
  const log = opts.log ?? (() => {});
  const fullSuite = opts.fullSuite ?? false;
  const runCapMs = opts.runCapMs ?? DEFAULT_RUN_CAP_MS;
  if (!(runCapMs >= 1000)) throw new PaystormError(`--run-cap: expected at least 1s, got ${runCapMs} ms.`, EXIT.usage, '--run-cap');

  const results: (BugRunResult | undefined)[] = new Array(bugs.length);
  const clean: CleanRunResult[] = [];
  const cleanPresentations: Presentation[] = opts.skipClean ? [] : presentation === 'both' ? ['A', 'B'] : [presentation];
  const total = bugs.length + cleanPresentations.length;
  let done = 0;

  const runOne = (name: string, cfg: RunConfig) =>
    runCaptured(join(outDir, safeName(name)), { maxDuration: `${Math.ceil(runCapMs / 1000)}s`, ...cfg, ...opts.runOverrides, seed }, runner, opts.signal);

  const tasks: Task[] = [];
  for (const p of cleanPresentations) {
    tasks.push({
      label: `clean-${p}`,
      weight: 2,
      run: async () => {
        const r = await runOne(`clean-${p}`, { presentation: p, bugs: [], scenarios: [] });
        const failing = (r.result?.summary?.invariants ?? []).filter((i) => i.status === 'fail' || i.status === 'error').map((i) => i.id);
        const incomplete = r.result?.summary ? !r.result.summary.complete : true;
        const c: CleanRunResult = { presentation: p, passed: r.exitCode === EXIT.pass && !incomplete, exitCode: r.exitCode, failing, runDir: r.result?.runDir ?? null, durationMs: r.ms, incomplete, error: r.error };
        clean.push(c);
        done++;
        log(`[${done}/${total}] clean service, presentation ${p}: ${c.passed ? 'pass' : 'FAIL'} (exit ${c.exitCode}${incomplete ? '; incomplete' : ''}${failing.length ? `; failing: ${failing.join(', ')}` : ''}${c.error ? `; ${c.error}` : ''}) ${(r.ms / 1000).toFixed(1)} s`);
      },
    });
  }
  bugs.forEach((b, idx) => {
    const p = bugPresentation(b.rule, presentation);
    const { scenarios, basis } = scenariosForRule(b.rule, p, fullSuite);
    tasks.push({
      label: b.name,
      weight: scenarios.includes('chaos') ? 3 : basis === 'full-suite' ? 2 : 0,
      run: async () => {
        let runScenarios = scenarios;
        let r = await runOne(b.name, { presentation: p, bugs: [b.name], scenarios: basis === 'full-suite' ? [] : scenarios });
        let a = assessBugRun(b.rule, r.result?.summary ?? null);
        let escalated = false;
        if (!a.caught && basis !== 'full-suite' && !r.error && !opts.signal?.aborted) {
          const suite = SCENARIOS.filter((s) => s.defaultSuite || scenarios.includes(s.name)).map((s) => s.name);
          log(`        ${b.name}: not caught by ${scenarios.join(', ')}; running again with ${suite.join(', ')}`);
          const r2 = await runOne(`${b.name}/full-suite`, { presentation: p, bugs: [b.name], scenarios: suite });
          const a2 = assessBugRun(b.rule, r2.result?.summary ?? null);
          if (a2.caught || !r2.error) {
            r = { ...r2, ms: r.ms + r2.ms };
            a = a2;
            runScenarios = suite;
            escalated = true;
          }
        }
        const incomplete = r.result?.summary ? !r.result.summary.complete : true;
        const capNote = incomplete && !opts.signal?.aborted && !r.error ? ` (the run did not complete: stopped by the ${Math.round(runCapMs / 1000)} s per-run cap)` : '';
        const diagnosis = a.caught ? null : r.error ? `the run failed: ${r.error}` : `${a.diagnosis}${capNote}`;
        results[idx] = {
          bug: b.name,
          rule: b.rule,
          presentation: p,
          scenarios: runScenarios,
          basis,
          escalated,
          caught: a.caught,
          cleanAlsoFails: [],
          catching: a.catching,
          otherFailing: a.otherFailing,
          citing: a.citing,
          exitCode: r.exitCode,
          runDir: r.result?.runDir ?? null,
          durationMs: r.ms,
          incomplete,
          error: r.error,
          diagnosis,
        };
        done++;
        log(
          `[${done}/${total}] ${b.name} (${b.rule}, ${p}; ${escalated ? 'full suite' : scenarios.join(',')}): ${a.caught ? `caught by ${a.catching.join(', ')}` : `NOT CAUGHT - ${diagnosis}`} (exit ${r.exitCode}) ${(r.ms / 1000).toFixed(1)} s`,
        );
      },
    });
  });
  // Longest first keeps the workers busy to the end: clean runs, then chaos-bound bugs.
  const ordered = [...tasks].sort((x, y) => y.weight - x.weight);
  await pool(ordered, jobs, opts.signal);

  const interrupted = opts.signal?.aborted ?? false;
  const bugResults = results.filter((r): r is BugRunResult => !!r);
  clean.sort((x, y) => x.presentation.localeCompare(y.presentation));
  for (const b of bugResults) {
    const c = clean.find((x) => x.presentation === b.presentation);
    if (c) b.cleanAlsoFails = b.catching.filter((id) => c.failing.includes(id));
  }
  const ok = !interrupted && bugResults.length === bugs.length && bugResults.every((r) => r.caught) && clean.length === cleanPresentations.length && clean.every((c) => c.passed);
  const report: SelftestReport = {
    seed,
    selection,
    presentation,
    fullSuite,
    jobs,
    runCapMs,
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    bugs: bugResults,
    clean,
    interrupted,
    exitCode: interrupted ? EXIT.interrupted : ok ? EXIT.pass : EXIT.violation,
    outDir,
    matrixPath: interrupted ? null : matrixPath,
  };
  writeSelftestFiles(outDir, 'selftest.json', report, () => renderMatrix(report));
  return report;
}

// ---------------------------------------------------------------- output

/** A Markdown table cell: pipes escaped, one line. */
export function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function list(xs: readonly string[]): string {
  return xs.length ? xs.join(', ') : '-';
}

function scenarioCell(b: BugRunResult): string {
  if (b.basis === 'full-suite') return 'default suite';
  const extra = b.scenarios.filter((n) => !SCENARIOS.find((s) => s.name === n)?.defaultSuite);
  if (b.escalated) return `default suite${extra.length ? ` + ${extra.join(', ')}` : ''} (declaring scenarios alone missed it)`;
  return b.scenarios.join(', ');
}

/** The detection matrix, Markdown. */
export function renderMatrix(r: SelftestReport): string {
  const caught = r.bugs.filter((b) => b.caught);
  const missed = r.bugs.filter((b) => !b.caught);
  const lines: string[] = [];
  lines.push('# Detection matrix');
  lines.push('');
  lines.push('<!-- Generated by `paystorm selftest`; do not edit by hand. Regenerate with `node bin/paystorm.js selftest --jobs 2`. -->');
  lines.push('');
  lines.push(
    'Each seeded bug of the reference service (`src/target/bugs.ts`) is switched on alone and the scenarios that declare the rule it breaks are run against it ' +
      '(the full default suite where none does); a bug they miss is run again with the full default suite. A bug is **caught** when an invariant that cites that rule fails. ' +
      'The clean service must pass the full default suite in each presentation.',
  );
  lines.push('');
  lines.push(`- Generated: ${r.startedAt} (${(r.durationMs / 60_000).toFixed(1)} min, ${r.jobs} job${r.jobs > 1 ? 's' : ''}, per-run cap ${Math.round(r.runCapMs / 1000)} s), seed ${r.seed}`);
  lines.push(`- Bugs: ${r.selection === 'all' ? 'all' : r.selection === 'sample' ? 'a sample of' : 'a list of'} ${r.bugs.length}; scenarios: ${r.fullSuite ? 'full default suite for every bug' : 'those declaring the bug\'s rule'}`);
  lines.push(`- Caught: **${caught.length} of ${r.bugs.length}**; not caught: ${missed.length}`);
  lines.push(`- Clean service: ${r.clean.length ? r.clean.map((c) => `presentation ${c.presentation} ${c.passed ? 'pass' : `FAIL (exit ${c.exitCode})`}`).join(', ') : 'not run'}`);
  lines.push(`- Verdict: ${r.exitCode === EXIT.pass ? 'pass' : 'fail'} (exit ${r.exitCode})`);
  lines.push('');
  lines.push('## Clean service');
  lines.push('');
  lines.push('| presentation | result | exit | failing invariants |');
  lines.push('|---|---|---|---|');
  for (const c of r.clean) lines.push(`| ${c.presentation} | ${c.passed ? 'pass' : 'FAIL'} | ${c.exitCode}${c.incomplete ? ' (incomplete)' : ''} | ${cell(list(c.failing))}${c.error ? ` (${cell(c.error)})` : ''} |`);
  if (r.clean.length === 0) lines.push('| - | not run | - | - |');
  lines.push('');
  lines.push('## Bugs');
  lines.push('');
  lines.push('| bug | rule | caught | catching invariants | other failing invariants | exit | presentation | scenarios |');
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const b of r.bugs) {
    lines.push(
      `| \`${b.bug}\` | ${b.rule} | ${b.caught ? (b.cleanAlsoFails.length ? 'yes (suspect)' : 'yes') : '**no**'} | ${cell(list(b.catching))} | ${cell(list(b.otherFailing))} | ${b.exitCode}${b.incomplete ? ' (incomplete)' : ''} | ${b.presentation} | ${cell(scenarioCell(b))} |`,
    );
  }
  lines.push('');
  const suspect = r.bugs.filter((b) => b.cleanAlsoFails.length);
  if (suspect.length) {
    lines.push('"yes (suspect)": the catching invariant also failed on the clean service in that presentation, so the catch proves little: ' + suspect.map((b) => `\`${b.bug}\` (${b.cleanAlsoFails.join(', ')})`).join(', ') + '.');
    lines.push('');
  }
  if (missed.length) {
    lines.push('## Not caught');
    lines.push('');
    lines.push('| bug | rule | diagnosis |');
    lines.push('|---|---|---|');
    for (const b of missed) lines.push(`| \`${b.bug}\` | ${b.rule} | ${cell(b.diagnosis ?? '-')} |`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The console table. */
export function renderTable(r: SelftestReport): string {
  const head = ['BUG', 'RULE', 'CAUGHT', 'CATCHING INVARIANTS', 'OTHER FAILING', 'EXIT'];
  const rows = r.bugs.map((b) => [b.bug, b.rule, b.caught ? 'yes' : 'NO', list(b.catching), list(b.otherFailing), String(b.exitCode)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const fmt = (row: string[]) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [fmt(head), ...rows.map(fmt)];
  out.push('');
  for (const c of r.clean) out.push(`clean service, presentation ${c.presentation}: ${c.passed ? 'pass' : 'FAIL'} (exit ${c.exitCode}${c.failing.length ? `; failing: ${c.failing.join(', ')}` : ''}${c.error ? `; ${c.error}` : ''})`);
  const missed = r.bugs.filter((b) => !b.caught);
  for (const b of missed) out.push(`not caught: ${b.bug} (${b.rule}): ${b.diagnosis ?? '-'}`);
  out.push(
    `${r.exitCode === EXIT.pass ? 'PASS' : r.interrupted ? 'INTERRUPTED' : 'FAIL'}: ${r.bugs.length - missed.length} of ${r.bugs.length} bugs caught; clean runs ${r.clean.filter((c) => c.passed).length} of ${r.clean.length} passed; seed ${r.seed}; exit ${r.exitCode}`,
  );
  out.push(`reports: ${r.outDir}${r.matrixPath ? `; matrix: ${r.matrixPath}` : ''}`);
  return out.join('\n') + '\n';
}
