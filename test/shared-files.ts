/**
 * The shared folder beside the project (`../shared`): the contract's text and rule catalog
 * (`spec/`) and real k6 output (`samples/k6/`). CI's checkout has it beside the project, a clone on
 * its own does not, and nothing paystorm runs needs it: only tests that check paystorm against
 * those files read it, and they find it here alone. When a file is absent, their suites are
 * skipped with the reason printed instead of failing. PAYSTORM_SHARED_DIR names another folder
 * (one that does not exist shows the skips).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestFunction } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The shared folder: PAYSTORM_SHARED_DIR, else `shared` beside the project. */
const SHARED_DIR = resolve(process.env.PAYSTORM_SHARED_DIR || join(root, '..', 'shared'));

/** The path of a file of the shared folder, e.g. `sharedPath('spec/rules.md')`, whether it is there or not. */
export const sharedPath = (file: string): string => join(SHARED_DIR, file);

/** Why a suite reading these files cannot run, or null when every one is there. */
export function sharedMissing(files: readonly string[]): string | null {
  const missing = files.filter((f) => !existsSync(sharedPath(f)));
  if (missing.length === 0) return null;
  return `skipped: ${missing.map(sharedPath).join(', ')} not found (the shared folder beside the project; PAYSTORM_SHARED_DIR names another)`;
}

/**
 * `describe(name, fn)` when every file is in the shared folder; otherwise the suite holds one
 * skipped test whose name is the reason, printed on stderr too, and `fn` (which may read the
 * files while the suite is collected) does not run.
 */
export function describeWithShared(files: readonly string[], name: string, fn: () => void): void {
  const missing = sharedMissing(files);
  if (missing === null) {
    describe(name, fn);
    return;
  }
  process.stderr.write(`${name}: ${missing}\n`);
  describe(name, () => {
    it.skip(missing, () => {});
  });
}

/** `it(name, fn)` when every file is in the shared folder; otherwise skipped, the reason in its name and printed on stderr. */
export function itWithShared(files: readonly string[], name: string, fn: TestFunction, timeout?: number): void {
  const missing = sharedMissing(files);
  if (missing === null) {
    it(name, fn, timeout);
    return;
  }
  process.stderr.write(`${name}: ${missing}\n`);
  it.skip(`${name} (${missing})`, fn);
}
