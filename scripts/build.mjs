#!/usr/bin/env node
/**
 * Compiles the CLI (src/cli/main.ts and everything it imports, scenarios/ included) into ES
 * modules, dist/cli/main.js and its chunks, with source maps, so `paystorm` starts without
 * compiling TypeScript (bin/paystorm.js; --help in ~0.15 s instead of ~1 s). Packages stay in
 * node_modules (external). Run by `npm run build`, by `prepare` (so by `npm ci`), and by .ci/run.
 *
 * The compiled CLI reads nothing under src/ at run time (an installed package has no src/): what
 * the sources read beside themselves is inlined (esbuild `define`) — the scripts of the history
 * worker and of merge's workers (bundled here as src/history/writer.ts and merge-threads.ts bundle
 * them when the sources run) and the HTML report's
 * page.js and styles.css, and the live page's dashboard.js.
 *
 * dist/cli/.stamp is written last: bin/paystorm.js uses the build only when the stamp is
 * newer than every file under src/ and scenarios/ (else it runs src through tsx).
 *
 * --package (npm pack's prepack) also builds what the package ships besides the CLI: dist/index.js
 * (the public API's run-time part, src/index.ts) and its declarations in dist/types
 * (tsconfig.types.json), and checks that schema/config.json is current (scripts/config-schema.ts).
 *
 *   node scripts/build.mjs [--outdir DIR] [--package]
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// --outdir DIR: build elsewhere (the test suite builds into a temp dir; bin/paystorm.js reads PAYSTORM_DIST_DIR).
const at = process.argv.indexOf('--outdir');
const outdir = at > 0 ? resolve(process.argv[at + 1]) : join(root, 'dist', 'cli');
const forPackage = process.argv.includes('--package');
const entry = join(root, 'src', 'cli', 'main.ts');

// `npm ci` in a Docker layer that holds only package.json: nothing to build yet.
if (!existsSync(entry)) {
  console.log('paystorm build: no src/ here; skipped (run `npm run build` once the sources are in place)');
  process.exit(0);
}

/** What the sources read from files beside them at run time, as `define` values (see the top). */
async function inlinedFiles() {
  // The same options as workerScript() in src/history/worker-script.ts (the history writer's worker).
  const worker = await build({ entryPoints: [join(root, 'src', 'history', 'worker.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
  // The same options as workerScript() (the merge's worker).
  const merge = await build({ entryPoints: [join(root, 'src', 'history', 'merge-worker.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent' });
  // The same options as workerScript() (the judge's worker, with judgeWorkerSource()'s alias).
  const judge = await build({ entryPoints: [join(root, 'src', 'cli', 'live', 'judge-worker.ts')], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent', alias: { esbuild: join(root, 'src', 'cli', 'live', 'no-esbuild.ts') } });
  const text = (path) => JSON.stringify(readFileSync(join(root, path), 'utf8'));
  return {
    PAYSTORM_HISTORY_WORKER: JSON.stringify(worker.outputFiles[0].text),
    PAYSTORM_JUDGE_WORKER: JSON.stringify(judge.outputFiles[0].text),
    PAYSTORM_MERGE_WORKER: JSON.stringify(merge.outputFiles[0].text),
    PAYSTORM_REPORT_PAGE_JS: text('src/report/html/page.js'),
    PAYSTORM_REPORT_STYLES_CSS: text('src/report/html/styles.css'),
    PAYSTORM_DASHBOARD_JS: text('src/report/dashboard/dashboard.js'),
  };
}

rmSync(join(outdir, '.stamp'), { force: true });
// Chunks are named by hash: clear the old ones.
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const started = Date.now();
await build({
  entryPoints: { main: entry },
  outdir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  sourcesContent: false,
  // Dynamic imports (the embedded service, doctor's probes) load only when used.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  define: await inlinedFiles(),
});
writeFileSync(join(outdir, '.stamp'), `${new Date().toISOString()}\n`);
if (!process.env.PAYSTORM_BUILD_QUIET) console.log(`paystorm build: ${join(outdir, 'main.js')} in ${Date.now() - started} ms`);

if (forPackage) {
  const dist = join(root, 'dist');
  const require = createRequire(import.meta.url);
  await build({ entryPoints: [join(root, 'src', 'index.ts')], outfile: join(dist, 'index.js'), bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  // tsc leaves declarations of removed modules behind: start empty.
  rmSync(join(dist, 'types'), { recursive: true, force: true });
  const run = (args) => execFileSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  run([require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.types.json']);
  run([require.resolve('tsx/cli'), join('scripts', 'config-schema.ts'), '--check']);
  console.log(`paystorm build: ${join(dist, 'index.js')}, ${join(dist, 'types')}; schema/config.json is current`);
}
