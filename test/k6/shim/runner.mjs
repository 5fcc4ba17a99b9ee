#!/usr/bin/env node
/**
 * Runs a bundled k6 script (dist/k6/<name>.js) in Node with the shim modules of this
 * folder in place of k6's built-ins: the init context, `options`, then setup(), N
 * iterations of each scenario's exec function (one VU), teardown(). Writes what the
 * script did as JSON to K6SHIM_OUT.
 *
 *   K6SHIM_ENV='{"TARGET":"…","KEYS":"…"}' K6SHIM_OUT=out.json node runner.mjs bundle.js
 *
 * K6SHIM_MODE=options stops after the init context. K6SHIM_ITERATIONS (default 1),
 * K6SHIM_SCENARIO (default: all), K6SHIM_SLEEP_SCALE (default 1), K6SHIM_SEED (an integer:
 * Math.random becomes a seeded generator, as k6's `randomSeed()` makes it, so a test's mix of
 * operations is the same every run).
 * This is a test double of k6's API: it does not schedule executors, pace arrival
 * rates, evaluate thresholds or run VUs in parallel.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { state, flushJson } from './state.mjs';
import { TestAborted } from './execution.mjs';

const SHIMS = {
  k6: 'k6.mjs',
  'k6/http': 'http.mjs',
  'k6/metrics': 'metrics.mjs',
  'k6/crypto': 'crypto.mjs',
  'k6/execution': 'execution.mjs',
};

const out = process.env.K6SHIM_OUT;
const result = { ok: false, fatal: null, options: null, exports: [], setupData: null, iterations: 0, iterationErrors: [] };

let scratch = null;
function finish(code) {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  Object.assign(result, { requests: state.requests, checks: state.checks, metrics: state.metrics, logs: state.logs, sleptMs: state.sleptMs });
  if (out) writeFileSync(out, JSON.stringify(result));
  flushJson();
  process.exit(code);
}

function captureConsole() {
  for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
    const orig = console[level].bind(console);
    console[level] = (...args) => {
      const text = args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      state.logs.push({ level, text });
      orig(`[k6 ${level}] ${text}`);
    };
  }
}

function rewriteImports(code) {
  return code.replace(/(\bfrom\s*|\bimport\s*)(["'])(k6(?:\/[^"']*)?)\2/g, (m, kw, q, spec) => {
    const shim = SHIMS[spec];
    if (!shim) throw new Error(`k6 shim: no shim for module "${spec}"`);
    return `${kw}${q}${pathToFileURL(join(import.meta.dirname, shim)).href}${q}`;
  });
}

/** A small seeded generator of floats in [0, 1). */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const bundle = resolve(process.argv[2]);
  globalThis.__ENV = JSON.parse(process.env.K6SHIM_ENV || '{}');
  if (process.env.K6SHIM_SEED) Math.random = mulberry32(Number(process.env.K6SHIM_SEED));
  globalThis.__VU = 0;
  globalThis.__ITER = 0;
  globalThis.open = (p) => readFileSync(p, 'utf8');
  captureConsole();
  const dir = mkdtempSync(join(tmpdir(), 'k6shim-'));
  scratch = dir;
  const file = join(dir, 'script.mjs');
  writeFileSync(file, rewriteImports(readFileSync(bundle, 'utf8')));
  let mod;
  try {
    mod = await import(pathToFileURL(file).href);
  } catch (e) {
    result.fatal = `init: ${e && e.message ? e.message : e}`;
    return finish(1);
  }
  result.options = JSON.parse(JSON.stringify(mod.options ?? null));
  result.exports = Object.keys(mod).sort();
  if (process.env.K6SHIM_MODE === 'options') {
    result.ok = true;
    return finish(0);
  }
  globalThis.__VU = 1;
  let data;
  try {
    data = typeof mod.setup === 'function' ? mod.setup() : undefined;
    // k6 hands setup data to VUs as JSON.
    data = data === undefined ? undefined : JSON.parse(JSON.stringify(data));
    result.setupData = data ?? null;
  } catch (e) {
    result.fatal = `setup: ${e && e.message ? e.message : e}`;
    return finish(1);
  }
  const scenarios = Object.entries((mod.options && mod.options.scenarios) || { default: { executor: 'shared-iterations' } });
  const only = process.env.K6SHIM_SCENARIO;
  const n = Number(process.env.K6SHIM_ITERATIONS || '1');
  let iterationInTest = 0;
  for (const [name, sc] of scenarios) {
    if (only && name !== only) continue;
    const fn = mod[sc.exec || 'default'];
    if (typeof fn !== 'function') {
      result.fatal = `scenario ${name}: exec ${sc.exec || 'default'} is not an exported function`;
      return finish(1);
    }
    state.scenario.name = name;
    state.scenario.executor = sc.executor;
    for (let i = 0; i < n; i++) {
      Object.assign(state.scenario, { iterationInTest, iterationInInstance: iterationInTest });
      Object.assign(state.vu, { iterationInScenario: i, iterationInInstance: iterationInTest });
      globalThis.__ITER = i;
      try {
        fn(data);
      } catch (e) {
        // k6 logs an exception and goes on with the next iteration; abort() ends the test.
        result.iterationErrors.push(String(e && e.stack ? e.stack : e));
        if (e instanceof TestAborted) break;
      }
      iterationInTest++;
      result.iterations++;
    }
  }
  try {
    if (typeof mod.teardown === 'function') mod.teardown(data);
  } catch (e) {
    result.iterationErrors.push(`teardown: ${e}`);
  }
  result.ok = true;
  finish(0);
}

main().catch((e) => {
  result.fatal = String(e && e.stack ? e.stack : e);
  finish(1);
});
