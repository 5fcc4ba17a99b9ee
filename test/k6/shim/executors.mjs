/**
 * k6's executors, on the wall clock, for the stand-in (lib/executor/*.go): which VU runs which
 * iteration when. VUs run in parallel (each a worker thread). An instance given an execution
 * segment takes its share (segments.mjs): scaled VUs and iterations, and for the arrival-rate
 * executors the striped iteration starts of the whole test that are its own.
 *
 * - shared-iterations: `iterations` shared by `vus` VUs, within `maxDuration` (default 10m);
 * - per-vu-iterations: each of `vus` VUs runs `iterations`, within `maxDuration`;
 * - constant-vus: `vus` VUs loop for `duration`;
 * - ramping-vus: from `startVUs` (default 1) along `stages` (linear; a VU ramped down finishes
 *   its iteration: gracefulRampDown is not enforced);
 * - constant-arrival-rate: iteration i starts at i × timeUnit/rate after the scenario's start,
 *   on a free VU; none free: a dropped_iterations point, and one more VU is initialized in the
 *   background while `maxVUs` allows;
 * - ramping-arrival-rate: the same along `stages` (the rate linear within a stage).
 * When the scenario's time is up no iteration starts; running ones get `gracefulStop` (default
 * 30s), then are interrupted.
 */
import { durationMs } from './options.mjs';
import { SegmentedIndex } from './segments.mjs';

const ms = (d, dflt) => (d === null || d === undefined ? dflt : durationMs(d));

/** How many VUs a scenario plans (this instance's share) and how long it may run, for sizing the VU pool. */
export function plannedVUs(cfg, tuple) {
  const stagesMs = (cfg.stages ?? []).reduce((s, st) => s + ms(st.duration, 0), 0);
  const grace = ms(cfg.gracefulStop, 30_000);
  switch (cfg.executor) {
    case 'shared-iterations':
    case 'per-vu-iterations':
      return { vus: tuple.scale(cfg.vus ?? 1), runMs: ms(cfg.maxDuration, 600_000) + grace };
    case 'constant-vus':
      return { vus: tuple.scale(cfg.vus ?? 1), runMs: ms(cfg.duration, 0) + grace };
    case 'ramping-vus':
      return { vus: tuple.scale(Math.max(cfg.startVUs ?? 1, ...(cfg.stages ?? []).map((s) => s.target ?? 0))), runMs: stagesMs + ms(cfg.gracefulRampDown, 30_000) + grace };
    case 'constant-arrival-rate':
      return { vus: tuple.scale(cfg.preAllocatedVUs ?? 0), runMs: ms(cfg.duration, 0) + grace };
    case 'ramping-arrival-rate':
      return { vus: tuple.scale(cfg.preAllocatedVUs ?? 0), runMs: stagesMs + grace };
    default:
      throw new Error(`executor ${cfg.executor} is not supported by the k6 stand-in`);
  }
}

/** A scenario's run: its clock, the VUs running its iterations, its iteration counters. */
export class ScenarioRun {
  constructor(test, name, cfg) {
    this.test = test;
    this.name = name;
    this.cfg = cfg;
    this.exec = cfg.exec ?? 'default';
    this.running = new Set();
    this.iterIndex = new SegmentedIndex(test.tuple);
    this.startTime = 0;
    this.regEnd = 0;
    this.progressMs = 0;
    this.total = 0;
    this.done = 0;
    this.hardTimer = null;
  }
  /** Starts the clock: new iterations until `regularMs`, running ones interrupted `graceMs` later. */
  begin(regularMs, graceMs) {
    this.startTime = Date.now();
    this.regEnd = this.startTime + regularMs;
    this.hardTimer = setTimeout(() => {
      for (const vu of this.running) vu.interrupt();
    }, regularMs + graceMs);
  }
  canStart() {
    return !this.test.stopped && Date.now() < this.regEnd;
  }
  end() {
    clearTimeout(this.hardTimer);
  }
  /** exec.scenario's progress: elapsed time over the duration, or iterations done over planned. */
  progress() {
    return this.total > 0 ? Math.min(1, this.done / this.total) : 0;
  }
  async iterate(vu) {
    const r = await this.test.iterate(vu, this);
    this.done++;
    return r;
  }
  dropped(n) {
    if (n > 0 && !this.test.stopped) this.test.emitMain('dropped_iterations', 'counter', 'default', n, { scenario: this.name });
  }
}

async function sharedIterations(sc) {
  const { test, cfg } = sc;
  const vus = test.tuple.scale(cfg.vus ?? 1);
  const byVUs = test.tuple.fromValue(cfg.vus ?? 1);
  const total = byVUs ? byVUs.scale(cfg.iterations ?? 1) : 0;
  if (!vus || !total) return;
  sc.iterIndex = new SegmentedIndex(byVUs);
  sc.total = total;
  const pool = await test.acquire(vus);
  sc.begin(ms(cfg.maxDuration, 600_000), ms(cfg.gracefulStop, 30_000));
  let attempted = 0;
  await Promise.all(
    pool.map(async (vu) => {
      while (sc.canStart() && !vu.dead && attempted < total) {
        attempted++;
        await sc.iterate(vu);
      }
    }),
  );
  sc.end();
  test.release(pool);
  sc.dropped(total - attempted);
}

async function perVUIterations(sc) {
  const { test, cfg } = sc;
  const vus = test.tuple.scale(cfg.vus ?? 1);
  const each = cfg.iterations ?? 1;
  if (!vus) return;
  sc.total = vus * each;
  const pool = await test.acquire(vus);
  sc.begin(ms(cfg.maxDuration, 600_000), ms(cfg.gracefulStop, 30_000));
  let attempted = 0;
  await Promise.all(
    pool.map(async (vu) => {
      for (let i = 0; i < each && sc.canStart() && !vu.dead; i++) {
        attempted++;
        await sc.iterate(vu);
      }
    }),
  );
  sc.end();
  test.release(pool);
  sc.dropped(sc.total - attempted);
}

async function constantVUs(sc) {
  const { test, cfg } = sc;
  const vus = test.tuple.scale(cfg.vus ?? 1);
  if (!vus) return;
  const pool = await test.acquire(vus);
  sc.progressMs = ms(cfg.duration, 0);
  sc.begin(sc.progressMs, ms(cfg.gracefulStop, 30_000));
  await Promise.all(
    pool.map(async (vu) => {
      while (sc.canStart() && !vu.dead) await sc.iterate(vu);
    }),
  );
  sc.end();
  test.release(pool);
}

/** The value of linear stages at `t` ms after their start (from `start`). */
function stageValue(start, stages, t) {
  let from = start;
  let at = 0;
  for (const st of stages) {
    const d = ms(st.duration, 0);
    const to = st.target ?? 0;
    if (t < at + d) return { value: from + ((to - from) * (t - at)) / d, rising: to >= from };
    at += d;
    from = to;
  }
  return { value: from, rising: false };
}

async function rampingVUs(sc) {
  const { test, cfg } = sc;
  const stages = cfg.stages ?? [];
  const total = stages.reduce((s, st) => s + ms(st.duration, 0), 0);
  const start = cfg.startVUs ?? 1;
  const max = test.tuple.scale(Math.max(start, ...stages.map((s) => s.target ?? 0)));
  if (!max) return;
  const pool = await test.acquire(max, { activate: false });
  sc.progressMs = total;
  sc.begin(total, ms(cfg.gracefulStop, 30_000));
  let active = 0;
  const target = () => {
    const { value, rising } = stageValue(start, stages, Date.now() - sc.startTime);
    return test.tuple.scale(rising ? Math.floor(value) : Math.ceil(value));
  };
  const controller = setInterval(() => {
    const n = sc.canStart() ? target() : 0;
    test.activate(n - active);
    active = n;
  }, 20);
  await Promise.all(
    pool.map(async (vu, i) => {
      while (sc.canStart() && !vu.dead) {
        if (i < target()) await sc.iterate(vu);
        else await test.sleepUntil(Math.min(Date.now() + 20, sc.regEnd));
      }
    }),
  );
  clearInterval(controller);
  test.activate(-active);
  sc.end();
  test.release(pool, { deactivate: false });
}

/**
 * The arrival-rate executors: `startAt(i)` is when the whole test's iteration i starts (ms after
 * the scenario's start, Infinity past its end); this instance starts its striped share of them.
 */
async function arrivalRate(sc, regularMs, startAt) {
  const { test, cfg } = sc;
  const pre = test.tuple.scale(cfg.preAllocatedVUs ?? 0);
  const max = test.tuple.scale(cfg.maxVUs ?? cfg.preAllocatedVUs ?? 0);
  const byMax = test.tuple.fromValue(cfg.maxVUs ?? cfg.preAllocatedVUs ?? 0);
  if (!max || !byMax) return;
  sc.iterIndex = new SegmentedIndex(byMax);
  const { start, gaps } = byMax.striped();
  const free = await test.acquire(pre);
  const all = [...free];
  let unplanned = max - pre;
  let initializing = false;
  let warned = false;
  const inflight = new Set();
  sc.progressMs = regularMs;
  sc.begin(regularMs, ms(cfg.gracefulStop, 30_000));
  for (let li = 0, gi = start; ; gi += gaps[li % gaps.length], li++) {
    const at = sc.startTime + startAt(gi);
    if (!(at < sc.regEnd)) break;
    await test.sleepUntil(at);
    if (!sc.canStart()) break;
    const vu = free.pop();
    if (!vu) {
      sc.dropped(1);
      if (unplanned > 0 && !initializing) {
        unplanned--;
        initializing = true;
        test.unplannedVU().then((v) => {
          initializing = false;
          if (!v) return;
          all.push(v);
          free.push(v);
        });
      } else if (unplanned === 0 && !warned) {
        warned = true;
        test.log('warn', `Insufficient VUs, reached ${max} active VUs and cannot initialize more`);
      }
      continue;
    }
    const p = sc.iterate(vu).then(() => {
      if (!vu.dead) free.push(vu);
      inflight.delete(p);
    });
    inflight.add(p);
  }
  // k6's executor returns when its duration is over, not at its last start.
  await test.sleepUntil(sc.regEnd);
  await Promise.all(inflight);
  sc.end();
  while (initializing) await new Promise((r) => setTimeout(r, 10));
  test.release(all);
}

function constantArrivalRate(sc) {
  const period = ms(sc.cfg.timeUnit, 1000) / sc.cfg.rate;
  return arrivalRate(sc, ms(sc.cfg.duration, 0), (i) => i * period);
}

function rampingArrivalRate(sc) {
  const unit = ms(sc.cfg.timeUnit, 1000);
  const stages = (sc.cfg.stages ?? []).map((st) => ({ ms: ms(st.duration, 0), to: (st.target ?? 0) / unit }));
  const total = stages.reduce((s, st) => s + st.ms, 0);
  // Time at which the cumulative count of started iterations reaches i (the rate is linear within a stage).
  const startAt = (i) => {
    let from = (sc.cfg.startRate ?? 0) / unit;
    let at = 0;
    let count = 0;
    for (const st of stages) {
      const inStage = st.ms * (from + st.to) / 2;
      if (count + inStage > i) {
        const need = i - count;
        const a = (st.to - from) / (2 * st.ms);
        const t = Math.abs(a) < 1e-15 ? need / from : (-from + Math.sqrt(from * from + 4 * a * need)) / (2 * a);
        return at + t;
      }
      count += inStage;
      at += st.ms;
      from = st.to;
    }
    return Infinity;
  };
  return arrivalRate(sc, total, startAt);
}

const EXECUTORS = {
  'shared-iterations': sharedIterations,
  'per-vu-iterations': perVUIterations,
  'constant-vus': constantVUs,
  'ramping-vus': rampingVUs,
  'constant-arrival-rate': constantArrivalRate,
  'ramping-arrival-rate': rampingArrivalRate,
};

export function runScenario(sc) {
  return EXECUTORS[sc.cfg.executor](sc);
}
