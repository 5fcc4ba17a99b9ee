/**
 * Scenarios drive any target and are judged by the oracle: they import the contract (src/spec)
 * and the plumbing, never the judge (src/oracle) or the reference service (src/target), so a
 * scenario cannot lean on what only the embedded service does or on how the oracle decides.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FORBIDDEN = ['src/oracle', 'src/target'];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(p);
  }
  return out;
}

/** Relative specifiers of a file's static, dynamic and type imports and re-exports, resolved from the repo root. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName).filter((s) => s.startsWith('.')).map((s) => relative(root, resolve(dirname(file), s)).split('\\').join('/'));
}

const forbidden = (target: string) => FORBIDDEN.some((f) => target === f || target.startsWith(f + '/'));

describe('scenario imports', () => {
  it('no file under scenarios/ imports src/oracle or src/target', () => {
    const bad = sources(join(root, 'scenarios')).flatMap((f) => importsOf(f).filter(forbidden).map((t) => `${relative(root, f)} imports ${t}`));
    expect(bad).toEqual([]);
  });

  it('sees static, type, re-export and dynamic imports', () => {
    const probe = join(root, 'scenarios', 'lib', 'probe.ts');
    const code = [
      "import { a } from '../../src/oracle/x.ts';",
      "import type { B } from '../../src/target/y.ts';",
      "export * from '../../src/target/index.ts';",
      "const m = await import('../../src/oracle/z.ts');",
      "import { ok } from '../../src/spec/index.ts';",
    ].join('\n');
    const found = ts.preProcessFile(code, true, true).importedFiles.map((f) => relative(root, resolve(dirname(probe), f.fileName)).split('\\').join('/'));
    expect(found.filter(forbidden)).toEqual(['src/oracle/x.ts', 'src/target/y.ts', 'src/target/index.ts', 'src/oracle/z.ts']);
  });
});
