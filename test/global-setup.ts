/**
 * Once per test run: builds the CLI into a temp dir under dist/ (inside the repo, so the
 * bundle finds node_modules; about 0.2 s) and points
 * bin/paystorm.js at it (PAYSTORM_DIST_DIR, inherited by the test workers and the
 * processes they spawn). Every spawned `paystorm` then starts from compiled JavaScript
 * instead of compiling the sources through tsx, which costs about 0.7 s of CPU a start;
 * and the tests exercise the build users run. A source edited during the run is newer
 * than the build's stamp, so bin falls back to the sources (never stale).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export default function setup(): () => void {
  mkdirSync('dist', { recursive: true });
  const dir = mkdtempSync(join('dist', 'test-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', dir], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, PAYSTORM_BUILD_QUIET: '1' } });
  } catch (e) {
    // A source that does not build (someone mid-edit) must not stop every test: spawned
    // processes run the sources, and the tests that import that source fail on their own.
    process.stderr.write(`test/global-setup.ts: the CLI did not build, spawned paystorm processes run the sources:\n${(e as { stderr?: Buffer }).stderr?.toString() ?? (e as Error).message}\n`);
    cleanup();
    return () => {};
  }
  process.env.PAYSTORM_DIST_DIR = join(process.cwd(), dir);
  return cleanup;
}
