/**
 * The CI examples in docs/ci/ are what teams copy: the GitHub Actions workflow must parse as
 * YAML with the shape Actions requires, run paystorm with flags paystorm accepts, keep the
 * reports and gate on the exit code; the generic script must be valid shell. And
 * `$GITHUB_STEP_SUMMARY` gets the run's summary.md.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { appendStepSummary } from '../../src/report/step-summary.ts';
import { runCommand } from '../../src/cli/commands/run.ts';

const root = join(import.meta.dirname, '../..');

/** Every `--flag` the run command declares. */
function runFlags(): Set<string> {
  const names = new Set<string>();
  const fake: Record<string, unknown> = {};
  const y = new Proxy(fake, {
    get: (_t, prop) => (prop === 'option' ? (name: string) => (names.add(name), y) : () => y),
  });
  (runCommand.builder as (y: unknown) => unknown)(y);
  return names;
}

describe('docs/ci/github-actions.yml', () => {
  const wf = parse(readFileSync(join(root, 'docs/ci/github-actions.yml'), 'utf8')) as {
    on: unknown;
    jobs: Record<string, { 'runs-on': string; steps: { uses?: string; run?: string; if?: string; with?: Record<string, unknown>; name?: string }[] }>;
  };
  const steps = Object.values(wf.jobs)[0]!.steps;
  const runScript = steps.map((s) => s.run ?? '').join('\n');

  it('is a workflow Actions accepts: triggers, a job with runs-on and steps that each use or run something', () => {
    expect(wf.on).toBeTruthy();
    const job = Object.values(wf.jobs)[0]!;
    expect(job['runs-on']).toMatch(/ubuntu/);
    for (const s of steps) expect(Boolean(s.uses) !== Boolean(s.run), JSON.stringify(s)).toBe(true);
  });

  it('installs paystorm, starts a service, runs paystorm against it with flags paystorm knows', () => {
    expect(runScript).toMatch(/npm ci/);
    expect(runScript).toMatch(/serve --port 4010/);
    const run = runScript.slice(runScript.indexOf('paystorm.js run'));
    const flags = [...run.matchAll(/--([a-z-]+)/g)].map((m) => m[1]!);
    expect(flags.length).toBeGreaterThan(2);
    const known = runFlags();
    for (const f of flags) expect(known.has(f), `--${f} is not a flag of paystorm run`).toBe(true);
  });

  it('uploads the reports even when the gate fails, and gates on the exit code (no || true on the run)', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    expect(upload.if).toBe('always()');
    expect(String(upload.with!.path)).toContain('reports/latest');
    const runStep = steps.find((s) => s.run?.includes('paystorm.js run'))!;
    expect(runStep.run).not.toMatch(/\|\|\s*true/);
    expect(runStep.if).toBeUndefined();
  });
});

describe('docs/ci/generic-ci.sh', () => {
  it('is valid shell and refuses to start without its variables', () => {
    const script = join(root, 'docs/ci/generic-ci.sh');
    execFileSync('bash', ['-n', script]);
    let code = 0;
    let err = '';
    try {
      execFileSync('bash', [script], { env: { PATH: process.env.PATH ?? '' }, stdio: 'pipe' });
    } catch (e) {
      code = (e as { status: number }).status;
      err = String((e as { stderr: Buffer }).stderr);
    }
    expect(code).not.toBe(0);
    expect(err).toContain('PAYSTORM_TARGET');
  });
});

describe('GITHUB_STEP_SUMMARY', () => {
  it("appends the run's summary.md to the file the variable names, and does nothing without it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-step-'));
    const runDir = join(dir, 'run');
    mkdirSync(runDir);
    writeFileSync(join(runDir, 'summary.md'), '# paystorm: FAIL\n');
    const target = join(dir, 'step.md');
    writeFileSync(target, 'earlier step\n');
    expect(appendStepSummary(runDir, { GITHUB_STEP_SUMMARY: target })).toBe(target);
    expect(readFileSync(target, 'utf8')).toBe('earlier step\n# paystorm: FAIL\n\n');
    expect(appendStepSummary(runDir, {})).toBeNull();
    expect(appendStepSummary(null, { GITHUB_STEP_SUMMARY: target })).toBeNull();
  });
});
