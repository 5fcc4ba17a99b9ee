/**
 * Shared state of the k6 shim: what the script did (requests, checks, metric samples,
 * logs) and the synchronous plumbing k6's API needs in Node: HTTP requests run in a
 * worker thread with fetch while this thread blocks on Atomics.wait (k6's http calls
 * are synchronous). This is a test double of k6's JavaScript API, not k6: it proves a
 * script's request sequence and checks against a server, nothing about k6 itself.
 */
import { randomInt } from 'node:crypto';
import { Worker, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { writeFileSync } from 'node:fs';

export const state = {
  requests: [],
  checks: {},
  metrics: {},
  logs: [],
  scenario: { name: '', executor: '', iterationInTest: 0, iterationInInstance: 0, startTime: Date.now(), progress: 0 },
  vu: { idInTest: 1, idInInstance: 1, iterationInScenario: 0, iterationInInstance: 0 },
  /** exec.vu.metrics: tags and metadata the VU adds to every sample it emits. */
  vuMetrics: { tags: {}, metadata: {} },
  responseCallback: null,
  /**
   * exec.instance: iterations completed and interrupted, and the test-run clock. The shim does
   * not pace executors: when a time-based scenario has run its iterations, the runner moves the
   * clock on by the scenario's duration (`advancedMs`), as if k6 had run it for that long; a
   * stopped run (abort, K6SHIM_INTERRUPT_AFTER) does not. `startedAt`: before setup, as k6 counts.
   */
  instance: { startedAt: 0, advancedMs: 0, iterationsCompleted: 0, iterationsInterrupted: 0 },
  /** exec.test.options: the script's options (k6 gives the consolidated ones). */
  testOptions: {},
  /** Connections this VU has open, by origin (a request without a free one "connects", see http.mjs). */
  connected: new Map(),
  sleepScale: Number(process.env.K6SHIM_SLEEP_SCALE ?? '1'),
  sleptMs: 0,
};

/**
 * k6's `--out json` (K6SHIM_JSON_OUT=file): a Metric line the first time a metric gets a
 * sample, then one Point line per sample, in the shape real k6 v1.3 writes
 * (../shared/samples/k6): {"type":"Point","data":{"time":RFC3339 with ns,"value":…,"tags":{…}},"metric":…}.
 */
const jsonLines = [];
const declared = new Set();
export function emitSample(name, type, contains, value, tags) {
  if (!process.env.K6SHIM_JSON_OUT) return;
  if (!declared.has(name)) {
    declared.add(name);
    jsonLines.push(JSON.stringify({ type: 'Metric', data: { name, type, contains, thresholds: [], submetrics: null }, metric: name }));
  }
  const t = new Date().toISOString().replace('Z', `${String(randomInt(1e6)).padStart(6, '0')}Z`);
  const data = { time: t, value, tags: { ...(state.groupTag ? { group: state.groupTag } : {}), ...state.vuMetrics.tags, ...(tags || {}), ...(state.scenario.name ? { scenario: state.scenario.name } : {}) } };
  // k6 writes a sample's metadata (exec.vu.metrics.metadata) as data.metadata, omitted when empty.
  if (Object.keys(state.vuMetrics.metadata).length) data.metadata = Object.fromEntries(Object.entries(state.vuMetrics.metadata).map(([k, v]) => [k, String(v)]));
  jsonLines.push(JSON.stringify({ metric: name, type: 'Point', data }));
}
export function flushJson() {
  if (process.env.K6SHIM_JSON_OUT) writeFileSync(process.env.K6SHIM_JSON_OUT, jsonLines.length ? jsonLines.join('\n') + '\n' : '');
}

let channel = null;
const signal = new Int32Array(new SharedArrayBuffer(4));
const nap = new Int32Array(new SharedArrayBuffer(4));

function ensureWorker() {
  if (channel) return channel;
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL('./fetch-worker.mjs', import.meta.url), {
    workerData: { port: port2, signal: signal.buffer },
    transferList: [port2],
  });
  worker.unref();
  channel = { port: port1, worker };
  return channel;
}

/** Sends requests in parallel (k6's http.batch runs them concurrently) and waits for all. */
export function syncFetch(requests) {
  const { port } = ensureWorker();
  Atomics.store(signal, 0, 0);
  port.postMessage(requests);
  const maxWait = Math.max(...requests.map((r) => r.timeoutMs)) + 5_000;
  const res = Atomics.wait(signal, 0, 0, maxWait);
  const msg = receiveMessageOnPort(port);
  if (!msg) throw new Error(`k6 shim: no answer from the fetch worker (${res})`);
  return msg.message;
}

/** k6's sleep(): blocks this thread; K6SHIM_SLEEP_SCALE shortens waits in tests. */
export function syncSleep(seconds) {
  const ms = Math.max(0, seconds * 1000 * state.sleepScale);
  state.sleptMs += ms;
  if (ms > 0) Atomics.wait(nap, 0, 0, ms);
}
