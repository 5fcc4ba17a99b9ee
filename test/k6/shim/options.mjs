/**
 * k6's option consolidation, for the stand-in: the script's `options`, then what the command line
 * gives (`--iterations`, `--vus`, `--duration`, `--execution-segment`). As in k6
 * (lib/options.go Apply, lib/executor/execution_config_shortcuts.go), a shortcut given on the
 * command line replaces the script's scenarios: `--iterations N` runs one `default` scenario,
 * shared-iterations, N iterations over `--vus` VUs (1); `--duration` a constant-vus one. Without
 * shortcut or scenarios: one VU, one iteration (per-vu-iterations). `exec.test.options` gets
 * the result in k6's JSON form: durations as Go prints them (`1m0s`), unset fields null.
 */

const UNIT_MS = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a Go duration (`1m30s`, `500ms`) or a number (k6 reads a number as ms). */
export function durationMs(d) {
  if (typeof d === 'number') return d;
  const text = String(d ?? '').trim();
  if (text === '0') return 0;
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) throw new Error(`invalid duration "${text}"`);
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]];
  return total;
}

/** Go's time.Duration.String() of ms: 30s, 1m0s, 1h30m0s, 500ms. */
export function goDuration(ms) {
  if (ms === 0) return '0s';
  if (ms < 1000) {
    if (ms >= 1) return `${trim(ms)}ms`;
    return ms >= 1e-3 ? `${trim(ms * 1000)}µs` : `${trim(ms * 1e6)}ns`;
  }
  let s = ms / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${trim(s)}s`;
  return h ? `${h}h${m}m${sec}` : m ? `${m}m${sec}` : sec;
}
const trim = (x) => String(Number(x.toFixed(9)));

/** Each executor's own fields (k6's JSON names), in k6's order, and which are durations. */
const EXECUTOR_FIELDS = {
  'shared-iterations': ['vus', 'iterations', 'maxDuration'],
  'per-vu-iterations': ['vus', 'iterations', 'maxDuration'],
  'constant-vus': ['vus', 'duration'],
  'ramping-vus': ['startVUs', 'stages', 'gracefulRampDown'],
  'constant-arrival-rate': ['rate', 'timeUnit', 'duration', 'preAllocatedVUs', 'maxVUs'],
  'ramping-arrival-rate': ['startRate', 'timeUnit', 'preAllocatedVUs', 'maxVUs', 'stages'],
};
const DURATIONS = new Set(['startTime', 'gracefulStop', 'maxDuration', 'duration', 'timeUnit', 'gracefulRampDown']);
export const EXECUTORS = Object.keys(EXECUTOR_FIELDS);

const orNull = (v) => (v === undefined ? null : v);
const asGo = (v) => (v === undefined || v === null ? null : goDuration(durationMs(v)));

/** One scenario as k6's consolidated options give it (unset fields null, durations in Go form). */
function consolidatedScenario(name, sc) {
  const fields = EXECUTOR_FIELDS[sc.executor];
  if (!fields) throw new Error(`scenario ${name}: executor "${sc.executor}" is not supported by the k6 stand-in (${EXECUTORS.join(', ')})`);
  const out = {
    executor: sc.executor,
    startTime: asGo(sc.startTime),
    gracefulStop: asGo(sc.gracefulStop),
    env: orNull(sc.env),
    exec: orNull(sc.exec),
    tags: orNull(sc.tags),
  };
  for (const f of fields) {
    if (f === 'stages') out.stages = (sc.stages ?? []).map((st) => ({ duration: asGo(st.duration), target: orNull(st.target) }));
    else out[f] = DURATIONS.has(f) ? asGo(sc[f]) : orNull(sc[f]);
  }
  for (const k of Object.keys(sc)) if (!(k in out) && k !== 'options') throw new Error(`scenario ${name}: ${sc.executor} has no option ${k}`);
  return out;
}

/** Every system tag k6 v1.3 knows (lib/metrics/system_tag.go); options.systemTags may name only these. */
export const SYSTEM_TAG_NAMES = ['proto', 'subproto', 'status', 'method', 'url', 'name', 'group', 'check', 'error', 'error_code', 'tls_version', 'scenario', 'service', 'expected_response', 'ip', 'ocsp_status', 'vu', 'iter'];

/**
 * The consolidated options: `script` (the bundle's `options`) under `cli` ({iterations, vus,
 * duration, executionSegment, executionSegmentSequence}). Returns the options object k6 would
 * expose and the tuple's texts; throws on a configuration k6 refuses.
 */
export function consolidate(script, cli) {
  const base = { ...(script ?? {}) };
  const shortcutOnCli = cli.iterations !== undefined || cli.duration !== undefined;
  let iterations = base.iterations;
  let duration = base.duration;
  let stages = base.stages;
  let scenarios = base.scenarios;
  if (shortcutOnCli) {
    iterations = cli.iterations;
    duration = cli.duration;
    stages = undefined;
    scenarios = undefined;
  }
  const vus = cli.vus ?? base.vus;
  let derived;
  if (iterations !== undefined) {
    if (scenarios) throw new Error('using an execution configuration shortcut (`iterations`) and `scenarios` simultaneously is not allowed');
    derived = { default: { executor: 'shared-iterations', vus: vus ?? 1, iterations, ...(duration !== undefined ? { maxDuration: duration } : {}) } };
  } else if (duration !== undefined) {
    if (scenarios) throw new Error('using an execution configuration shortcut (`duration`) and `scenarios` simultaneously is not allowed');
    derived = { default: { executor: 'constant-vus', vus: vus ?? 1, duration } };
  } else if (stages && stages.length) {
    if (scenarios) throw new Error('using an execution configuration shortcut (`stages`) and `scenarios` simultaneously is not allowed');
    derived = { default: { executor: 'ramping-vus', startVUs: vus ?? 1, stages } };
  } else if (scenarios && Object.keys(scenarios).length) {
    derived = scenarios;
  } else {
    derived = { default: { executor: 'per-vu-iterations', vus: 1, iterations: 1 } };
  }
  const consolidated = {};
  for (const [name, sc] of Object.entries(derived)) {
    if (!/^[A-Za-z0-9_-]+$/.test(name)) throw new Error(`scenario name "${name}" has characters k6 refuses`);
    consolidated[name] = consolidatedScenario(name, sc);
  }
  for (const k of ['vus', 'iterations', 'duration', 'stages']) delete base[k];
  if (base.systemTags !== undefined) {
    if (!Array.isArray(base.systemTags)) throw new Error('systemTags: expected a list of system tag names');
    for (const t of base.systemTags) if (!SYSTEM_TAG_NAMES.includes(t)) throw new Error(`systemTags: "${t}" is not a system tag (k6's are ${SYSTEM_TAG_NAMES.join(', ')})`);
  }
  return {
    ...base,
    scenarios: consolidated,
    executionSegment: cli.executionSegment ?? base.executionSegment ?? null,
    executionSegmentSequence: cli.executionSegmentSequence ?? base.executionSegmentSequence ?? null,
    consoleOutput: null,
    localIPs: null,
  };
}

/** Deep-frozen, as k6 freezes `exec.test.options`. */
export function deepFreeze(o) {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}
