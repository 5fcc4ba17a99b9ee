/** Builds the k6 bundles into a temp dir and runs them under the k6 stand-in (test/k6/shim). */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SCRIPTS = ['idempotency', 'mixed', 'rate-limit', 'soak'] as const;
export type ScriptName = (typeof SCRIPTS)[number];

const built: string[] = [];
/** Runs `node k6/build.mjs --outdir <tmp>` (the bundling step of `npm run k6:build`). */
export function buildBundles(): string {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-k6-'));
  built.push(dir);
  execFileSync(process.execPath, [join(ROOT, 'k6', 'build.mjs'), '--outdir', dir], { cwd: ROOT, stdio: 'pipe' });
  return dir;
}
/** Removes the bundles buildBundles made in this test file. */
export function removeBundles(): void {
  for (const d of built.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface ShimRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  tags: Record<string, string>;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
  error: string;
  /** Time the shim spent connecting before sending (reported as timings.connecting), ms. */
  connectMs: number;
  /** Epoch ms when the answer was in hand. */
  receivedAt: number;
}

export interface ShimResult {
  ok: boolean;
  fatal: string | null;
  options: Record<string, unknown> | null;
  exports: string[];
  setupData: unknown;
  iterations: number;
  iterationErrors: string[];
  requests: ShimRequest[];
  checks: Record<string, { passes: number; fails: number }>;
  metrics: Record<string, { type: string; isTime: boolean; values: number[] }>;
  logs: { level: string; text: string }[];
  sleptMs: number;
  /** The stand-in's exit code, as k6's (0, 99, 105, 107, 108, …). */
  exitCode: number | null;
  /** The child's stdout and stderr, for assertions on what a run prints. */
  output: string;
}

export interface ShimOptions {
  mode?: 'options' | 'run';
  /**
   * k6's `--iterations N` (default 1): one shared-iterations `default` scenario of N iterations
   * replaces the script's scenarios, as on k6's command line. `'plan'`: no override, the script's
   * own scenarios run as planned (time-based ones for their duration on the wall clock).
   */
  iterations?: number | 'plan';
  /** k6's `--vus`. */
  vus?: number;
  /** k6's `--duration` (replaces the script's scenarios with a constant-vus one). */
  duration?: string;
  /** k6's `--execution-segment` (and `--execution-segment-sequence`). */
  executionSegment?: string;
  executionSegmentSequence?: string;
  sleepScale?: number;
  timeoutMs?: number;
  /** Write k6's `--out json` NDJSON (Metric and Point lines) to this file. */
  jsonOut?: string;
  /** Seed Math.random (as k6's randomSeed does): the same mix of operations every run. */
  seed?: number;
  /** Stop after this many finished iterations, as a Ctrl-C then would (exit 105; teardown and handleSummary still run). */
  interruptAfter?: number;
  /** Time a new connection takes (timings.connecting), ms; the shim's default is 30. */
  connectMs?: number;
  /** Every request opens a new connection (k6's noConnectionReuse). */
  noReuse?: boolean;
}

/** Runs a bundle in a child Node process (async: the stub server lives in this process). */
export function runShim(bundle: string, env: Record<string, string>, opts: ShimOptions = {}): Promise<ShimResult> {
  const out = join(mkdtempSync(join(tmpdir(), 'k6shim-out-')), 'result.json');
  const child = spawn(process.execPath, [join(ROOT, 'test', 'k6', 'shim', 'runner.mjs'), bundle], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      K6SHIM_ENV: JSON.stringify(env),
      K6SHIM_OUT: out,
      K6SHIM_MODE: opts.mode ?? 'run',
      K6SHIM_ITERATIONS: String(opts.iterations ?? 1),
      K6SHIM_SLEEP_SCALE: String(opts.sleepScale ?? 1),
      ...(opts.vus !== undefined ? { K6SHIM_VUS: String(opts.vus) } : {}),
      ...(opts.duration !== undefined ? { K6SHIM_DURATION: opts.duration } : {}),
      ...(opts.executionSegment !== undefined ? { K6SHIM_EXECUTION_SEGMENT: opts.executionSegment } : {}),
      ...(opts.executionSegmentSequence !== undefined ? { K6SHIM_EXECUTION_SEGMENT_SEQUENCE: opts.executionSegmentSequence } : {}),
      ...(opts.jsonOut ? { K6SHIM_JSON_OUT: opts.jsonOut } : {}),
      ...(opts.seed !== undefined ? { K6SHIM_SEED: String(opts.seed) } : {}),
      ...(opts.interruptAfter !== undefined ? { K6SHIM_INTERRUPT_AFTER: String(opts.interruptAfter) } : {}),
      ...(opts.connectMs !== undefined ? { K6SHIM_CONNECT_MS: String(opts.connectMs) } : {}),
      ...(opts.noReuse ? { K6SHIM_NO_REUSE: '1' } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return new Promise((resolveRun, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`k6 shim run timed out:\n${output}`));
    }, opts.timeoutMs ?? 25_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (!existsSync(out)) return reject(new Error(`k6 shim wrote no result:\n${output}`));
      const result = JSON.parse(readFileSync(out, 'utf8')) as Omit<ShimResult, 'output' | 'exitCode'>;
      rmSync(dirname(out), { recursive: true, force: true });
      resolveRun({ ...result, exitCode: code, output });
    });
  });
}

/** A rule's own check name (`RULE-ID: what holds`), and a check folded per answer (`op: RULE-ID RULE-ID …`, k6/lib/checks.ts). */
export const RULE_CHECK = /^([A-Z]+-\d+): /;
export const FOLDED_CHECK = /^([a-z_0-9]+): ([A-Z]+-\d+(?: [A-Z]+-\d+)*)$/;

/**
 * Passes and fails by rule id: a folded check's passes count for each rule it names (every one
 * held on that answer); fails are the failed rules' own checks, which name the rule.
 */
export function ruleTally(r: ShimResult): Record<string, { passes: number; fails: number }> {
  const out: Record<string, { passes: number; fails: number }> = {};
  const at = (id: string) => (out[id] ??= { passes: 0, fails: 0 });
  for (const [name, c] of Object.entries(r.checks)) {
    const folded = FOLDED_CHECK.exec(name);
    if (folded) {
      for (const id of folded[2].split(' ')) at(id).passes += c.passes;
      continue;
    }
    const id = RULE_CHECK.exec(name)?.[1];
    if (id === undefined) continue;
    at(id).passes += c.passes;
    at(id).fails += c.fails;
  }
  return out;
}

/** Names of checks that failed at least once. */
export function failedChecks(r: ShimResult): string[] {
  return Object.entries(r.checks)
    .filter(([, c]) => c.fails > 0)
    .map(([n]) => n);
}

/** Runs the paystorm CLI (bin/paystorm.js) on the k6 files, stdout and stderr together; killed after `timeoutMs`. */
export function cli(args: string[], timeoutMs = 90_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'paystorm.js'), ...args], { cwd: ROOT, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`paystorm ${args.join(' ')} timed out:\n${out}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}
