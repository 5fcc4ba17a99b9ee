#!/usr/bin/env node
/**
 * A stand-in for `k6 run` (v1.3) in Node: runs a bundled k6 script (dist/k6/<name>.js) with the
 * shim modules of this folder in place of k6's built-ins (k6, k6/http, k6/metrics, k6/crypto,
 * k6/execution), and behaves as real k6 does where paystorm depends on it
 * (../../shared/samples/k6/README.md is the ground truth):
 *
 * - Runtimes: the options runtime, setup(), every VU, teardown() and handleSummary() each run in
 *   a worker thread of their own that evaluates the bundle's init context afresh, so module
 *   state changed in default() is not seen by teardown(); setup()'s return value reaches each VU
 *   and teardown() as a JSON copy. VUs run in parallel.
 * - k6/execution answers and throws where k6 does (execution.mjs): exec.instance throws in
 *   teardown() and handleSummary(), exec.scenario outside default(); exec.test.options is the
 *   consolidated options (scenarios, executionSegment) everywhere.
 * - Time: scenarios run on the wall clock with k6's executors (executors.mjs): a time-based
 *   scenario runs for its duration, arrival rates are paced; iteration-based ones run their
 *   iterations. An execution segment gives the instance its share (segments.mjs). Options are
 *   consolidated as k6 does (options.mjs): K6SHIM_ITERATIONS=N is `--iterations N` (one
 *   shared-iterations `default` scenario replacing the script's), K6SHIM_VUS `--vus`,
 *   K6SHIM_DURATION `--duration`.
 * - Cut short: SIGINT (or K6SHIM_INTERRUPT_AFTER=N finished iterations, as a Ctrl-C then)
 *   interrupts running iterations, exec.test.abort() likewise; teardown() and handleSummary()
 *   run all the same. A second SIGINT exits at once.
 * - Exit codes as k6: 0, 99 thresholds crossed (all thresholds are evaluated at the end;
 *   abortOnFail ones every 2 s), 100/101 setup/teardown timeout, 104 invalid options, 105
 *   interrupted, 107 script exception (init, setup, teardown), 108 aborted by the script, 110
 *   exec.test.fail().
 * - Output (output.mjs): --out json Metric and Point lines as k6 writes them (K6SHIM_JSON_OUT,
 *   gzipped for .gz); handleSummary(data) gets k6's summary data and its returned outputs are
 *   written (stdout, stderr, files).
 *
 * What it does not do: it is not k6 (Node's JavaScript, not Sobek; an interrupt or abort is an
 * exception the script could catch, so every k6 call made after it throws again and the
 * iteration counts as interrupted whatever the script does; a runtime that does not stop within
 * 2 s is terminated). No default end-of-test text summary, no cookies, no TLS, no
 * gracefulRampDown, no externally-controlled executor, no outputs but json. HTTP timings and
 * byte counts are measured around Node's fetch, not on the wire.
 *
 *   K6SHIM_ENV='{"TARGET":"…","KEYS":"…"}' K6SHIM_OUT=out.json node runner.mjs bundle.js
 *
 * Also: K6SHIM_MODE=options (only the init context: options and exports), K6SHIM_EXECUTION_SEGMENT,
 * K6SHIM_EXECUTION_SEGMENT_SEQUENCE, K6SHIM_CONNECT_MS (see http.mjs), K6SHIM_NO_REUSE=1,
 * K6SHIM_SLEEP_SCALE (sleep() waits that share of its time; tests only), K6SHIM_SEED (every
 * runtime's Math.random seeded, as k6's randomSeed does per VU). K6SHIM_OUT gets what the script
 * did (requests, checks, custom metric values, logs) for assertions.
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { Worker, MessageChannel } from 'node:worker_threads';
import { consolidate, deepFreeze, durationMs } from './options.mjs';
import { ExecutionTuple, SegmentedIndex } from './segments.mjs';
import { Metrics } from './output.mjs';
import { fetchAll } from './fetcher.mjs';
import { ScenarioRun, plannedVUs, runScenario } from './executors.mjs';
import { timestamp } from './state.mjs';

const SHIMS = {
  k6: 'k6.mjs',
  'k6/http': 'http.mjs',
  'k6/metrics': 'metrics.mjs',
  'k6/crypto': 'crypto.mjs',
  'k6/execution': 'execution.mjs',
};

/** k6's exit codes (errext/exitcodes). */
export const EXIT = { ok: 0, thresholds: 99, setupTimeout: 100, teardownTimeout: 101, invalidConfig: 104, interrupted: 105, scriptException: 107, aborted: 108, markedFailed: 110 };

/** How long a runtime told to stop may take before it is terminated. */
const KILL_AFTER_MS = 2000;

function rewriteImports(code) {
  return code.replace(/(\bfrom\s*|\bimport\s*)(["'])(k6(?:\/[^"']*)?)\2/g, (m, kw, q, spec) => {
    const shim = SHIMS[spec];
    if (!shim) throw new Error(`k6 stand-in: no shim for module "${spec}"`);
    return `${kw}${q}${pathToFileURL(join(import.meta.dirname, shim)).href}${q}`;
  });
}

const describe = (e) => String(e && e.message ? e.message : e);

/** One JavaScript runtime (a worker thread running vu-worker.mjs). */
class Runtime {
  constructor(test, role, idInInstance = 0, idInTest = 0) {
    this.test = test;
    this.role = role;
    this.idInInstance = idInInstance;
    this.idInTest = idInTest;
    this.ctl = new Int32Array(new SharedArrayBuffer(8));
    this.scenarioIters = new Map();
    this.pending = null;
    this.stage = null;
    this.fetchAbort = null;
    this.killTimer = null;
    this.dead = false;
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.ready = new Promise((res, rej) => {
      this.onReady = res;
      this.onInitError = rej;
    });
    this.ready.catch(() => {});
    this.worker = new Worker(new URL('./vu-worker.mjs', import.meta.url), {
      workerData: {
        role,
        bundleUrl: test.bundleUrl,
        bundleDir: test.bundleDir,
        env: test.cfg.env,
        vuIdInInstance: idInInstance,
        vuIdInTest: idInTest,
        ctl: this.ctl.buffer,
        counters: test.counters.buffer,
        reply: port2,
        sleepScale: test.cfg.sleepScale,
        connectMs: test.cfg.connectMs,
        noReuse: test.cfg.noReuse,
        seed: test.cfg.seed,
        testOptions: test.testOptions ?? {},
      },
      transferList: [port2],
    });
    this.worker.on('message', (m) => this.onMessage(m));
    this.worker.on('error', (e) => this.onDeath(e));
    this.worker.on('exit', () => this.onDeath(null));
  }

  onMessage(m) {
    const t = this.test;
    switch (m.type) {
      case 'samples':
        t.ingest(m.samples);
        t.sleptMs += m.sleptMs;
        break;
      case 'request':
        t.requests.push(m.request);
        break;
      case 'log':
        t.log(m.level, m.text);
        break;
      case 'fetch':
        this.fetch(m);
        break;
      case 'abort':
        t.stop('abort', m.reason);
        break;
      case 'fail':
        t.markedFailed = m.reason;
        break;
      case 'ready':
        this.onReady(null);
        break;
      case 'options':
        this.onReady(m);
        break;
      case 'init-error':
        this.onInitError(new Error(m.error));
        break;
      case 'done':
        this.settle(m);
        break;
    }
  }

  fetch(m) {
    const ac = new AbortController();
    this.fetchAbort = ac;
    fetchAll(m.requests, ac.signal).then((results) => {
      if (this.dead) return;
      this.port.postMessage({ id: m.id, results });
      Atomics.store(this.ctl, 0, 1);
      Atomics.notify(this.ctl, 0);
    });
  }

  /** Runs one call (msg: {stage, fn, data, …}); resolves with the runtime's report. */
  run(msg) {
    if (this.dead) return Promise.resolve({ interrupted: true, aborted: null, error: 'the runtime is gone', value: undefined });
    Atomics.store(this.ctl, 1, 0);
    this.stage = msg.stage;
    return new Promise((res) => {
      this.pending = res;
      this.worker.postMessage({ type: 'run', startedAt: this.test.startedAt, ...msg });
    });
  }

  settle(m) {
    clearTimeout(this.killTimer);
    this.killTimer = null;
    const res = this.pending;
    this.pending = null;
    if (res) res(m);
  }

  get busy() {
    return this.pending !== null;
  }

  /** Interrupts the running call, as k6 interrupts a VU's runtime; terminates it if it does not stop. */
  interrupt() {
    if (!this.pending || this.dead) return;
    Atomics.store(this.ctl, 1, 1);
    Atomics.store(this.ctl, 0, 1);
    Atomics.notify(this.ctl, 0);
    if (this.fetchAbort) this.fetchAbort.abort();
    if (!this.killTimer) this.killTimer = setTimeout(() => this.kill('did not stop when interrupted'), KILL_AFTER_MS);
  }

  kill(why) {
    if (this.dead) return;
    this.test.log('warn', `k6 stand-in: runtime ${this.role} ${this.idInInstance} ${why}; terminated`);
    if (this.pending && this.stage === 'default') Atomics.add(this.test.counters, 1, 1);
    this.dead = true;
    this.worker.terminate();
    this.settle({ interrupted: true, aborted: null, error: null, value: undefined, killed: true });
  }

  onDeath(e) {
    if (this.dead) return;
    this.dead = true;
    this.onInitError(e ?? new Error('the runtime exited'));
    if (this.pending) {
      if (this.stage === 'default') Atomics.add(this.test.counters, 1, 1);
      this.settle({ interrupted: true, aborted: null, error: e ? String(e.stack ?? e) : 'the runtime exited', value: undefined });
    }
  }

  terminate() {
    this.dead = true;
    clearTimeout(this.killTimer);
    return this.worker.terminate();
  }
}

class Test {
  constructor(cfg) {
    this.cfg = cfg;
    this.result = { ok: false, fatal: null, options: null, exports: [], setupData: null, iterations: 0, iterationErrors: [], exitCode: 0 };
    /** [0] iterations completed, [1] interrupted, [2] VUs active, [3] VUs initialized (exec.instance). */
    this.counters = new Int32Array(new SharedArrayBuffer(16));
    this.requests = [];
    this.logs = [];
    this.sleptMs = 0;
    this.runtimes = [];
    this.idle = [];
    this.nextVU = 0;
    this.metrics = null;
    this.startedAt = 0;
    this.stopped = null;
    this.stopReason = '';
    this.sleepers = new Set();
    this.finished = 0;
    this.markedFailed = null;
    this.setupText = undefined;
  }

  log(level, text) {
    this.logs.push({ level, text });
    const line = `[k6 ${level}] ${text}`;
    if (level === 'warn' || level === 'error') console.error(line);
    else console.log(line);
  }

  ingest(samples) {
    if (this.metrics) for (const s of samples) this.metrics.add(s);
  }

  /** A sample the engine itself emits (vus, vus_max, dropped_iterations). */
  emitMain(name, type, contains, value, tags) {
    this.ingest([{ name, type, contains, value, tags, time: timestamp() }]);
  }

  spawn(role, id = 0, idInTest = 0) {
    const r = new Runtime(this, role, id, idInTest);
    this.runtimes.push(r);
    return r;
  }

  /** A new VU: its id in this instance, and in the test (striped over the execution segment). */
  async newVU() {
    const id = ++this.nextVU;
    const [, idInTest] = this.vuIds.next();
    const vu = this.spawn('vu', id, idInTest);
    await vu.ready;
    Atomics.add(this.counters, 3, 1);
    return vu;
  }

  activate(n) {
    if (n) Atomics.add(this.counters, 2, n);
  }

  /** `n` initialized VUs for a scenario (more are initialized if the pool is short). */
  async acquire(n, { activate = true } = {}) {
    const got = this.idle.splice(0, n);
    while (got.length < n) got.push(await this.newVU());
    if (activate) this.activate(n);
    return got;
  }

  release(vus, { deactivate = true } = {}) {
    if (deactivate) this.activate(-vus.length);
    this.idle.push(...vus.filter((v) => !v.dead));
  }

  /** A VU initialized during the run (arrival-rate executors beyond preAllocatedVUs), activated. */
  async unplannedVU() {
    if (this.stopped) return null;
    try {
      const vu = await this.newVU();
      this.activate(1);
      return vu;
    } catch (e) {
      this.log('error', `Error while allocating unplanned VU: ${describe(e)}`);
      return null;
    }
  }

  sleepUntil(at) {
    const wait = at - Date.now();
    if (wait <= 0 || this.stopped) return Promise.resolve();
    return new Promise((res) => {
      const s = { res, timer: setTimeout(() => (this.sleepers.delete(s), res()), wait) };
      this.sleepers.add(s);
    });
  }

  /** One iteration of scenario `sc` on `vu`. */
  async iterate(vu, sc) {
    const [scaled, unscaled] = sc.iterIndex.next();
    const inScenario = vu.scenarioIters.get(sc.name) ?? 0;
    vu.scenarioIters.set(sc.name, inScenario + 1);
    sc.running.add(vu);
    const done = await vu.run({
      stage: 'default',
      fn: sc.exec,
      data: this.setupText,
      scenario: { name: sc.name, executor: sc.cfg.executor, startTime: sc.startTime, iterationInInstance: scaled - 1, iterationInTest: unscaled - 1, durationMs: sc.progressMs, progress: sc.progress() },
      scenarioTags: sc.cfg.tags ?? {},
      env: sc.cfg.env ?? undefined,
      iterationInScenario: inScenario,
    });
    sc.running.delete(vu);
    this.result.iterations++;
    if (done.error) {
      this.result.iterationErrors.push(done.error);
      this.log('error', done.error);
    }
    if (done.aborted) this.result.iterationErrors.push(done.aborted);
    this.finished++;
    if (this.cfg.interruptAfter !== undefined && this.finished >= this.cfg.interruptAfter) this.stop('signal', `K6SHIM_INTERRUPT_AFTER=${this.cfg.interruptAfter}`);
    return done;
  }

  /** Ends the test early: `signal` (Ctrl-C), `abort` (exec.test.abort), `threshold` (abortOnFail). */
  stop(kind, reason) {
    if (this.stopped) return;
    this.stopped = kind;
    this.stopReason = reason;
    if (kind === 'signal') this.log('warn', `test run was aborted because k6 received a 'interrupt' signal (${reason})`);
    else if (kind === 'abort') this.log('error', reason);
    else this.log('error', `thresholds on metrics '${reason}' were crossed; at least one has abortOnFail enabled, stopping test prematurely`);
    for (const r of this.runtimes) if (r.busy && r.stage === 'default') r.interrupt();
    for (const s of this.sleepers) {
      clearTimeout(s.timer);
      s.res();
    }
    this.sleepers.clear();
  }

  /** Runs setup, teardown or handleSummary in a runtime of its own; null if it timed out. */
  async runStage(stage, fn, data, timeoutMs, runtime = null) {
    const rt = runtime ?? this.spawn(stage);
    await rt.ready;
    let timer;
    const timedOut = new Promise((res) => {
      timer = setTimeout(() => res(null), timeoutMs);
    });
    const done = await Promise.race([rt.run({ stage, fn, data }), timedOut]);
    clearTimeout(timer);
    rt.terminate();
    return done;
  }

  /** How many VUs the scenarios need at once at most (k6 initializes them before setup). */
  plannedPool(scenarios) {
    const edges = [];
    for (const [, cfg] of scenarios) {
      const { vus, runMs } = plannedVUs(cfg, this.tuple);
      const start = cfg.startTime ? durationMs(cfg.startTime) : 0;
      edges.push([start, vus], [start + runMs, -vus]);
    }
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let max = 0;
    for (const [, d] of edges) max = Math.max(max, (now += d));
    return max;
  }

  async run() {
    const cfg = this.cfg;
    const bundle = resolve(cfg.bundle);
    this.bundleDir = dirname(bundle);
    this.scratch = mkdtempSync(join(tmpdir(), 'k6shim-'));
    const file = join(this.scratch, 'script.mjs');
    writeFileSync(file, rewriteImports(readFileSync(bundle, 'utf8')));
    this.bundleUrl = pathToFileURL(file).href;

    // The init context, once, for the options (k6 does the same before it makes VUs).
    let init;
    try {
      init = await this.spawn('init').ready;
    } catch (e) {
      this.result.fatal = `init: ${describe(e)}`;
      return EXIT.scriptException;
    }
    this.result.options = init.options;
    this.result.exports = init.exports;
    if (cfg.mode === 'options') {
      this.result.ok = true;
      return EXIT.ok;
    }
    let consolidated;
    try {
      consolidated = consolidate(init.options, cfg);
      this.tuple = new ExecutionTuple(consolidated.executionSegment, consolidated.executionSegmentSequence);
      consolidated.executionSegment = this.tuple.segmentString();
      if (consolidated.executionSegmentSequence) consolidated.executionSegmentSequence = this.tuple.sequenceString();
      for (const [name, sc] of Object.entries(consolidated.scenarios)) {
        if (!init.exports.includes(sc.exec ?? 'default')) throw new Error(`scenario ${name}: exec ${sc.exec ?? 'default'} is not an exported function`);
      }
      this.metrics = new Metrics({ thresholds: consolidated.thresholds, jsonOut: cfg.jsonOut, summaryTrendStats: consolidated.summaryTrendStats, systemTags: consolidated.systemTags });
    } catch (e) {
      this.result.fatal = `options: ${describe(e)}`;
      return EXIT.invalidConfig;
    }
    this.testOptions = deepFreeze(consolidated);
    this.vuIds = new SegmentedIndex(this.tuple);
    const scenarios = Object.entries(consolidated.scenarios);
    const has = (name) => init.exports.includes(name);

    // The VUs the scenarios plan, and setup()'s runtime, are initialized before the test run starts.
    const pool = this.plannedPool(scenarios);
    const setupRuntime = has('setup') ? this.spawn('setup') : null;
    try {
      this.idle = await Promise.all(Array.from({ length: pool }, () => this.newVU()));
      if (setupRuntime) await setupRuntime.ready;
    } catch (e) {
      this.result.fatal = `init: ${describe(e)}`;
      return EXIT.scriptException;
    }

    this.startedAt = performance.timeOrigin + performance.now();
    const ticker = this.startTicker();
    try {
      let code = null;
      if (has('setup') && !this.stopped) {
        const done = await this.runStage('setup', 'setup', undefined, durationMs(consolidated.setupTimeout ?? '60s'), setupRuntime);
        if (!done) {
          this.result.fatal = `setup: setup() execution timed out after ${durationMs(consolidated.setupTimeout ?? '60s') / 1000} seconds`;
          return EXIT.setupTimeout;
        }
        if (done.aborted) {
          this.result.fatal = `setup: ${done.aborted}`;
          return EXIT.aborted;
        }
        if (done.error) {
          this.result.fatal = `setup: ${done.error.split('\n')[0].replace(/^Error: /, '')}`;
          this.log('error', done.error);
          return EXIT.scriptException;
        }
        this.setupText = done.value;
        this.result.setupData = done.value === undefined ? null : JSON.parse(done.value);
      }
      if (!this.stopped) {
        const begun = Date.now();
        await Promise.all(
          scenarios.map(async ([name, sc]) => {
            await this.sleepUntil(begun + (sc.startTime ? durationMs(sc.startTime) : 0));
            if (!this.stopped) await runScenario(new ScenarioRun(this, name, sc));
          }),
        );
      }
      clearInterval(ticker);
      if (has('teardown')) {
        const timeout = durationMs(consolidated.teardownTimeout ?? '60s');
        const done = await this.runStage('teardown', 'teardown', this.setupText, timeout);
        if (!done) {
          this.result.iterationErrors.push(`teardown: teardown() execution timed out after ${timeout / 1000} seconds`);
          code = EXIT.teardownTimeout;
        } else if (done.error) {
          this.result.iterationErrors.push(`teardown: ${done.error}`);
          this.log('error', done.error);
          code = EXIT.scriptException;
        }
      }
      return await this.finish(code);
    } finally {
      clearInterval(ticker);
    }
  }

  /** vus and vus_max every second, as k6's engine; abortOnFail thresholds every 2 s. */
  startTicker() {
    let tick = 0;
    return setInterval(() => {
      this.emitMain('vus', 'gauge', 'default', Atomics.load(this.counters, 2), {});
      this.emitMain('vus_max', 'gauge', 'default', Atomics.load(this.counters, 3), {});
      if (++tick % 2 === 0 && !this.stopped) {
        const runMs = performance.timeOrigin + performance.now() - this.startedAt;
        const failed = this.metrics.evaluate(runMs).filter((t) => !t.ok && t.abortOnFail && runMs >= t.delayMs);
        if (failed.length) this.stop('threshold', [...new Set(failed.map((t) => t.key))].join("', '"));
      }
    }, 1000);
  }

  /** Thresholds, the exit code, handleSummary. */
  async finish(code) {
    for (const r of this.runtimes) if (r.role === 'vu') r.terminate();
    const runMs = performance.timeOrigin + performance.now() - this.startedAt;
    const evaluated = this.metrics.evaluate(runMs);
    const crossed = [...new Set(evaluated.filter((t) => !t.ok).map((t) => t.key))];
    if (crossed.length) this.log('error', `thresholds on metrics '${crossed.join("', '")}' have been crossed`);
    const exit =
      this.stopped === 'signal'
        ? EXIT.interrupted
        : this.stopped === 'abort'
          ? EXIT.aborted
          : this.stopped === 'threshold'
            ? EXIT.thresholds
            : code !== null
              ? code
              : crossed.length
                ? EXIT.thresholds
                : this.markedFailed !== null
                  ? EXIT.markedFailed
                  : EXIT.ok;
    if (this.result.exports.includes('handleSummary')) {
      const data = this.metrics.summaryData({ runMs, setupData: this.result.setupData ?? undefined, evaluated });
      const done = await this.runStage('summary', 'handleSummary', JSON.stringify(data), 120_000);
      if (!done) this.log('error', 'handleSummary() execution timed out');
      else if (done.error) this.log('error', `handleSummary() failed: ${done.error}`);
      else if (done.value !== undefined) this.writeSummaryOutputs(JSON.parse(done.value));
    }
    this.result.ok = true;
    return exit;
  }

  writeSummaryOutputs(outputs) {
    for (const [where, content] of Object.entries(outputs ?? {})) {
      const text = typeof content === 'string' ? content : JSON.stringify(content);
      if (where === 'stdout') process.stdout.write(text);
      else if (where === 'stderr') process.stderr.write(text);
      else writeFileSync(resolve(where), text);
    }
  }

  async close(code) {
    this.result.exitCode = code;
    await Promise.all(this.runtimes.map((r) => r.terminate()));
    if (this.metrics) await this.metrics.close();
    Object.assign(this.result, { requests: this.requests, checks: this.metrics ? this.metrics.checkCounts() : {}, metrics: this.metrics ? this.metrics.custom : {}, logs: this.logs, sleptMs: this.sleptMs });
    if (this.cfg.resultOut) writeFileSync(this.cfg.resultOut, JSON.stringify(this.result));
    if (this.scratch) rmSync(this.scratch, { recursive: true, force: true });
  }
}

/**
 * Runs a test; resolves with k6's exit code. cfg: {bundle, env, mode, iterations, vus, duration,
 * executionSegment, executionSegmentSequence, interruptAfter, sleepScale, seed, connectMs,
 * noReuse, jsonOut, resultOut}.
 */
export async function runTest(cfg) {
  const given = Object.fromEntries(Object.entries(cfg).filter(([, v]) => v !== undefined));
  const test = new Test({ sleepScale: 1, connectMs: 30, noReuse: false, env: {}, ...given });
  const onSignal = () => {
    if (test.stopped) {
      console.error('[k6 error] Aborting k6 in response to a second signal');
      process.exit(EXIT.interrupted);
    }
    test.stop('signal', 'SIGINT');
  };
  process.on('SIGINT', onSignal);
  let code;
  try {
    code = await test.run();
  } catch (e) {
    test.result.fatal = String(e && e.stack ? e.stack : e);
    code = EXIT.scriptException;
  } finally {
    process.off('SIGINT', onSignal);
  }
  await test.close(code);
  return code;
}

function cfgFromEnv(bundle) {
  const e = process.env;
  const num = (v) => (v === undefined || v === '' || v === 'plan' ? undefined : Number(v));
  return {
    bundle,
    env: JSON.parse(e.K6SHIM_ENV || '{}'),
    mode: e.K6SHIM_MODE === 'options' ? 'options' : 'run',
    iterations: num(e.K6SHIM_ITERATIONS),
    vus: num(e.K6SHIM_VUS),
    duration: e.K6SHIM_DURATION || undefined,
    executionSegment: e.K6SHIM_EXECUTION_SEGMENT || undefined,
    executionSegmentSequence: e.K6SHIM_EXECUTION_SEGMENT_SEQUENCE || undefined,
    interruptAfter: num(e.K6SHIM_INTERRUPT_AFTER),
    sleepScale: Number(e.K6SHIM_SLEEP_SCALE ?? '1'),
    seed: num(e.K6SHIM_SEED),
    connectMs: Number(e.K6SHIM_CONNECT_MS ?? '30'),
    noReuse: e.K6SHIM_NO_REUSE === '1',
    jsonOut: e.K6SHIM_JSON_OUT || null,
    resultOut: e.K6SHIM_OUT || null,
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(await runTest(cfgFromEnv(process.argv[2])));
}
