/**
 * `paystorm selftest --variants`: the other half of the selftest. Where the bug runs prove the
 * oracle catches what a broken service does, the variant runs prove it never fails a service
 * for a choice the spec leaves open: each conforming variant of the reference service
 * (src/target/variants.ts) runs the full default suite and must end with zero failed
 * invariants and exit 0. The result is a table, an exit code and docs/variant-matrix.md.
 */
import { join, resolve } from 'node:path';
import { EXIT, PaystormError, type Presentation } from '../spec/index.ts';
import { VARIANTS, type ServiceVariant } from '../target/variants.ts';
import type { RunConfig } from './config.ts';
import { executeRun, type RunIo, type RunResult } from './run.ts';
import { cell, DEFAULT_RUN_CAP_MS, pool, prng, runCaptured, safeName, timestamp, writeSelftestFiles, type PresentationChoice, type Task } from './selftest.ts';

export const DEFAULT_VARIANT_MATRIX_PATH = 'docs/variant-matrix.md';

export interface VariantMatrixOptions {
  /** Variant names (default: all). */
  variants?: readonly string[];
  /** Pick this many variants from the seed instead. */
  sample?: number;
  seed?: number;
  /** Presentation(s) for variants that do not fix one (default both). */
  presentation?: PresentationChoice;
  out?: string;
  /** Default docs/variant-matrix.md when every variant runs; null: never write. */
  matrix?: string | null;
  jobs?: number;
  runCapMs?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
  runner?: (cfg: RunConfig, io: RunIo) => Promise<RunResult>;
  runOverrides?: Partial<RunConfig>;
}

export interface VariantRunResult {
  variant: string;
  choice: string;
  presentation: Presentation;
  passed: boolean;
  exitCode: number;
  /** Invariants that failed or errored (must be none). */
  failing: string[];
  /** Rules a selected scenario declares that no invariant exercised (a FAIL of its own). */
  notExercisedDeclared: string[];
  runDir: string | null;
  durationMs: number;
  incomplete: boolean;
  error: string | null;
}

export interface VariantMatrixReport {
  seed: number;
  selection: 'all' | 'sample' | 'list';
  startedAt: string;
  durationMs: number;
  jobs: number;
  runs: VariantRunResult[];
  interrupted: boolean;
  exitCode: number;
  outDir: string;
  matrixPath: string | null;
}

export function resolveVariantSelection(opts: Pick<VariantMatrixOptions, 'variants' | 'sample'>, seed: number): { variants: ServiceVariant[]; selection: VariantMatrixReport['selection'] } {
  if (opts.variants?.length && opts.sample !== undefined) throw new PaystormError('--variants NAMES and --sample: pass one of them, not both.', EXIT.usage, '--variants');
  if (opts.variants?.length) {
    const unknown = opts.variants.filter((n) => !VARIANTS.some((v) => v.name === n));
    if (unknown.length) throw new PaystormError(`--variants: unknown variant(s) ${unknown.join(', ')}. Known: ${VARIANTS.map((v) => v.name).join(', ')}.`, EXIT.usage, '--variants');
    return { variants: VARIANTS.filter((v) => opts.variants!.includes(v.name)), selection: 'list' };
  }
  if (opts.sample !== undefined) {
    if (!Number.isInteger(opts.sample) || opts.sample < 1) throw new PaystormError(`--sample: expected a whole number of variants >= 1, got ${opts.sample}.`, EXIT.usage, '--sample');
    if (opts.sample >= VARIANTS.length) return { variants: [...VARIANTS], selection: 'all' };
    const rand = prng(seed);
    const order = VARIANTS.map((v) => ({ v, r: rand() })).sort((a, b) => a.r - b.r).slice(0, opts.sample).map((x) => x.v);
    return { variants: VARIANTS.filter((v) => order.includes(v)), selection: 'sample' };
  }
  return { variants: [...VARIANTS], selection: 'all' };
}

/** The presentations a variant runs in: its own when it fixes one, else the choice. */
export function variantPresentations(v: ServiceVariant, choice: PresentationChoice): Presentation[] {
  if (v.options.presentation) return [v.options.presentation];
  return choice === 'both' ? ['A', 'B'] : [choice];
}

export async function runVariantMatrix(opts: VariantMatrixOptions = {}): Promise<VariantMatrixReport> {
  const started = new Date();
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const choice = opts.presentation ?? 'both';
  const jobs = opts.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1) throw new PaystormError(`--jobs: expected a whole number >= 1, got ${jobs}.`, EXIT.usage, '--jobs');
  const { variants, selection } = resolveVariantSelection(opts, seed);
  const outDir = resolve(opts.out ?? join('reports', `variants-${timestamp(started)}`));
  const matrixPath = opts.matrix === null ? null : opts.matrix !== undefined ? resolve(opts.matrix) : selection === 'all' ? resolve(DEFAULT_VARIANT_MATRIX_PATH) : null;
  const runner = opts.runner ?? executeRun;
  const log = opts.log ?? (() => {});
  const runCapMs = opts.runCapMs ?? DEFAULT_RUN_CAP_MS;
  const runs: VariantRunResult[] = [];
  const plan = variants.flatMap((v) => variantPresentations(v, choice).map((p) => ({ v, p })));
  let done = 0;

  const tasks: Task[] = plan.map(({ v, p }) => ({
    label: `${v.name}-${p}`,
    weight: 1,
    run: async () => {
      const cfg: RunConfig = { maxDuration: `${Math.ceil(runCapMs / 1000)}s`, scenarios: [], bugs: [], variant: v.name, ...(v.options.presentation ? {} : { presentation: p }), ...opts.runOverrides, seed };
      const { result, error, exitCode, ms } = await runCaptured(join(outDir, safeName(`${v.name}-${p}`)), cfg, runner, opts.signal);
      const summary = result?.summary ?? null;
      const failing = (summary?.invariants ?? []).filter((i) => i.status === 'fail' || i.status === 'error').map((i) => i.id);
      const declared = new Set((summary?.scenarios ?? []).flatMap((s) => s.rules));
      const notExercisedDeclared = (summary?.invariants ?? []).filter((i) => i.status === 'not-exercised' && i.rules.some((r) => declared.has(r))).map((i) => i.id);
      const incomplete = summary ? !summary.complete : true;
      const r: VariantRunResult = {
        variant: v.name,
        choice: v.choice,
        presentation: p,
        passed: exitCode === EXIT.pass && !incomplete && failing.length === 0,
        exitCode,
        failing,
        notExercisedDeclared,
        runDir: result?.runDir ?? null,
        durationMs: ms,
        incomplete,
        error,
      };
      runs.push(r);
      done++;
      log(`[${done}/${plan.length}] variant ${v.name}, presentation ${p}: ${r.passed ? 'pass' : 'FAIL'} (exit ${exitCode}${incomplete ? '; incomplete' : ''}${failing.length ? `; failing: ${failing.join(', ')}` : ''}${notExercisedDeclared.length ? `; declared but not exercised: ${notExercisedDeclared.join(', ')}` : ''}${error ? `; ${error}` : ''}) ${(r.durationMs / 1000).toFixed(1)} s`);
    },
  }));
  await pool(tasks, jobs, opts.signal);
  const interrupted = opts.signal?.aborted ?? false;
  const order = new Map(plan.map(({ v, p }, i) => [`${v.name}-${p}`, i]));
  runs.sort((a, b) => order.get(`${a.variant}-${a.presentation}`)! - order.get(`${b.variant}-${b.presentation}`)!);
  const ok = !interrupted && runs.length === plan.length && runs.every((r) => r.passed);
  const report: VariantMatrixReport = {
    seed,
    selection,
    startedAt: started.toISOString(),
    durationMs: Date.now() - started.getTime(),
    jobs,
    runs,
    interrupted,
    exitCode: interrupted ? EXIT.interrupted : ok ? EXIT.pass : EXIT.violation,
    outDir,
    matrixPath: interrupted ? null : matrixPath,
  };
  writeSelftestFiles(outDir, 'variants.json', report, () => renderVariantMatrix(report));
  return report;
}

export function renderVariantMatrix(r: VariantMatrixReport): string {
  const passed = r.runs.filter((x) => x.passed).length;
  const lines = [
    '# Variant matrix',
    '',
    '<!-- Generated by `paystorm selftest --variants`; do not edit by hand. Regenerate with `node bin/paystorm.js selftest --variants --jobs 2`. -->',
    '',
    'Each conforming variant of the reference service (`src/target/variants.ts`) takes one choice the spec leaves open another way and keeps every rule. ' +
      'The full default suite runs against it (in its own presentation, or in A and in B) and must end with **zero failed invariants** and exit 0: ' +
      'a failure here is a false fail of the oracle, which would block a good release.',
    '',
    'Where the spec contradicts itself or leaves a choice open that a bad-input case touches, [open-readings.md](open-readings.md) quotes both sides and says what paystorm accepts; the variants named there take the other branch.',
    '',
    `- Generated: ${r.startedAt} (${(r.durationMs / 60_000).toFixed(1)} min, ${r.jobs} job${r.jobs > 1 ? 's' : ''}), seed ${r.seed}`,
    `- Runs passed: **${passed} of ${r.runs.length}**`,
    `- Verdict: ${r.exitCode === EXIT.pass ? 'pass' : 'fail'} (exit ${r.exitCode})`,
    '',
    '| variant | open choice taken | presentation | result | exit | failing invariants | time |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const x of r.runs) {
    const failing = [...x.failing, ...x.notExercisedDeclared.map((i) => `${i} (declared, not exercised)`)];
    lines.push(
      `| \`${x.variant}\` | ${cell(x.choice)} | ${x.presentation} | ${x.passed ? 'pass' : '**FAIL**'} | ${x.exitCode}${x.incomplete ? ' (incomplete)' : ''} | ${cell(failing.length ? failing.join(', ') : '-')}${x.error ? ` (${cell(x.error)})` : ''} | ${(x.durationMs / 1000).toFixed(0)} s |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

export function renderVariantTable(r: VariantMatrixReport): string {
  const out = r.runs.map((x) => `${x.passed ? 'pass' : 'FAIL'}  ${x.variant} (${x.presentation})  exit ${x.exitCode}${x.failing.length ? `  failing: ${x.failing.join(', ')}` : ''}${x.notExercisedDeclared.length ? `  declared, not exercised: ${x.notExercisedDeclared.join(', ')}` : ''}${x.error ? `  ${x.error}` : ''}`);
  out.push(`${r.exitCode === EXIT.pass ? 'PASS' : r.interrupted ? 'INTERRUPTED' : 'FAIL'}: ${r.runs.filter((x) => x.passed).length} of ${r.runs.length} variant runs passed; seed ${r.seed}; exit ${r.exitCode}`);
  out.push(`reports: ${r.outDir}${r.matrixPath ? `; matrix: ${r.matrixPath}` : ''}`);
  return out.join('\n') + '\n';
}
