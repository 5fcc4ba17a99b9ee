/**
 * A user's own scenario: `paystorm run ./my-scenario.ts` loads a file that exports a scenario of
 * the documented shape (src/spec/scenario.ts `Scenario`; docs/own-scenarios.md has a worked
 * example) and runs it beside or instead of the built-in ones, judged by the same oracle.
 * TypeScript files are loaded through tsx's loader, registered only when one is asked for.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
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

let tsxRegistered = false;

/** Loads and checks a scenario file; a missing file, a failed import or a wrong shape is a usage error (exit 3) naming the file and the fix. */
export async function loadScenarioFile(arg: string, builtInNames: readonly string[]): Promise<Scenario> {
  const path = resolve(arg);
  if (!existsSync(path)) throw new PaystormError(`scenario file ${arg}: no such file. Pass the path of a .ts or .js file that exports a scenario (docs/own-scenarios.md).`, EXIT.usage, 'scenario');
  if (/\.(ts|mts)$/.test(path) && !tsxRegistered) {
    const { register } = await import('tsx/esm/api');
    register();
    tsxRegistered = true;
  }
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    throw new PaystormError(`scenario file ${arg} could not be loaded: ${(e as Error).message.split('\n')[0]}. Fix the file (docs/own-scenarios.md has a worked example).`, EXIT.usage, 'scenario');
  }
  const value = mod.default ?? mod.scenario;
  const problems = scenarioShapeProblems(value);
  if (problems.length) throw new PaystormError(`scenario file ${arg} does not export a scenario of the documented shape:\n${problems.map((p) => `  - ${p}`).join('\n')}\nSee docs/own-scenarios.md.`, EXIT.usage, 'scenario');
  const s = value as Scenario;
  if (builtInNames.includes(s.name)) throw new PaystormError(`scenario file ${arg}: its name "${s.name}" is a built-in scenario's. Give it a name of its own.`, EXIT.usage, 'scenario');
  return s;
}
