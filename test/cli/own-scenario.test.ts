/**
 * `paystorm run ./my-scenario.ts`: a user's own scenario file is loaded, checked for the
 * documented shape, run, recorded and judged like a built-in one; its default thresholds travel
 * in the history so `paystorm check` applies them too. Bad files are usage errors (exit 3).
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isScenarioPath, loadScenarioFile, scenarioShapeProblems } from '../../src/cli/scenario-file.ts';
import { executeRun } from '../../src/cli/run.ts';
import { selectScenarios } from '../../src/cli/run-steps/settings.ts';
import { bufferIo } from '../../src/cli/selftest.ts';
import { judgeHistory } from '../../src/cli/judge-run.ts';
import { EXIT, PaystormError } from '../../src/spec/index.ts';
import { historyPathOf, historyRecords, historyText } from '../history-file.ts';

const root = join(import.meta.dirname, '../..');
const example = join(root, 'docs/examples/checkout-smoke.ts');

async function usageError(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(PaystormError);
    expect((e as PaystormError).exitCode).toBe(EXIT.usage);
    return (e as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('scenario files', () => {
  it('tells a path from a built-in name', () => {
    expect(isScenarioPath('./x.ts')).toBe(true);
    expect(isScenarioPath('dir/x')).toBe(true);
    expect(isScenarioPath('x.mjs')).toBe(true);
    expect(isScenarioPath('mixed')).toBe(false);
    expect(isScenarioPath('rate-limit')).toBe(false);
  });

  it('names every shape problem with its fix', () => {
    expect(scenarioShapeProblems({ name: 'ok-name', description: 'd', rules: ['PAY-1'], run: async () => {} })).toEqual([]);
    const problems = scenarioShapeProblems({ name: 'Bad Name', rules: ['NOPE-1'], run: 'x' });
    expect(problems.join('\n')).toMatch(/name.*kebab-case/);
    expect(problems.join('\n')).toMatch(/description/);
    expect(problems.join('\n')).toMatch(/NOPE-1/);
    expect(problems.join('\n')).toMatch(/run.*function/);
    expect(scenarioShapeProblems(undefined)[0]).toMatch(/export default/);
  });

  it('refuses a missing file, a file without a scenario, and a built-in name, with exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-own-'));
    expect(await usageError(loadScenarioFile(join(dir, 'nope.ts'), []))).toMatch(/no such file/);
    const bad = join(dir, 'bad.ts');
    writeFileSync(bad, 'export const x: number = 1;\n');
    expect(await usageError(loadScenarioFile(bad, []))).toMatch(/does not export a scenario/);
    const clash = join(dir, 'clash.mjs');
    writeFileSync(clash, "export default { name: 'mixed', description: 'd', rules: [], run: async () => {} };\n");
    expect(await usageError(loadScenarioFile(clash, ['mixed']))).toMatch(/built-in/);
    const broken = join(dir, 'broken.ts');
    writeFileSync(broken, 'export default {{{;\n');
    expect(await usageError(loadScenarioFile(broken, []))).toMatch(/could not be loaded/);
    expect(await usageError(selectScenarios(['mixed', 'mixed']))).toMatch(/twice/);
  });

  it('loads a .ts file as an ES module in a folder whose package.json is not "type": "module", with its relative imports, leaving nothing behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-own-cjs-'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'mine', version: '1.0.0' }));
    writeFileSync(join(dir, 'helper.ts'), "export const RULES: string[] = ['IDEM-3'];\n");
    writeFileSync(join(dir, 'scen.ts'), "import { RULES } from './helper.ts';\nconst n: number = 1;\nexport default { name: 'mine-' + n, description: 'd', rules: RULES, run: async () => {} };\n");
    const s = await loadScenarioFile(join(dir, 'scen.ts'), []);
    expect(s).toMatchObject({ name: 'mine-1', rules: ['IDEM-3'] });
    expect(readdirSync(dir).sort()).toEqual(['helper.ts', 'package.json', 'scen.ts']);
    // A syntax error names the file, line and column.
    writeFileSync(join(dir, 'broken.ts'), 'const a = 1;\nexport default {{{;\n');
    expect(await usageError(loadScenarioFile(join(dir, 'broken.ts'), []))).toMatch(/broken\.ts:2:\d+: /);
  });

  it('runs the documented example against the embedded service: recorded, judged, thresholds kept for check', { timeout: 120_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'paystorm-own-run-'));
    const io = bufferIo();
    const r = await executeRun({ scenarios: [example], out, seed: 3 }, io);
    expect(r.exitCode, io.text()).toBe(EXIT.pass);
    expect(r.summary!.scenarios.map((s) => s.name)).toEqual(['checkout-smoke']);
    expect(r.summary!.thresholds.map((t) => t.expr)).toEqual(['http_req_failed: rate<0.01']);
    for (const id of ['create-returns-payment', 'settles-within-bound']) expect(r.summary!.invariants.find((i) => i.id === id)!.status).toBe('pass');
    const history = await historyText(r.runDir!);
    const run = JSON.parse(history.slice(0, history.indexOf('\n')));
    expect(run.scenarios[0].thresholds).toEqual(['http_req_failed: rate<0.01']);
    // check has no scenario code for checkout-smoke: the thresholds come from the history.
    const again = await judgeHistory(historyPathOf(r.runDir!), { scenarioThresholds: () => [] });
    expect(again.thresholds.map((t) => t.expr)).toEqual(['http_req_failed: rate<0.01']);
    expect(again.verdict).toBe('pass');
  });
});
