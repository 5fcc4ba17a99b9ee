#!/usr/bin/env node
// Entry point. Runs the compiled CLI (dist/cli/main.js, built by `npm run build`, `prepare`
// and so `npm ci`) when its build stamp is newer than every file under src/ and scenarios/;
// otherwise (no build yet, or sources edited since) the TypeScript sources through tsx, so
// it never runs stale code. PAYSTORM_DIST=0 forces the sources, PAYSTORM_DIST=1 the build
// (docs/build.md).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// PAYSTORM_DIST_DIR: a build elsewhere (the test suite's, made once per run by test/global-setup.ts).
const dist = process.env.PAYSTORM_DIST_DIR || `${root}dist/cli`;
const stamp = `${dist}/.stamp`;

/** True when some file under dir was modified after `since` (ms). */
function newerThan(dir, since) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const e of entries) {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (newerThan(p, since)) return true;
    } else if (statSync(p).mtimeMs > since) return true;
  }
  return false;
}

function useBuild() {
  const mode = process.env.PAYSTORM_DIST;
  if (mode === '0') return false;
  if (!existsSync(stamp)) {
    if (mode === '1') process.stderr.write('paystorm: PAYSTORM_DIST=1 but there is no build; run `npm run build`. Running the sources.\n');
    return false;
  }
  if (mode === '1') return true;
  const built = statSync(stamp).mtimeMs;
  return !newerThan(`${root}src`, built) && !newerThan(`${root}scenarios`, built);
}

// Output piped into `head` and the like: a closed pipe ends the command quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

let main;
if (useBuild()) {
  // Stack traces point into src/*.ts through the build's source maps.
  process.setSourceMapsEnabled(true);
  ({ main } = await import(pathToFileURL(`${dist}/main.js`).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
