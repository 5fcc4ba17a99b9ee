/**
 * One JavaScript runtime of the k6 stand-in, in a worker thread of its own as each k6 VU, setup(),
 * teardown() and handleSummary() has a runtime of its own: it evaluates the bundle's init context
 * (its own module instances, so module-level state is this runtime's alone), then runs what the
 * runner asks, one call at a time, and reports back. The `init` role only reads `options` and
 * the exports (k6 evaluates the script once for that too).
 */
import { workerData, parentPort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { rt, post, flush, emitSample, timestamp, counters, stopRequested, Interrupted } from './state.mjs';
import { seededRandom } from './k6.mjs';

const d = workerData;
const show = (a) => {
  if (typeof a === 'string') return a;
  if (a instanceof Error) return String(a.stack ?? a);
  try {
    return JSON.stringify(a) ?? String(a);
  } catch {
    return String(a);
  }
};
const text = (args) => args.map(show).join(' ');
const describe = (e) => String(e && e.stack ? e.stack : e);

globalThis.__ENV = { ...d.env };
globalThis.__VU = d.vuIdInInstance;
globalThis.__ITER = 0;
globalThis.open = (p) => {
  if (rt.stage !== 'init') throw new Error('The "open()" function is only available in the init stage (i.e. the global scope)');
  return readFileSync(resolve(d.bundleDir, p), 'utf8');
};
for (const level of ['log', 'info', 'warn', 'error', 'debug']) console[level] = (...args) => post({ type: 'log', level, text: text(args) });
if (d.seed !== undefined) Math.random = seededRandom(d.seed);

let mod = null;
try {
  mod = await import(d.bundleUrl);
} catch (e) {
  post({ type: 'init-error', error: e && e.message ? e.message : String(e) });
}

if (mod && d.role === 'init') {
  post({ type: 'options', options: JSON.parse(JSON.stringify(mod.options ?? null)), exports: Object.keys(mod).sort() });
} else if (mod) {
  let dataText;
  let data;
  let envOf = 'null';
  parentPort.on('message', (m) => {
    if (m.type === 'run') run(m).catch((e) => post({ type: 'done', interrupted: false, aborted: null, error: describe(e), value: undefined }));
  });
  post({ type: 'ready' });

  /** One call: setup(), an iteration of a scenario's exec function, teardown(data) or handleSummary(data). */
  async function run(m) {
    rt.startedAt = m.startedAt;
    rt.stage = m.stage;
    rt.groupPath = m.stage === 'setup' ? '::setup' : m.stage === 'teardown' ? '::teardown' : '';
    rt.bytesSent = 0;
    rt.bytesReceived = 0;
    let arg;
    if (m.stage === 'default') {
      rt.scenario = m.scenario;
      rt.scenarioTags = m.scenarioTags ?? {};
      rt.iterationInScenario = m.iterationInScenario;
      globalThis.__ITER = rt.iteration;
      // A scenario's `env` joins __ENV while the VU runs that scenario.
      const env = JSON.stringify(m.env ?? null);
      if (env !== envOf) {
        envOf = env;
        globalThis.__ENV = { ...d.env, ...(m.env ?? {}) };
      }
      // A VU parses the setup data once and keeps its copy (k6 hands each VU a JSON copy).
      if (m.data !== dataText) {
        dataText = m.data;
        data = m.data === undefined ? undefined : JSON.parse(m.data);
      }
      arg = data;
    } else if (m.stage !== 'setup') arg = m.data === undefined ? undefined : JSON.parse(m.data);
    const fn = mod[m.fn];
    const started = performance.now();
    let error = null;
    let value;
    try {
      if (typeof fn !== 'function') throw new Error(`${m.fn} is not an exported function`);
      value = fn(arg);
      if (value && typeof value.then === 'function') value = await value;
    } catch (e) {
      error = e;
    }
    const ended = performance.now();
    const interrupted = error instanceof Interrupted || rt.aborted !== null || stopRequested();
    if (m.stage !== 'summary') {
      const time = timestamp();
      emitSample('data_sent', 'counter', 'data', rt.bytesSent, {}, { time });
      emitSample('data_received', 'counter', 'data', rt.bytesReceived, {}, { time });
      // A full iteration of a scenario: iteration_duration and one `iterations` point (k6 writes
      // none for an interrupted iteration, nor for one that threw).
      if (m.stage === 'default' && !interrupted && !error) {
        emitSample('iteration_duration', 'trend', 'time', ended - started, {}, { time });
        emitSample('iterations', 'counter', 'default', 1, {}, { time });
      }
    }
    if (m.stage === 'default') {
      // k6 counts an iteration that threw as completed, one cut short as interrupted.
      Atomics.add(counters, interrupted ? 1 : 0, 1);
      rt.iteration++;
    }
    flush();
    let out;
    if (!error && (m.stage === 'setup' || m.stage === 'summary')) out = value === undefined ? undefined : JSON.stringify(value);
    post({ type: 'done', interrupted, aborted: rt.aborted, error: error && !interrupted ? describe(error) : null, value: out });
  }
}
