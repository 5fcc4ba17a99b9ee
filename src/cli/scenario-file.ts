/**
 * A user's own scenario: `paystorm run ./my-scenario.ts` loads a file that exports a scenario of
 * the documented shape (src/spec/scenario.ts `Scenario`; docs/own-scenarios.md has a worked
 * example) and runs it beside or instead of the built-in ones, judged by the same oracle.
 * TypeScript files are loaded through tsx's loader, registered only when one is asked for.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXIT, PaystormError, RULE_IDS, type Scenario } from '../spec/index.ts';

/** A scenario argument names a file (not a built-in scenario) when it has a path separator or a script extension. */
export function isScenarioPath(arg: string): boolean {
  return /[\\/]/.test(arg) || /\.(ts|mts|js|mjs)$/.test(arg);
}

/** Why `value` is not a Scenario, or null when it is one. */
export function scenarioShapeProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return ['it exports no object (export default { name, description, rules, run })'];
  const s = value as Record<string, unknown>;
  const out: string[] = [];
  if (typeof s.name !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(s.name)) out.push('`name` must be a kebab-case string (it names the scenario in the history and the reports)');
  if (typeof s.description !== 'string' || !s.description) out.push('`description` must be a one-line string');
  if (!Array.isArray(s.rules) || s.rules.some((r) => typeof r !== 'string')) out.push('`rules` must be an array of rule ids of rules.md, e.g. ["IDEM-3"] (the rules it exercises; [] for load only)');
  else {
    const unknown = (s.rules as string[]).filter((r) => !RULE_IDS.includes(r));
    if (unknown.length) out.push(`\`rules\` names unknown rule id(s) ${unknown.join(', ')}; known ids are those of rules.md (paystorm scenarios lists them per scenario)`);
  }
  if (typeof s.run !== 'function') out.push('`run` must be an async function (ctx) => { ... }');
  if (s.rulesFor !== undefined && typeof s.rulesFor !== 'function') out.push('`rulesFor`, when given, must be a function (env) => string[]');
  if (s.thresholds !== undefined && (!Array.isArray(s.thresholds) || s.thresholds.some((t) => typeof t !== 'string'))) out.push('`thresholds`, when given, must be an array of k6-style threshold strings');
  return out;
}

/**
 * A TypeScript scenario file becomes an ES module whatever the nearest package.json says (a .ts
 * file in a package without "type": "module" would otherwise load as CommonJS and fail): esbuild
 * compiles it, with its relative imports, into a hidden .mjs beside it (so package imports resolve
 * from the same folder), which is imported and removed. Errors keep esbuild's file:line:column.
 */
async function importTypeScript(path: string): Promise<Record<string, unknown>> {
  const { build } = await import('esbuild');
  const out = join(dirname(path), `.${basename(path)}.paystorm-${process.pid}-${Date.now()}.mjs`);
  const options = { entryPoints: [path], bundle: true, format: 'esm' as const, platform: 'node' as const, packages: 'external' as const, logLevel: 'silent' as const, target: 'node20' };
  let file = out;
  try {
    await build({ ...options, outfile: out });
  } catch (e) {
    if ((e as { errors?: unknown[] }).errors?.length) throw e;
    // The scenario's folder is not writable: compile into a temporary folder instead (package imports then resolve from there).
    file = join(mkdtempSync(join(tmpdir(), 'paystorm-scenario-')), 'scenario.mjs');
    await build({ ...options, outfile: file });
  }
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } finally {
    rmSync(file, { force: true });
  }
}

/** An esbuild failure as one line per error with its place; any other error's first line. */
function loadError(e: unknown): string {
  const errors = (e as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }).errors;
  if (errors?.length) return errors.map((x) => (x.location ? `${x.location.file}:${x.location.line}:${x.location.column + 1}: ${x.text}` : x.text)).join('; ');
  return (e as Error).message.split('\n')[0];
}

/** Loads and checks a scenario file; a missing file, a failed import or a wrong shape is a usage error (exit 3) naming the file and the fix. */
export async function loadScenarioFile(arg: string, builtInNames: readonly string[]): Promise<Scenario> {
  const path = resolve(arg);
  if (!existsSync(path)) throw new PaystormError(`scenario file ${arg}: no such file. Pass the path of a .ts or .js file that exports a scenario (docs/own-scenarios.md).`, EXIT.usage, 'scenario');
  let mod: Record<string, unknown>;
  try {
    mod = /\.(ts|mts|cts)$/.test(path) ? await importTypeScript(path) : ((await import(pathToFileURL(path).href)) as Record<string, unknown>);
  } catch (e) {
    throw new PaystormError(`scenario file ${arg} could not be loaded: ${loadError(e)}. Fix the file (docs/own-scenarios.md has a worked example).`, EXIT.usage, 'scenario');
  }
  const value = mod.default ?? mod.scenario;
  const problems = scenarioShapeProblems(value);
  if (problems.length) throw new PaystormError(`scenario file ${arg} does not export a scenario of the documented shape:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee docs/own-scenarios.md.`, EXIT.usage, 'scenario');
  const s = value as Scenario;
  if (builtInNames.includes(s.name)) throw new PaystormError(`scenario file ${arg}: its name "${s.name}" is a built-in scenario's. Give it a name of its own.`, EXIT.usage, 'scenario');
  return s;
}
