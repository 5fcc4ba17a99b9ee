/**
 * The k6 stand-in (test/k6/shim) behaves as real k6 v1.3.0 does, row by row of the table in
 * ../shared/samples/k6/README.md and against its real --out json recordings. Each test runs a
 * small probe script (test/k6/fixtures/probe.js, which prints what each stage sees as `PROBE`
 * lines) or a real bundle through the stand-in and asserts what real k6 does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReferenceService, DEFAULT_KEYS, type RunningService } from '../../src/target/index.ts';
import { ROOT, buildBundles, removeBundles, runShim, type ShimOptions, type ShimResult } from './helpers.ts';
import { describeWithShared, sharedPath } from '../shared-files.ts';
import { SYSTEM_TAG_NAMES } from './shim/options.mjs';

const PROBE = join(ROOT, 'test', 'k6', 'fixtures', 'probe.js');
const K6_CLI = join(ROOT, 'test', 'k6', 'shim', 'k6-cli.mjs');
const REAL_SAMPLE = 'samples/k6/mixed-30s-clean.k6.json.gz';
const NO_INSTANCE = 'GoError: getting instance information in the init context is not supported';
const NO_SCENARIO = 'GoError: getting scenario information outside of the VU context is not supported';

interface Attempt<T> {
  value?: T;
  error?: string;
}
interface Seen {
  stage: 'init' | 'setup' | 'default' | 'default-end' | 'teardown' | 'handleSummary';
  counter: number;
  vu: number;
  instance: Attempt<{ currentTestRunDuration: number; iterationsCompleted: number; iterationsInterrupted: number; vusActive: number }>;
  scenario: Attempt<{ name: string; executor: string; startTime: number; iterationInInstance: number; iterationInTest: number }>;
  options: Attempt<{ scenarios: Record<string, Record<string, unknown>>; executionSegment: string | null }>;
  now: Attempt<number>;
  data: { n: number; when: string; list: number[]; gone?: unknown };
  start: number;
  end: number;
  testRunDurationMs: number;
  iterationsCount: number | null;
}

/** The PROBE lines a run printed, in order. */
function probeLines(text: string): Seen[] {
  return text
    .split('\n')
    .map((l) => /PROBE (\{.*\})\s*$/.exec(l)?.[1])
    .filter((j): j is string => j !== undefined)
    .map((j) => JSON.parse(j) as Seen);
}
const stage = (lines: Seen[], s: Seen['stage']) => lines.filter((l) => l.stage === s);
const one = (lines: Seen[], s: Seen['stage']) => {
  const found = stage(lines, s);
  expect(found.length, `one ${s} line`).toBe(1);
  return found[0];
};

let work = '';
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'k6-fidelity-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The probe under the stand-in, with its own plan (no --iterations). */
async function probe(env: Record<string, string>, opts: ShimOptions = {}): Promise<{ r: ShimResult; lines: Seen[] }> {
  const r = await runShim(PROBE, env, { iterations: 'plan', timeoutMs: 40_000, ...opts });
  return { r, lines: probeLines(r.output) };
}

/** `k6 run` through the k6-cli stand-in (K6_BIN); SIGINT once its output satisfies `sigintWhen`. */
function k6Cli(args: string[], sigintWhen?: (out: string) => boolean): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [K6_CLI, 'run', ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '' } });
    let out = '';
    let signalled = false;
    const take = (d: Buffer) => {
      out += d.toString();
      if (sigintWhen && !signalled && sigintWhen(out)) {
        signalled = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const kill = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`k6-cli timed out:\n${out}`));
    }, 40_000);
    child.on('exit', (code) => {
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}

interface JsonLine {
  type: 'Metric' | 'Point';
  metric: string;
  data: { name?: string; type?: string; contains?: string; thresholds?: string[]; submetrics?: unknown; time?: string; value?: number; tags?: Record<string, string>; metadata?: Record<string, string> };
}
const readJson = (file: string): JsonLine[] =>
  (file.endsWith('.gz') ? gunzipSync(readFileSync(file)).toString('utf8') : readFileSync(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JsonLine);
const points = (lines: JsonLine[], metric: string) => lines.filter((l) => l.type === 'Point' && l.metric === metric);

const scenarios = (s: Record<string, Record<string, unknown>>) => ({ PROBE_SCENARIOS: JSON.stringify(s) });

describe('runtimes: setup(), every VU, teardown() and handleSummary() each have their own (README: "Every VU, setup() and teardown() has its own JavaScript runtime")', () => {
  let run: { r: ShimResult; lines: Seen[] };
  beforeAll(async () => {
    // The probe's default plan: per-vu-iterations, 2 VUs × 3 iterations.
    run = await probe({});
  }, 60_000);

  it('each evaluates the init context on its own: a module-level counter changed in default() is 0 in setup(), teardown() and handleSummary(), and each VU counts its own', () => {
    const { lines } = run;
    // The options runtime, setup, two VUs, teardown and handleSummary each ran the init context.
    expect(stage(lines, 'init').length).toBeGreaterThanOrEqual(6);
    expect(one(lines, 'setup').counter).toBe(0);
    expect(one(lines, 'teardown').counter).toBe(0);
    expect(one(lines, 'handleSummary').counter).toBe(0);
    const byVU = new Map<number, number[]>();
    for (const l of stage(lines, 'default')) byVU.set(l.vu, [...(byVU.get(l.vu) ?? []), l.counter]);
    expect([...byVU.keys()].sort()).toEqual([1, 2]);
    for (const counts of byVU.values()) expect(counts).toEqual([1, 2, 3]);
  });

  it("setup()'s return value reaches default() and teardown() as a JSON copy: a VU's changes stay in that VU", () => {
    const { lines } = run;
    const json = { n: 1, when: '1970-01-01T00:00:00.000Z', list: [1, 2] };
    // Each VU parses its own copy once; its iterations see their own changes (+100 each), never another VU's.
    const byVU = new Map<number, number[]>();
    for (const l of stage(lines, 'default')) {
      expect(l.data).not.toHaveProperty('gone');
      expect(l.data.when).toBe(json.when);
      byVU.set(l.vu, [...(byVU.get(l.vu) ?? []), l.data.n]);
    }
    for (const ns of byVU.values()) expect(ns).toEqual([1, 101, 201]);
    expect(one(lines, 'teardown').data).toEqual(json);
  });
});

describe('k6/execution by stage (README table)', () => {
  let lines: Seen[];
  beforeAll(async () => {
    lines = (await probe({})).lines;
  }, 60_000);

  it('exec.instance answers in setup() and default(), and throws k6\'s GoError in teardown() and handleSummary()', () => {
    const setup = one(lines, 'setup').instance;
    expect(setup.error).toBeUndefined();
    expect(setup.value).toMatchObject({ iterationsCompleted: 0, iterationsInterrupted: 0 });
    expect(setup.value!.currentTestRunDuration).toBeGreaterThanOrEqual(0);
    for (const l of stage(lines, 'default')) expect(l.instance.value?.vusActive).toBe(2);
    expect(one(lines, 'teardown').instance).toEqual({ error: NO_INSTANCE });
    expect(one(lines, 'handleSummary').instance).toEqual({ error: NO_INSTANCE });
  });

  it('exec.scenario answers in default() only: setup(), teardown() and handleSummary() throw', () => {
    for (const l of stage(lines, 'default')) expect(l.scenario.value).toMatchObject({ name: 'probe', executor: 'per-vu-iterations' });
    expect(stage(lines, 'default').map((l) => l.scenario.value!.iterationInTest).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const s of ['setup', 'teardown', 'handleSummary'] as const) expect(one(lines, s).scenario, s).toEqual({ error: NO_SCENARIO });
  });

  it('exec.test.options answers in every stage: the consolidated scenarios, no execution segment when none is given', () => {
    for (const s of ['setup', 'default', 'teardown', 'handleSummary'] as const) {
      for (const l of stage(lines, s)) {
        expect(l.options.error, s).toBeUndefined();
        expect(l.options.value!.scenarios.probe, s).toMatchObject({ executor: 'per-vu-iterations', vus: 2, iterations: 3 });
        expect(l.options.value!.executionSegment, s).toBeNull();
      }
    }
  });

  it('Date.now() works in every stage, in order', () => {
    const at = (s: Seen['stage']) => stage(lines, s).map((l) => l.now.value!);
    const [setup, teardown, summary] = [at('setup')[0], at('teardown')[0], at('handleSummary')[0]];
    for (const t of [setup, teardown, summary, ...at('default')]) expect(typeof t).toBe('number');
    for (const t of at('default')) expect(t >= setup && t <= teardown).toBe(true);
    expect(summary).toBeGreaterThanOrEqual(teardown);
  });

  it('handleSummary(data) gets data.state.testRunDurationMs and data.metrics.iterations.values.count', () => {
    const s = one(lines, 'handleSummary');
    expect(s.iterationsCount).toBe(6);
    // The test-run clock starts before setup() and runs past teardown().
    expect(s.testRunDurationMs).toBeGreaterThanOrEqual(one(lines, 'teardown').now.value! - one(lines, 'setup').now.value!);
  });
});

describe('time as k6 spends it', () => {
  it('constant-arrival-rate runs for its duration on the wall clock, starting iterations at rate/timeUnit (10/s for 2 s: 20, 100 ms apart)', async () => {
    const { r, lines } = await probe(scenarios({ car: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '2s', preAllocatedVUs: 4 } }));
    expect(r.exitCode, r.output).toBe(0);
    const starts = stage(lines, 'default').map((l) => ({ at: l.now.value!, i: l.scenario.value!.iterationInTest, from: l.scenario.value!.startTime }));
    expect(starts.map((s) => s.i).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    // Paced: iteration i starts i × 100 ms after the scenario's start, never before (timers on a loaded machine fire late, never early).
    for (const s of starts) {
      expect(s.at, `iteration ${s.i}`).toBeGreaterThanOrEqual(s.from + s.i * 100 - 2);
      expect(s.at, `iteration ${s.i}`).toBeLessThan(s.from + s.i * 100 + 500);
    }
    expect(one(lines, 'teardown').now.value! - one(lines, 'setup').now.value!).toBeGreaterThanOrEqual(2000);
  }, 60_000);

  it('constant-vus: the VUs loop in parallel for the duration', async () => {
    const { r, lines } = await probe({ ...scenarios({ cv: { executor: 'constant-vus', vus: 2, duration: '1500ms' } }), PROBE_SLEEP: '0.4' });
    expect(r.exitCode, r.output).toBe(0);
    const ends = stage(lines, 'default-end');
    const vu1 = ends.filter((l) => l.vu === 1);
    const vu2 = ends.filter((l) => l.vu === 2);
    expect(vu1.length).toBeGreaterThanOrEqual(3);
    expect(vu2.length).toBeGreaterThanOrEqual(3);
    // In parallel: VU 2's first iteration ran while VU 1's first one did.
    expect(vu2[0].start).toBeLessThan(vu1[0].end);
    expect(one(lines, 'teardown').now.value! - one(lines, 'setup').now.value!).toBeGreaterThanOrEqual(1500);
  }, 60_000);

  it('iteration-based executors run their planned iterations: shared-iterations shares them between its VUs', async () => {
    const { r, lines } = await probe({ ...scenarios({ si: { executor: 'shared-iterations', vus: 2, iterations: 8 } }), PROBE_SLEEP: '0.05' });
    expect(r.exitCode, r.output).toBe(0);
    const starts = stage(lines, 'default');
    expect(starts.map((l) => l.scenario.value!.iterationInTest).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(starts.map((l) => l.vu))).toEqual(new Set([1, 2]));
    expect(one(lines, 'handleSummary').iterationsCount).toBe(8);
  }, 60_000);

  it('an execution segment gives the instance its share, as k6 stripes it (--execution-segment 1/4:2/4 on k6-cli)', async () => {
    const out = join(work, 'segment.k6.json');
    const si = await k6Cli(['-q', '--execution-segment', '1/4:2/4', '--out', `json=${out}`, '-e', `PROBE_SCENARIOS=${JSON.stringify({ si: { executor: 'shared-iterations', vus: 4, iterations: 40 } })}`, PROBE]);
    expect(si.code, si.out).toBe(0);
    const lines = probeLines(si.out);
    // 1/4 of 40 iterations on 1 of 4 VUs: the test's iterations 3, 7, …, 39 (k6's striping of 0:1/4, 1/4:1/2, 1/2:1).
    expect(stage(lines, 'default').map((l) => l.scenario.value!.iterationInTest)).toEqual([3, 7, 11, 15, 19, 23, 27, 31, 35, 39]);
    expect(stage(lines, 'default').map((l) => l.scenario.value!.iterationInInstance)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(one(lines, 'teardown').options.value!.executionSegment).toBe('1/4:1/2');
    expect(points(readJson(out), 'iterations').length).toBe(10);
    // An arrival rate: this instance starts the test's iterations 3 and 7 of 8/s, at 375 and 875 ms.
    const car = await k6Cli(['-q', '--execution-segment', '1/4:2/4', '-e', `PROBE_SCENARIOS=${JSON.stringify({ car: { executor: 'constant-arrival-rate', rate: 8, timeUnit: '1s', duration: '1s', preAllocatedVUs: 4 } })}`, PROBE]);
    expect(car.code, car.out).toBe(0);
    const starts = stage(probeLines(car.out), 'default');
    expect(starts.map((l) => l.scenario.value!.iterationInTest)).toEqual([3, 7]);
    starts.forEach((l, k) => expect(l.now.value!).toBeGreaterThanOrEqual(l.scenario.value!.startTime + [375, 875][k] - 2));
  }, 90_000);
});

describe('cut short: teardown() and handleSummary() run all the same, with k6\'s exit codes (README)', () => {
  it('SIGINT to the k6-cli stand-in: exit 105; iterations Points for the completed iterations only', async () => {
    const out = join(work, 'sigint.k6.json');
    // Ctrl-C once two iterations completed and the third started (each sleeps 1 s).
    const interruptWhen = (text: string) => stage(probeLines(text), 'default').length === 3;
    const r = await k6Cli(['-q', '--out', `json=${out}`, '-e', `PROBE_SCENARIOS=${JSON.stringify({ cv: { executor: 'constant-vus', vus: 1, duration: '20s' } })}`, '-e', 'PROBE_SLEEP=1', PROBE], interruptWhen);
    expect(r.code, r.out).toBe(105);
    const lines = probeLines(r.out);
    const completed = stage(lines, 'default-end').length;
    expect(completed).toBeGreaterThanOrEqual(2);
    // The iteration running at the signal was interrupted: started, never ended, no Point.
    expect(stage(lines, 'default').length).toBe(completed + 1);
    expect(one(lines, 'teardown').instance).toEqual({ error: NO_INSTANCE });
    expect(one(lines, 'handleSummary').iterationsCount).toBe(completed);
    const its = points(readJson(out), 'iterations');
    expect(its.length).toBe(completed);
    for (const p of its) expect(p.data.tags).toEqual({ group: '', scenario: 'cv' });
  }, 60_000);

  it('K6SHIM_INTERRUPT_AFTER stops as a Ctrl-C then: exit 105, teardown() and handleSummary() ran', async () => {
    const { r, lines } = await probe(scenarios({ pv: { executor: 'per-vu-iterations', vus: 1, iterations: 5 } }), { interruptAfter: 2 });
    expect(r.exitCode, r.output).toBe(105);
    expect(stage(lines, 'default-end').length).toBe(2);
    expect(one(lines, 'teardown').counter).toBe(0);
    expect(one(lines, 'handleSummary').iterationsCount).toBe(2);
  }, 60_000);

  it('exec.test.abort() in the 6th iteration: exit 108, 5 iterations Points, teardown() and handleSummary() ran', async () => {
    const out = join(work, 'abort.k6.json');
    const { r, lines } = await probe({ ...scenarios({ si: { executor: 'shared-iterations', vus: 1, iterations: 10 } }), PROBE_ABORT_AT: '5' }, { jsonOut: out });
    expect(r.exitCode, r.output).toBe(108);
    expect(stage(lines, 'default').length).toBe(6);
    expect(points(readJson(out), 'iterations').length).toBe(5);
    expect(one(lines, 'teardown').instance).toEqual({ error: NO_INSTANCE });
    expect(one(lines, 'handleSummary').iterationsCount).toBe(5);
  }, 60_000);

  it('exit 99 when a threshold is crossed (checks rate==1 with a failing check), 0 when every threshold holds', async () => {
    const thresholds = { PROBE_THRESHOLDS: JSON.stringify({ checks: ['rate==1'] }) };
    const crossed = await probe({ ...thresholds, PROBE_CHECK: 'fail' });
    expect(crossed.r.exitCode, crossed.r.output).toBe(99);
    expect(crossed.r.output).toMatch(/thresholds on metrics 'checks' have been crossed/);
    // teardown() and handleSummary() ran before the verdict.
    expect(one(crossed.lines, 'handleSummary').iterationsCount).toBe(6);
    const held = await probe(thresholds);
    expect(held.r.exitCode, held.r.output).toBe(0);
  }, 60_000);
});

describe('options.systemTags: k6 adds only the system tags it names; a script\'s own tags stay; an unknown name is refused', () => {
  it('with systemTags [scenario]: checks carry no check or group tag, iterations only scenario; with k6\'s defaults both are there', async () => {
    const cut = join(work, 'tags-cut.k6.json');
    const r = await probe({ PROBE_SYSTEM_TAGS: JSON.stringify(['scenario']) }, { jsonOut: cut });
    expect(r.r.exitCode, r.r.output).toBe(0);
    const lines = readJson(cut);
    expect(points(lines, 'checks').length).toBeGreaterThan(0);
    for (const p of points(lines, 'checks')) expect(p.data.tags).toEqual({ scenario: 'probe' });
    for (const p of points(lines, 'iterations')) expect(p.data.tags).toEqual({ scenario: 'probe' });
    const full = join(work, 'tags-default.k6.json');
    expect((await probe({}, { jsonOut: full })).r.exitCode).toBe(0);
    for (const p of points(readJson(full), 'checks')) expect(p.data.tags).toEqual({ check: 'the probe check', group: '', scenario: 'probe' });
  }, 60_000);

  it('a name k6 does not know is a configuration error (exit 104)', async () => {
    const r = await probe({ PROBE_SYSTEM_TAGS: JSON.stringify(['scenario', 'endpoint']) });
    expect(r.r.exitCode).toBe(104);
    expect(r.r.fatal).toMatch(/systemTags: "endpoint" is not a system tag/);
  }, 60_000);
});

describeWithShared([REAL_SAMPLE], '--out json as real k6 writes it (compared with mixed-30s-clean.k6.json.gz, recorded with the same bundle)', () => {
  let svc: RunningService;
  let bundles = '';
  beforeAll(async () => {
    bundles = buildBundles();
    svc = await startReferenceService({ port: 0, presentation: 'B', timeScale: 0.02 });
  });
  afterAll(async () => {
    await svc.close();
    removeBundles();
  });

  it('Metric lines before each metric\'s first Point, equal to real k6\'s; Points shaped as real k6\'s; an iterations Point per completed iteration', async () => {
    const key = (m: string) => DEFAULT_KEYS.find((k) => k.merchant === m && k.key.startsWith('svc_test_sk_') && k.direct_api)!.key;
    const out = join(work, 'mixed.k6.json');
    // The sample's own plan, shorter: constant-arrival-rate, here 1 iteration/s for 3 s.
    const r = await runShim(join(bundles, 'mixed.js'), { TARGET: svc.url, KEYS: `acme:${key('acme')},globex:${key('globex')}`, DURATION: '3s', RATE: '1' }, { iterations: 'plan', sleepScale: 0.05, jsonOut: out, timeoutMs: 60_000 });
    expect(r.fatal, r.output).toBeNull();
    const ours = readJson(out);
    const real = readJson(sharedPath(REAL_SAMPLE));
    // Without the expected_response system tag k6 declares no http_req_duration{expected_response:true} sub-metric.
    if (!((r.options as { systemTags?: string[] }).systemTags ?? ['expected_response']).includes('expected_response')) {
      for (const l of real) if (l.type === 'Metric' && Array.isArray(l.data.submetrics)) {
        const subs = (l.data.submetrics as { suffix: string }[]).filter((x) => x.suffix !== 'expected_response:true');
        l.data.submetrics = subs.length ? subs : null;
      }
    }
    const metricLines = (lines: JsonLine[]) => new Map(lines.filter((l) => l.type === 'Metric').map((l) => [l.metric, l]));
    const realMetrics = metricLines(real);
    const ourMetrics = metricLines(ours);
    // The same metrics, each declared once, before its first Point, exactly as real k6 declares it.
    expect(ours.filter((l) => l.type === 'Metric').length).toBe(ourMetrics.size);
    for (const name of realMetrics.keys()) if (name !== 'payments_created' && name !== 'settle_time') expect(ourMetrics.has(name), name).toBe(true);
    for (const [name, line] of ourMetrics) {
      expect(realMetrics.has(name), `real k6 writes ${name} too`).toBe(true);
      expect(JSON.stringify(line), name).toBe(JSON.stringify(realMetrics.get(name)));
      const first = ours.findIndex((l) => l.type === 'Point' && l.metric === name);
      expect(ours.indexOf(line)).toBeLessThan(first);
    }
    // Points: the same key order, times in Go's RFC 3339 with nanoseconds, the same tag names per metric and stage.
    const timeRe = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/;
    const tagShapes = (lines: JsonLine[]) => {
      const shapes = new Map<string, Set<string>>();
      for (const l of lines.filter((x) => x.type === 'Point')) {
        expect(Object.keys(l)).toEqual(['metric', 'type', 'data']);
        expect(Object.keys(l.data)).toEqual(l.data.metadata ? ['time', 'value', 'tags', 'metadata'] : ['time', 'value', 'tags']);
        expect(l.data.time).toMatch(timeRe);
        const tags = l.data.tags!;
        expect(Object.keys(tags)).toEqual(Object.keys(tags).sort());
        const where = tags.group === '::setup' ? 'setup' : tags.group === '::teardown' ? 'teardown' : tags.scenario ? 'scenario' : 'engine';
        const k = `${l.metric} ${where}`;
        shapes.set(k, new Set([...(shapes.get(k) ?? []), Object.keys(tags).filter((t) => t !== 'check').join(',')]));
      }
      return shapes;
    };
    // The bundles now keep fewer system tags (options.systemTags) than the recording's did: real k6
    // would write the recording's tags less those it drops.
    const kept = (r.options as { systemTags?: string[] }).systemTags ?? SYSTEM_TAG_NAMES;
    const dropped = SYSTEM_TAG_NAMES.filter((t) => !kept.includes(t));
    for (const l of real) if (l.type === 'Point' && l.data.tags) for (const t of dropped) delete l.data.tags[t];
    const ourShapes = tagShapes(ours);
    const realShapes = tagShapes(real);
    for (const [k, shapes] of ourShapes) {
      expect(realShapes.has(k), `real k6 writes ${k}`).toBe(true);
      for (const s of shapes) expect([...realShapes.get(k)!], `${k}: tags ${s}`).toContain(s);
    }
    // One iterations Point (value 1, group "" and the scenario) per completed iteration.
    const its = points(ours, 'iterations');
    expect(its.length).toBeGreaterThanOrEqual(3);
    for (const p of its) {
      expect(p.data.value).toBe(1);
      expect(p.data.tags).toEqual({ group: '', scenario: 'mixed' });
    }
    expect(its.length).toBe(r.iterations - r.iterationErrors.length);
    // Records ride in data.metadata, as in the sample.
    expect(points(ours, 'paystorm_exchange').every((p) => p.data.metadata && Object.keys(p.data.metadata).length === 1)).toBe(true);
  }, 90_000);
});
