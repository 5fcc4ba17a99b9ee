/**
 * --out is tried before any load: a path that access() allows but that cannot be made (a dangling
 * symlink, /proc, where Node's recursive mkdir never returns) is refused with its reason, and a
 * good one is left as it was found. The history writer makes its folder one level at a time, so
 * such a path is an error, not a run that hangs.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { outProblem } from '../../src/cli/run-checks.ts';
import { makeDirs, makeDirsSync } from '../../src/history/index.ts';
import { BatchFile } from '../../src/history/batch-file.ts';

describe('--out is tried before the load', () => {
  it('a new folder passes and is not left behind; an existing one keeps no probe file', () => {
    const base = mkdtempSync(join(tmpdir(), 'paystorm-out-'));
    expect(outProblem(join(base, 'a', 'b'))).toBeUndefined();
    expect(readdirSync(base)).toEqual([]);
    expect(outProblem(base)).toBeUndefined();
    expect(readdirSync(base)).toEqual([]);
  });
  it('a dangling symlink is refused, and the symlink stays', () => {
    const base = mkdtempSync(join(tmpdir(), 'paystorm-out-'));
    const link = join(base, 'dangling');
    symlinkSync(join(base, 'nowhere'), link);
    expect(outProblem(link)).toMatch(/cannot be written \(EEXIST\)/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
  it('/proc/<new> is refused at once (recursive mkdir would spin there)', () => {
    expect(outProblem('/proc/paystorm-out-test/x')).toMatch(/cannot be written/);
  });
  it('makeDirs and the history file fail on /proc instead of hanging', async () => {
    expect(() => makeDirsSync('/proc/paystorm-out-test/x')).toThrow(/ENOENT|EACCES/);
    await expect(makeDirs('/proc/paystorm-out-test/x')).rejects.toThrow(/ENOENT|EACCES/);
    expect(() => new BatchFile('/proc/paystorm-out-test/history.bin.gz')).toThrow(/ENOENT|EACCES/);
    const base = mkdtempSync(join(tmpdir(), 'paystorm-out-'));
    expect(makeDirsSync(join(base, 'a', 'b'))).toEqual([join(base, 'a'), join(base, 'a', 'b')]);
    expect(existsSync(join(base, 'a', 'b'))).toBe(true);
  });
});

describe('other options refused before any load', () => {
  it('--key given no key, and durations of no time at all', async () => {
    const { runProblems } = await import('../../src/cli/run-checks.ts');
    const byField = (cfg: Parameters<typeof runProblems>[0]) => runProblems(cfg).map((p) => `${p.field}: ${p.message}`);
    expect(byField({ keys: [] }).join('\n')).toMatch(/--key: was given no key/);
    const zero = byField({ maxDuration: '0s', requestTimeout: '0ms', duration: '0s' }).join('\n');
    expect(zero).toMatch(/--max-duration: 0s is no time at all/);
    expect(zero).toMatch(/--request-timeout: 0ms is no time at all/);
    expect(zero).toMatch(/--duration: 0s is no time at all/);
    expect(byField({ maxDuration: '5m', requestTimeout: '30s' })).toEqual([]);
  });
});

describe('a negative duration on the command line', () => {
  it('is named with its flag (yargs would read -5s as the flags -5 and -s)', async () => {
    const { main } = await import('../../src/cli/main.ts');
    const errs: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errs.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(await main(['run', 'mixed', '--duration', '-5s'])).toBe(3);
    } finally {
      process.stderr.write = write;
    }
    expect(errs.join('')).toMatch(/--duration: -5s is negative; pass a value above zero/);
  });
});
