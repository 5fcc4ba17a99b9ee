/**
 * Writes docs/rules-coverage.md from the rules, the invariant registry and the scenarios'
 * declared rules. Lives outside src/oracle because reading the scenarios is not the oracle's job.
 *
 *   npx tsx scripts/rules-coverage.ts > docs/rules-coverage.md
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { INVARIANTS } from '../src/oracle/index.ts';
import { coverageRows, renderCoverage, type ScenarioRules } from '../src/oracle/coverage.ts';

const scenariosDir = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'scenarios');

/** Each scenario file's default export (a file's variants, such as chaos.ts's chaosShort, are not listed), by file name. */
async function scenarioRules(dir: string): Promise<ScenarioRules[]> {
  const out: ScenarioRules[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !f.endsWith('.test.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default?: { name?: unknown; rules?: unknown } };
    const s = mod.default;
    if (s && typeof s.name === 'string' && Array.isArray(s.rules)) out.push({ name: s.name, rules: s.rules as string[] });
  }
  return out;
}

const found = existsSync(scenariosDir);
process.stdout.write(renderCoverage(coverageRows(INVARIANTS, found ? await scenarioRules(scenariosDir) : []), found));
