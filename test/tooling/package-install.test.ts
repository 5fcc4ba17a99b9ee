/**
 * paystorm as a team adds it to its repository: `npm pack` here (its prepack builds the CLI, the
 * public API's runtime and declarations, the k6 bundles), then `npm i -D` of the tarball into an
 * empty project. There `npx paystorm run mixed --duration 5s` passes on the compiled CLI (the
 * package has no src/ to fall back on), the docs' scenario file importing its types from
 * 'paystorm' type-checks against the package's declarations and runs, and the runtime entry reads
 * the run's summary.json.
 *
 * Installing takes the dependencies from npm's cache (`--prefer-offline`; CI's `npm ci` fills it)
 * and the registry for anything missing: if that fails, the test fails saying so. Packing
 * rebuilds this checkout's dist/ as `npm pack` always does (the suite's spawned processes use
 * their own build, test/global-setup.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'paystorm-package-'));
const project = join(work, 'project');
const installed = join(project, 'node_modules', 'paystorm');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const MINUTES = 60_000;

/**
 * The environment of a process in the user's project: not this suite's build of the CLI
 * (PAYSTORM_DIST_DIR), nor the npm settings of an `npm test` around the suite (npm_*), which
 * would point npm at this checkout.
 */
const env: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !/^(PAYSTORM_DIST|npm_|INIT_CWD$)/i.test(k) || /^npm_config_(cache|registry)$/i.test(k)),
);

interface Ran {
  code: number;
  out: string;
}

/** Runs a command in the user's project; its exit code and output (stdout and stderr). */
function run(cmd: string, args: string[], opts: { cwd?: string; timeoutMs: number }): Ran {
  try {
    const out = execFileSync(cmd, args, { cwd: opts.cwd ?? project, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, out };
  } catch (e) {
    const x = e as { status?: number | null; signal?: string | null; stdout?: string; stderr?: string };
    return { code: x.status ?? -1, out: `${x.stdout ?? ''}${x.stderr ?? ''}${x.signal ? `\n(killed by ${x.signal}: time-out)` : ''}` };
  }
}

const tail = (text: string) => text.split('\n').slice(-40).join('\n');

/** Every file under dir, as paths relative to it. */
function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? filesUnder(p, base) : [p.slice(base.length + 1)];
  });
}

let tarball = '';
let packed: string[] = [];

beforeAll(() => {
  const pack = run('npm', ['pack', '--pack-destination', work], { cwd: root, timeoutMs: 8 * MINUTES });
  if (pack.code !== 0) throw new Error(`npm pack failed (exit ${pack.code}):\n${tail(pack.out)}`);
  tarball = readdirSync(work).find((f) => f.endsWith('.tgz')) ?? '';
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${work}:\n${tail(pack.out)}`);
  packed = execFileSync('tar', ['-tzf', join(work, tarball)], { encoding: 'utf8' }).split('\n').filter((l) => l && !l.endsWith('/')).map((l) => l.replace(/^package\//, ''));

  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'team-service', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const install = run('npm', ['i', '-D', `../${tarball}`, '--prefer-offline', '--no-audit', '--no-fund'], { timeoutMs: 8 * MINUTES });
  if (install.code !== 0) {
    throw new Error(
      `npm i -D ${tarball} failed (exit ${install.code}). It takes paystorm's dependencies from npm's cache (filled by \`npm ci\`) or the registry: is either reachable?\n${tail(install.out)}`,
    );
  }
}, 16 * MINUTES);

afterAll(() => rmSync(work, { recursive: true, force: true }));

// Each step spawns npm, node or tsc, on a machine the rest of the suite keeps busy.
describe('the packed package, installed as a dev dependency', { timeout: 8 * MINUTES }, () => {
  it('ships what a user runs and imports: the compiled CLI, the declarations, the config schema, the k6 bundles; no sources, tests or tooling', () => {
    for (const f of ['bin/paystorm.js', 'dist/cli/main.js', 'dist/cli/.stamp', 'dist/index.js', 'dist/types/index.d.ts', 'schema/config.json', 'dist/k6/mixed.js', 'package.json', 'README.md']) {
      expect(packed, f).toContain(f);
    }
    const allowed = /^(bin\/|dist\/(cli|k6|types)\/|dist\/index\.js$|schema\/|package\.json$|README\.md$)/;
    expect(packed.filter((f) => !allowed.test(f))).toEqual([]);
    // The build refers to nothing of the checkout it was packed in (the absolute path of a source file, say).
    const pointingHome = filesUnder(installed).filter((f) => readFileSync(join(installed, f), 'utf8').includes(root));
    expect(pointingHome).toEqual([]);
  });

  it('npx paystorm run mixed --duration 5s: passes on the compiled CLI and writes its reports', () => {
    expect(existsSync(join(installed, 'src')), 'the package ships no sources: bin/paystorm.js can only run dist/').toBe(false);
    const r = run('npx', ['--no', 'paystorm', 'run', 'mixed', '--duration', '5s'], { timeoutMs: 3 * MINUTES });
    expect(r.code, tail(r.out)).toBe(0);
    const latest = join(project, 'reports', 'latest');
    for (const f of ['summary.json', 'summary.md', 'report.html', 'junit.xml']) expect(existsSync(join(latest, f)), f).toBe(true);
    // The report's own page script, inlined by the build.
    expect(readFileSync(join(latest, 'report.html'), 'utf8')).toContain('uPlot');
    // The package's runtime entry reads the summary (its schema, its exit codes).
    const read = run(
      process.execPath,
      ['--input-type=module', '-e', "import { EXIT, summarySchema } from 'paystorm'; import { readFileSync } from 'node:fs'; const s = summarySchema.parse(JSON.parse(readFileSync('reports/latest/summary.json', 'utf8'))); process.stdout.write(`${s.verdict} ${s.exitCode === EXIT.pass}`);"],
      { timeoutMs: MINUTES },
    );
    expect(read).toEqual({ code: 0, out: 'pass true' });
  });

  it("a scenario file importing from 'paystorm' type-checks with the package's declarations, and runs", () => {
    const example = readFileSync(join(root, 'docs', 'examples', 'checkout-smoke.ts'), 'utf8');
    const fromRepo = "from '../../src/spec/scenario.ts'";
    expect(example).toContain(fromRepo);
    writeFileSync(join(project, 'checkout-smoke.ts'), example.replace(fromRepo, "from 'paystorm'"));
    writeFileSync(
      join(project, 'api-use.ts'),
      [
        "import type { RunConfig, Scenario, Summary } from 'paystorm';",
        "import { EXIT, summarySchema } from 'paystorm';",
        "export const config: RunConfig = { scenarios: ['mixed'], duration: '5s', cards: { succeeds: '4242424242424242' } };",
        'export const read = (text: string): Summary => summarySchema.parse(JSON.parse(text));',
        'export const passed: number = EXIT.pass;',
        '// The types are the real ones, not `any`: each of these must be an error.',
        "// @ts-expect-error a scenario has a run function",
        "export const incomplete: Scenario = { name: 'x', description: 'x', rules: [] };",
        "// @ts-expect-error no such option",
        "export const misspelt: RunConfig = { duraton: '5s' };",
        '',
      ].join('\n'),
    );
    // Strict, libraries checked too, no Node types: the declarations stand on their own.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true, skipLibCheck: false, types: [] }, files: ['checkout-smoke.ts', 'api-use.ts'] }),
    );
    const check = run(process.execPath, [tsc, '-p', 'tsconfig.json'], { timeoutMs: 3 * MINUTES });
    expect(check.code, check.out).toBe(0);

    const r = run('npx', ['--no', 'paystorm', 'run', './checkout-smoke.ts', '--out', 'reports-own'], { timeoutMs: 3 * MINUTES });
    expect(r.code, tail(r.out)).toBe(0);
    const summary = JSON.parse(readFileSync(join(project, 'reports-own', 'latest', 'summary.json'), 'utf8')) as { scenarios: { name: string }[] };
    expect(summary.scenarios.map((s) => s.name)).toEqual(['checkout-smoke']);
  });
});
