#!/usr/bin/env node
/**
 * Bundles each k6/scenarios/<name>.ts into dist/k6/<name>.js with esbuild, one
 * self-contained ES module per scenario whose only imports are k6's built-in modules
 * (`k6`, `k6/*`). Target es2020: k6 runs ES2020 syntax (optional chaining, `??`) natively
 * since Babel left its default mode (v0.53), while its runtime (goja/Sobek) has lacked
 * some ES2021+ syntax such as logical assignment (`??=`), which esbuild lowers at es2020
 * along with numeric separators and class fields.
 *
 *   node k6/build.mjs [--outdir DIR]
 *
 * Exits non-zero on a build error, on any import other than k6 modules, or when a
 * bundle would not fit one Kubernetes ConfigMap (1 MiB, k6-operator's limit).
 * `npm run k6:build` type-checks first (tsc -p k6/tsconfig.json).
 */
import { build } from 'esbuild';
import { readdirSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const CONFIGMAP_MAX_BYTES = 1_048_576;
const K6_MODULE = /^k6(\/[a-z0-9/_-]+)?$/;

function parseArgs(argv) {
  const out = { outdir: join(root, 'dist', 'k6') };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--outdir') out.outdir = resolve(argv[++i]);
    else throw new Error(`k6/build.mjs: unknown argument ${argv[i]}`);
  }
  return out;
}

export async function buildK6(outdir) {
  const scenariosDir = join(here, 'scenarios');
  const entryPoints = readdirSync(scenariosDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .sort()
    .map((f) => join(scenariosDir, f));
  if (entryPoints.length === 0) throw new Error('k6/build.mjs: no scenarios in k6/scenarios');
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    entryPoints,
    outdir,
    entryNames: '[name]',
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2020',
    external: ['k6', 'k6/*'],
    metafile: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'warning',
    banner: { js: '// Built by k6/build.mjs from k6/scenarios (paystorm). Do not edit.' },
  });
  const problems = [];
  const outputs = [];
  for (const [file, out] of Object.entries(result.metafile.outputs)) {
    for (const imp of out.imports) {
      if (!imp.external || !K6_MODULE.test(imp.path)) problems.push(`${relative(root, file)} imports ${imp.path}${imp.external ? '' : ' (bundled)'}: only k6 modules may stay imports`);
    }
    const bytes = statSync(file).size;
    if (bytes >= CONFIGMAP_MAX_BYTES) problems.push(`${relative(root, file)} is ${bytes} bytes: too big for one ConfigMap (1 MiB)`);
    outputs.push({ file, bytes });
  }
  if (problems.length) throw new Error(`k6/build.mjs:\n  ${problems.join('\n  ')}`);
  return outputs;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { outdir } = parseArgs(process.argv.slice(2));
    const outputs = await buildK6(outdir);
    for (const o of outputs) console.log(`k6: ${relative(process.cwd(), o.file)} (${(o.bytes / 1024).toFixed(1)} KiB)`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}
