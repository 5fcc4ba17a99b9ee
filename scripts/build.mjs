#!/usr/bin/env node
/**
 * Compiles the CLI (src/cli/main.ts and everything it imports, scenarios/ included) into one
 * ES module, dist/cli/main.js, with a source map, so `paystorm` starts without compiling
 * TypeScript (bin/paystorm.js; --help in ~0.15 s instead of ~1 s). Packages stay in
 * node_modules (external). Run by `npm run build`, by `prepare` (so by `npm ci`), and by .ci/run.
 *
 * Each module's `import.meta.url` is replaced by its source file's URL, so files read
 * beside a module at run time (the HTML report's page.js and styles.css, the history
 * worker that writer.ts bundles on its own) are still found under src/.
 *
 * dist/cli/.stamp is written last: bin/paystorm.js uses the build only when the stamp is
 * newer than every file under src/ and scenarios/ (else it runs src through tsx).
 *
 *   node scripts/build.mjs [--outdir DIR]
 */
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// --outdir DIR: build elsewhere (the test suite builds into a temp dir; bin/paystorm.js reads PAYSTORM_DIST_DIR).
const at = process.argv.indexOf('--outdir');
const outdir = at > 0 ? resolve(process.argv[at + 1]) : join(root, 'dist', 'cli');
const entry = join(root, 'src', 'cli', 'main.ts');

// `npm ci` in a Docker layer that holds only package.json: nothing to build yet.
if (!existsSync(entry)) {
  console.log('paystorm build: no src/ here; skipped (run `npm run build` once the sources are in place)');
  process.exit(0);
}

/** Keeps `import.meta.url` pointing at the source file, not at the bundle. */
const sourceUrls = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
      if (args.path.includes(`${join('node_modules', '')}`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
        loader: args.path.endsWith('ts') ? 'ts' : 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

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
  plugins: [sourceUrls],
});
writeFileSync(join(outdir, '.stamp'), `${new Date().toISOString()}\n`);
if (!process.env.PAYSTORM_BUILD_QUIET) console.log(`paystorm build: ${join(outdir, 'main.js')} in ${Date.now() - started} ms`);
