#!/usr/bin/env node
/**
 * A stand-in for the k6 binary, for testing the K6_BIN test's plumbing without k6:
 *
 *   K6_BIN=test/k6/shim/k6-cli.mjs npx vitest run test/k6/records.test.ts
 *
 * Accepts `k6 run [-q] [--out json=FILE[.gz]] [-e NAME=VALUE]... bundle.js` and runs the
 * bundle under the shim (runner.mjs), writing k6's --out json there (gzipped for .gz).
 * Iterations: RATE × DURATION when both are given (arrival rate over the test), else what
 * the scenario plans (runner.mjs K6SHIM_ITERATIONS=plan).
 * It is the shim, not k6: it proves nothing about k6 itself.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const argv = process.argv.slice(2);
if (argv[0] !== 'run') {
  console.error('k6-cli shim: only `run` is supported');
  process.exit(2);
}
const env = {};
let out = null;
let bundle = null;
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  if (a === '-q' || a === '--quiet') continue;
  if (a === '-e' || a === '--env') {
    const [k, ...v] = argv[++i].split('=');
    env[k] = v.join('=');
  } else if (a === '--out' || a === '-o') {
    const v = argv[++i];
    if (!v.startsWith('json=')) throw new Error(`k6-cli shim: only --out json=FILE, got ${v}`);
    out = v.slice('json='.length);
  } else if (a.startsWith('-')) throw new Error(`k6-cli shim: unsupported flag ${a}`);
  else bundle = a;
}
const seconds = (d) => {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(d ?? '');
  return m ? Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]] : null;
};
const dur = seconds(env.DURATION);
const iterations = env.RATE && dur ? Math.max(1, Math.round(Number(env.RATE) * dur)) : 'plan';
const plain = out && out.endsWith('.gz') ? `${out}.tmp-plain` : out;
const r = spawnSync(process.execPath, [join(import.meta.dirname, 'runner.mjs'), bundle], {
  stdio: 'inherit',
  env: { PATH: process.env.PATH ?? '', K6SHIM_ENV: JSON.stringify(env), K6SHIM_ITERATIONS: String(iterations), K6SHIM_SLEEP_SCALE: env.RATE ? '0.05' : '1', ...(plain ? { K6SHIM_JSON_OUT: plain } : {}) },
});
if (plain && plain !== out) {
  writeFileSync(out, gzipSync(readFileSync(plain)));
  rmSync(plain, { force: true });
}
process.exit(r.status ?? 1);
