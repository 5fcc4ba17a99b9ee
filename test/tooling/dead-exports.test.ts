import { fileURLToPath } from 'node:url';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDeadExports } from './dead-exports.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('dead exports', () => {
  it('no module of src/ exports code that nothing uses (add a real user, delete it, or list it in PUBLIC_API)', () => {
    const dead = findDeadExports(root).filter((d) => !d.usedInFile);
    expect(dead.map((d) => `${d.file}:${d.line} ${d.name}`)).toEqual([]);
  });

  it('finds an export nothing imports, and tells dead code from an export used only at home', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dead-exports-'));
    try {
      mkdirSync(join(dir, 'src', 'spec'), { recursive: true });
      mkdirSync(join(dir, 'test'));
      writeFileSync(
        join(dir, 'src', 'a.ts'),
        [
          'export function used(): number { return helper(); }',
          'export function helper(): number { return 1; }',
          'export const unused = 2;',
          'export interface Shape { n: number }',
          'function local(): Shape { return { n: 1 }; }', // exported, never called: dead
          'const x = 3;',
          'export { x as renamed, local };',
          'export default 4;',
        ].join('\n'),
      );
      writeFileSync(join(dir, 'src', 'b.ts'), "import { used } from './a.ts';\nexport * from './a.ts';\nused();\n");
      writeFileSync(join(dir, 'src', 'c.ts'), "export async function f() { const { lazy } = await import('./d.ts'); return (await import('./d.ts')).other + lazy; }\n");
      writeFileSync(join(dir, 'src', 'd.ts'), 'export const lazy = 1;\nexport const other = 2;\n');
      writeFileSync(join(dir, 'src', 'spec', 'api.ts'), 'export type PublicThing = number;\n');
      writeFileSync(join(dir, 'test', 't.test.ts'), "import { f } from '../src/c.ts';\nf();\n");
      const dead = findDeadExports(dir).map((d) => `${d.file} ${d.name} ${d.usedInFile ? 'export-only' : 'dead'}`);
      expect(dead.sort()).toEqual(['src/a.ts Shape export-only', 'src/a.ts helper export-only', 'src/a.ts local dead', 'src/a.ts renamed dead', 'src/a.ts unused dead'].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
