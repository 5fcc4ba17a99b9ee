/**
 * One JavaScript runtime of the k6 stand-in (a worker thread: the options runtime, setup(), a VU,
 * teardown() or handleSummary()), as the shim modules see it: which stage runs, the VU and
 * scenario counters, tags, and the synchronous plumbing k6's API needs in Node. k6's calls
 * block (http, sleep): here the runtime posts the request to the runner's thread and waits on
 * Atomics.wait until the answer is there; the runner wakes it early to interrupt the iteration
 * (Ctrl-C, exec.test.abort(), the end of a scenario's gracefulStop). Samples go to the runner in
 * batches, which writes them as k6's --out json.
 */
import { workerData, parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { deepFreeze } from './options.mjs';

const data = workerData ?? {};

export const rt = {
  /** init (the options runtime), setup, vu, teardown or summary. */
  role: data.role ?? 'init',
  /** What runs now: init (the init context), setup, default, teardown or summary. */
  stage: 'init',
  vuIdInInstance: data.vuIdInInstance ?? 0,
  vuIdInTest: data.vuIdInTest ?? 0,
  /** This VU's iterations, over all scenarios (__ITER, exec.vu.iterationInInstance). */
  iteration: 0,
  iterationInScenario: 0,
  /** exec.scenario while default() runs: name, executor, startTime, iterationInInstance, iterationInTest, progress. */
  scenario: null,
  /** The scenario's own tags, on every sample of its iterations. */
  scenarioTags: {},
  groupPath: '',
  /** exec.vu.tags / exec.vu.metrics.tags, and exec.vu.metrics.metadata. */
  vuTags: {},
  vuMetadata: {},
  responseCallback: null,
  /** Connections this VU has open, by origin (a request without a free one "connects", see http.mjs). */
  connected: new Map(),
  sleepScale: data.sleepScale ?? 1,
  connectMs: data.connectMs ?? 30,
  noReuse: Boolean(data.noReuse),
  /** Bytes of this stage run (k6's data_sent / data_received). */
  bytesSent: 0,
  bytesReceived: 0,
  /** exec.test.abort()'s reason once called in this runtime. */
  aborted: null,
  /** exec.test.options: the consolidated options, frozen. */
  testOptions: deepFreeze(data.testOptions ?? {}),
  startedAt: data.startedAt ?? 0,
};

/** [0] wake-up word, [1] stop: the runner interrupts this runtime's iteration. */
const ctl = data.ctl ? new Int32Array(data.ctl) : new Int32Array(2);
/** Instance counters the runner shares: [0] iterations completed, [1] interrupted, [2] VUs active, [3] VUs initialized. */
export const counters = data.counters ? new Int32Array(data.counters) : new Int32Array(4);
const reply = data.reply ?? null;

/** Thrown into the script when the runner interrupts the iteration (k6 interrupts the VU's runtime). */
export class Interrupted extends Error {
  constructor(why) {
    super(why);
    this.name = 'InterruptError';
  }
}

export function post(msg) {
  if (parentPort) parentPort.postMessage(msg);
}

export const stopRequested = () => Atomics.load(ctl, 1) !== 0;

/** Every k6 call checks this: an interrupted or aborted iteration does not go on, even if the script catches the error. */
export function checkAlive() {
  if (rt.aborted !== null) throw new Interrupted(rt.aborted);
  if (stopRequested()) throw new Interrupted('the iteration was interrupted');
}

// ---------------------------------------------------------------- samples

let buffer = [];
let sleptMs = 0;

/** RFC 3339 with nanoseconds, trailing zeros cut, as Go writes a time.Time in JSON. */
export function timestamp() {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  const iso = new Date(whole).toISOString();
  const frac = (iso.slice(20, 23) + String(Math.floor((ms - whole) * 1e6)).padStart(6, '0')).replace(/0+$/, '');
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

/** k6's default `systemTags` (options.systemTags replaces the list; `vu`, `iter`, `ip`, `ocsp_status` are off unless named). */
export const DEFAULT_SYSTEM_TAGS = ['proto', 'subproto', 'status', 'method', 'url', 'name', 'group', 'check', 'error', 'error_code', 'tls_version', 'scenario', 'service', 'expected_response'];

/** Is this system tag on (options.systemTags, else k6's defaults)? A script's own tags are always kept. */
export function systemTagOn(name) {
  const list = Array.isArray(rt.testOptions?.systemTags) ? rt.testOptions.systemTags : DEFAULT_SYSTEM_TAGS;
  return list.includes(name);
}

/** The system tags of a sample, less those options.systemTags turns off. */
export function systemTags(tags) {
  const out = {};
  for (const [k, v] of Object.entries(tags)) if (systemTagOn(k)) out[k] = v;
  return out;
}

/** The tags every sample of this stage carries: group, the scenario's, the VU's (exec.vu.tags). */
export function baseTags() {
  const tags = systemTags({ group: rt.groupPath });
  if (rt.stage === 'default' && rt.scenario) {
    if (systemTagOn('scenario')) tags.scenario = rt.scenario.name;
    Object.assign(tags, rt.scenarioTags);
  }
  for (const [k, v] of Object.entries(rt.vuTags)) tags[k] = String(v);
  return tags;
}

/**
 * One sample: `custom` for metrics the script made (k6/metrics). `time` lets several samples of
 * one request share one timestamp, as k6 writes them.
 */
export function emitSample(name, type, contains, value, tags, { custom = false, time = timestamp(), withMetadata = true } = {}) {
  const all = baseTags();
  for (const [k, v] of Object.entries(tags ?? {})) all[k] = String(v);
  const s = { name, type, contains, value, tags: all, time };
  if (custom) s.custom = true;
  if (withMetadata && Object.keys(rt.vuMetadata).length) s.metadata = Object.fromEntries(Object.entries(rt.vuMetadata).map(([k, v]) => [k, String(v)]));
  buffer.push(s);
  if (buffer.length >= 500) flush();
}

/** Hands the buffered samples (and time slept) to the runner; before every blocking wait and at the end of a stage. */
export function flush() {
  if (buffer.length || sleptMs) post({ type: 'samples', samples: buffer, sleptMs });
  buffer = [];
  sleptMs = 0;
}

// ---------------------------------------------------------------- blocking calls

let nextId = 1;

function drain(id) {
  for (;;) {
    const m = reply && receiveMessageOnPort(reply);
    if (!m) return null;
    if (m.message.id === id) return m.message;
  }
}

/** Sends requests through the runner (in parallel, as http.batch) and blocks until all answered. */
export function syncFetch(requests) {
  checkAlive();
  flush();
  const id = nextId++;
  Atomics.store(ctl, 0, 0);
  checkAlive();
  post({ type: 'fetch', id, requests });
  const until = Date.now() + Math.max(...requests.map((r) => r.timeoutMs)) + 5_000;
  for (;;) {
    const got = drain(id);
    if (got) return got.results;
    const left = until - Date.now();
    if (left <= 0) throw new Error('k6 stand-in: no answer from the runner for a request');
    Atomics.wait(ctl, 0, 0, left);
    Atomics.store(ctl, 0, 0);
    checkAlive();
  }
}

/** k6's sleep(): blocks this runtime; the stand-in's sleepScale shortens waits in tests. */
export function syncSleep(seconds) {
  checkAlive();
  flush();
  const ms = Math.max(0, Number(seconds) * 1000 * rt.sleepScale);
  sleptMs += ms;
  const until = Date.now() + ms;
  Atomics.store(ctl, 0, 0);
  checkAlive();
  for (let left = ms; left > 0; left = until - Date.now()) {
    Atomics.wait(ctl, 0, 0, left);
    Atomics.store(ctl, 0, 0);
    checkAlive();
  }
}
