#!/usr/bin/env node
/**
 * Runs a bundled k6 script (dist/k6/<name>.js) in Node with the shim modules of this
 * folder in place of k6's built-ins: the init context, `options`, then setup(), N
 * iterations of each scenario's exec function (one VU), teardown(). Writes what the
 * script did as JSON to K6SHIM_OUT.
 *
 *   K6SHIM_ENV='{"TARGET":"…","KEYS":"…"}' K6SHIM_OUT=out.json node runner.mjs bundle.js
 *
 * K6SHIM_MODE=options stops after the init context. K6SHIM_ITERATIONS (default 1; `plan`:
 * what an iteration-based scenario plans, vus × iterations or iterations, and 1 for a
 * time-based one), K6SHIM_INTERRUPT_AFTER (stop after that many iterations, as a Ctrl-C
 * would, and still run teardown), K6SHIM_CONNECT_MS (see http.mjs),
 * K6SHIM_SCENARIO (default: all), K6SHIM_SLEEP_SCALE (default 1), K6SHIM_SEED (an integer:
 * Math.random becomes a seeded generator, as k6's `randomSeed()` makes it, so a test's mix of
 * operations is the same every run).
 * This is a test double of k6's API: it does not schedule executors, pace arrival
 * rates, evaluate thresholds or run VUs in parallel. exec.instance counts iterations and keeps
 * the test-run clock; when a time-based scenario has run its iterations, the clock is moved
 * on by the scenario's duration (the iterations stand for the whole duration), so teardown's
 * end marker sees the plan ran; an aborted or interrupted run is not moved on.
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

/** Seconds of a k6 duration string (30s, 5m, 1h30m, 500ms). */
function seconds(d) {
  let total = 0;
  for (const m of String(d ?? '').matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2]];
  return total;
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
  state.testOptions = JSON.parse(JSON.stringify(mod.options ?? {}));
  result.exports = Object.keys(mod).sort();
  if (process.env.K6SHIM_MODE === 'options') {
    result.ok = true;
    return finish(0);
  }
  globalThis.__VU = 1;
  state.instance.startedAt = Date.now();
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
  const planned = (sc) => (sc.executor === 'per-vu-iterations' ? (sc.vus ?? 1) * (sc.iterations ?? 1) : sc.executor === 'shared-iterations' ? (sc.iterations ?? 1) : 1);
  const interruptAfter = process.env.K6SHIM_INTERRUPT_AFTER ? Number(process.env.K6SHIM_INTERRUPT_AFTER) : Infinity;
  let iterationInTest = 0;
  let stopped = false;
  for (const [name, sc] of scenarios) {
    if (stopped) break;
    const n = process.env.K6SHIM_ITERATIONS === 'plan' ? planned(sc) : Number(process.env.K6SHIM_ITERATIONS || '1');
    if (only && name !== only) continue;
    const fn = mod[sc.exec || 'default'];
    if (typeof fn !== 'function') {
      result.fatal = `scenario ${name}: exec ${sc.exec || 'default'} is not an exported function`;
      return finish(1);
    }
    state.scenario.name = name;
    state.scenario.executor = sc.executor;
    let ranAll = true;
    for (let i = 0; i < n; i++) {
      if (iterationInTest >= interruptAfter) {
        // A graceful interrupt: no further iteration; teardown still runs.
        stopped = true;
        ranAll = false;
        break;
      }
      Object.assign(state.scenario, { iterationInTest, iterationInInstance: iterationInTest });
      Object.assign(state.vu, { iterationInScenario: i, iterationInInstance: iterationInTest });
      globalThis.__ITER = i;
      try {
        fn(data);
        state.instance.iterationsCompleted++;
      } catch (e) {
        // k6 logs an exception, counts the iteration interrupted and goes on; abort() ends the test.
        state.instance.iterationsInterrupted++;
        result.iterationErrors.push(String(e && e.stack ? e.stack : e));
        if (e instanceof TestAborted) {
          stopped = true;
          ranAll = false;
          break;
        }
      }
      iterationInTest++;
      result.iterations++;
    }
    // The iterations stand for the scenario's whole duration: the clock moves on by it.
    if (ranAll) state.instance.advancedMs += seconds(sc.startTime) * 1000 + (sc.duration ? seconds(sc.duration) * 1000 : (sc.stages ?? []).reduce((s, st) => s + seconds(st.duration) * 1000, 0));
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
