/**
 * The regression gate end to end on the embedded target (short mixed runs): a baseline saved
 * from a clean run; a second clean run does not fail against it; the seeded slow-create variant
 * (40 ms more per create) does, with exit 2 from both `run --baseline` and `paystorm compare`.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarySchema, type Summary } from '../../src/spec/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(join(tmpdir(), 'paystorm-baseline-'));

function paystorm(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [join(root, 'bin/paystorm.js'), ...args], { cwd: root, env: { ...process.env, CI: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const hard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
}

async function mixed(name: string, extra: string[]): Promise<{ code: number | null; summary: Summary; stdout: string; stderr: string; runDir: string }> {
  const out = join(dir, name);
  const r = await paystorm(['run', 'mixed', '--duration', '8s', '--webhook-fail-share', '0', '--out', out, '--seed', '15', ...extra]);
  const file = join(out, 'latest', 'summary.json');
  if (!existsSync(file)) throw new Error(`no summary (exit ${r.code}): ${r.stderr.slice(-2000)}`);
  const summary = summarySchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return { ...r, summary, runDir: join(out, summary.runId) };
}

const regressions = (s: Summary) => (s.comparison as { regressions: { expr: string; ok: boolean; confidence: number | null }[] }).regressions;

describe('baseline regression gate', () => {
  // retry: the clean run is compared with a baseline taken seconds earlier on a shared machine; a
  // burst of load from other test files between the two is a real slowdown the gate reports.
  it('a clean run passes against a clean baseline; slow-create fails it (exit 2)', { timeout: 120_000, retry: 1 }, async () => {
    const baselineDir = join(dir, 'baseline');
    const base = await mixed('base', ['--save-baseline', baselineDir]);
    expect(base.stderr).toMatch(/baseline saved: .*baseline\.json \(\d+ bytes\)/);
    expect(statSync(join(baselineDir, 'baseline.json')).size).toBeLessThan(50_000);

    const clean = await mixed('clean', ['--baseline', baselineDir]);
    expect(regressions(clean.summary).length).toBeGreaterThan(2);
    expect(regressions(clean.summary).filter((r) => !r.ok), clean.stdout).toEqual([]);
    expect(clean.summary.thresholds.some((t) => /baseline/.test(t.expr))).toBe(true);

    const slow = await mixed('slow', ['--variant', 'slow-create', '--baseline', baselineDir]);
    const create = regressions(slow.summary).find((r) => r.expr.startsWith('http_req_duration{op:create}'))!;
    expect(create.ok).toBe(false);
    expect(create.confidence!).toBeGreaterThan(0.95);
    expect(slow.summary.thresholds.find((t) => t.expr === create.expr)?.ok).toBe(false);
    // Exit 2 like any threshold (1 would mean an invariant failed too, which slow-create must not cause).
    expect(slow.code, slow.stdout.slice(-3000)).toBe(2);
    expect(slow.stdout).toMatch(/REGRESSED http_req_duration\{op:create\}/);
    const html = readFileSync(join(slow.runDir, 'report.html'), 'utf8');
    expect(html).toContain('id="comparison-plots"');
    expect(html).toMatch(/<svg class="cmp-plot" id="cmp-create"/);
    expect(readFileSync(join(slow.runDir, 'summary.md'), 'utf8')).toMatch(/### Comparison with the baseline/);
    // JUnit: the regression threshold is a failed test case whose evidence names the baseline and the confidence.
    expect(readFileSync(join(slow.runDir, 'junit.xml'), 'utf8')).toMatch(/<failure type="threshold" message="http_req_duration: http_req_duration\{op:create\}: p\(50\) &lt; baseline \* 1\.5 \+ 5 breached: observed [0-9.]+; regression: .*confidence/);

    // paystorm compare: the same verdicts from saved runs.
    const cmpClean = await paystorm(['compare', baselineDir, clean.runDir]);
    expect(cmpClean.code, cmpClean.stdout).toBe(0);
    const cmpSlow = await paystorm(['compare', baselineDir, slow.runDir, '--threshold', 'http_req_duration{op:create}: p(50) < baseline * 1.5']);
    expect(cmpSlow.code, cmpSlow.stdout).toBe(2);
    expect(cmpSlow.stdout).toMatch(/REGRESSED http_req_duration\{op:create\}: p\(50\) < baseline \* 1\.5: regression/);
    // paystorm check: a saved run judged again against the baseline.
    const checked = await paystorm(['check', slow.runDir, '--baseline', baselineDir, '--no-write']);
    expect(checked.code, checked.stdout.slice(-2000)).toBe(2);
    expect(checked.stdout).toMatch(/REGRESSED http_req_duration\{op:create\}/);
  });

  it('refuses a regression threshold without --baseline and a missing baseline, before any load (exit 3)', { timeout: 30_000 }, async () => {
    const a = await paystorm(['run', 'mixed', '--threshold', 'http_req_duration: p(99) < baseline * 1.2', '--out', join(dir, 'x')]);
    expect(a.code).toBe(3);
    expect(a.stderr).toMatch(/needs a baseline: add --baseline DIR/);
    const b = await paystorm(['run', 'mixed', '--baseline', join(dir, 'nowhere'), '--out', join(dir, 'x')]);
    expect(b.code).toBe(3);
    expect(b.stderr).toMatch(/--baseline: nothing at/);
  });
});
