/**
 * GitHub Actions job summary: when `$GITHUB_STEP_SUMMARY` names a file (GitHub sets it in
 * every step), the run's summary.md is appended to it, so the verdict, its reason, the load
 * and the findings show on the job's page without opening an artifact. Other CI systems
 * leave the variable unset and nothing happens.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Appends `<runDir>/summary.md` to the step summary file; returns the file written, or null. */
export function appendStepSummary(runDir: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  const target = env.GITHUB_STEP_SUMMARY;
  if (!target || !runDir) return null;
  const md = join(runDir, 'summary.md');
  if (!existsSync(md)) return null;
  appendFileSync(target, readFileSync(md, 'utf8') + '\n');
  return target;
}
