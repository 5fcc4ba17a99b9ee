/**
 * The seams between stages (scenario -> engine -> client -> history -> oracle -> report): only
 * the CLI, which wires the stages, imports the engine; the oracle judges a history and reads
 * no scenario. Import specifiers are read from the source text, static and dynamic alike.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (e.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every module a file imports, as a path from the repo root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => relative(root, resolve(dirname(file), s)).split(sep).join('/'));
}

function offenders(folder: string, forbidden: RegExp): string[] {
  return sources(join(root, folder)).flatMap((f) => importsOf(f).filter((i) => forbidden.test(i)).map((i) => `${relative(root, f)} -> ${i}`));
}

describe('stage imports', () => {
  it('no stage but the engine itself (and the CLI that wires them) imports src/engine', () => {
    const stages = readdirSync(join(root, 'src')).filter((d) => d !== 'engine' && d !== 'cli' && statSync(join(root, 'src', d)).isDirectory());
    expect(stages).toContain('oracle');
    expect(stages.flatMap((d) => offenders(join('src', d), /^src\/engine\//))).toEqual([]);
  });

  it('the oracle reads no scenario', () => {
    expect(offenders('src/oracle', /^scenarios\//)).toEqual([]);
  });

  it('finds an import when there is one', () => {
    expect(importsOf(join(root, 'src/cli/run.ts'))).toContain('src/cli/run-steps/settings.ts');
  });
});
