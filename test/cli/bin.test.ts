/**
 * bin/paystorm.js runs the build only when it is newer than every source file, so an edit
 * under src/ or scenarios/ is never shadowed by a stale build. Checked on a throwaway tree
 * whose "build" and "sources" each say which one ran.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function tree() {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-bin-'));
  for (const d of ['bin', 'src/cli', 'scenarios/lib', 'dist/cli']) mkdirSync(join(dir, d), { recursive: true });
  copyFileSync(join(root, 'bin/paystorm.js'), join(dir, 'bin/paystorm.js'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'src/cli/main.ts'), "export async function main(): Promise<number> { process.stdout.write('sources'); return 0; }\n");
  writeFileSync(join(dir, 'scenarios/lib/x.ts'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'dist/cli/main.js'), "export async function main() { process.stdout.write('build'); return 0; }\n");
  writeFileSync(join(dir, 'dist/cli/.stamp'), '');
  const at = (file: string, secondsAgo: number) => {
    const t = Date.now() / 1000 - secondsAgo;
    utimesSync(join(dir, file), t, t);
  };
  // Sources an hour old, the build a minute old.
  for (const f of ['src/cli/main.ts', 'scenarios/lib/x.ts']) at(f, 3600);
  at('dist/cli/.stamp', 60);
  const run = (env: Record<string, string> = {}) => execFileSync(process.execPath, [join(dir, 'bin/paystorm.js')], { env: { ...process.env, PAYSTORM_DIST_DIR: '', PAYSTORM_DIST: '', ...env }, encoding: 'utf8' });
  return { dir, at, run };
}

describe('bin/paystorm.js', () => {
  it('runs the build when it is newer than every source, the sources as soon as one is edited', () => {
    const t = tree();
    expect(t.run()).toBe('build');
    t.at('scenarios/lib/x.ts', 1); // an edit deep under scenarios/
    expect(t.run()).toBe('sources');
    expect(t.run({ PAYSTORM_DIST: '1' })).toBe('build');
  });
  it('runs the sources when told to, after an edit under src/, and without a build', () => {
    const t = tree();
    expect(t.run({ PAYSTORM_DIST: '0' })).toBe('sources');
    t.at('src/cli/main.ts', 1);
    expect(t.run()).toBe('sources');
    rmSync(join(t.dir, 'dist/cli/.stamp'));
    expect(t.run({ PAYSTORM_DIST: '1' })).toBe('sources');
  });
});
