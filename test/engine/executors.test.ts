import { afterEach, describe, expect, it } from 'vitest';
import { makeKeySecrets } from '../../src/client/index.ts';
import { RunClock, arrivalSchedule, runExecutor, runScenarios, type RunScenariosOptions } from '../../src/engine/index.ts';
import { MetricsAggregator, decodeHistogram } from '../../src/history/metrics.ts';
import { HistoryWriter } from '../../src/history/index.ts';
import { parseKeyArg, type Scenario, type ScenarioContext } from '../../src/spec/index.ts';
import { type EndRecord, type ExchangeRecord, type HistoryRecord } from '../../src/history/index.ts';
import { PAY_ID, paymentB, sendJson, startStub, type Stub } from './stub.ts';

const KEYS = makeKeySecrets([parseKeyArg('m1:svc_test_sk_execTESTkey0001'), parseKeyArg('m2:svc_test_sk_execTESTkey0002')]);
let stub: Stub | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

function scenario(name: string, run: (ctx: ScenarioContext) => Promise<void>): Scenario {
  return { name, description: name, rules: [], run };
}

async function run(url: string, scenarios: Scenario[], extra: Partial<RunScenariosOptions> = {}) {
  const records: HistoryRecord[] = [];
  const writer = HistoryWriter.memory(records);
  const metrics = new MetricsAggregator();
  const outcome = await runScenarios({
    scenarios,
    target: { url, embedded: false, presentation: 'B', rateLimit: null },
    keys: KEYS,
    cards: {},
    clock: new RunClock(),
    writer,
    caps: { maxRequests: 100_000, maxDurationMs: 60_000 },
    seed: 7,
    timeScale: 1,
    metrics,
    log: () => {},
    ...extra,
  });
  const exchanges = records.filter((r): r is ExchangeRecord => r.kind === 'exchange');
  const end = records.find((r): r is EndRecord => r.kind === 'end')!;
  return { outcome, records, exchanges, end, metrics };
}

const okStub = () => startStub((_req, res) => sendJson(res, 200, paymentB(PAY_ID, 'succeeded')));

describe('open model: coordinated omission', () => {
  it('measures an iteration that starts late from its intended start', async () => {
    stub = await okStub();
    const blockMs = 150;
    const { exchanges, metrics } = await run(stub.url, [
      scenario('late', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        await ctx.execute({ executor: 'constant-arrival-rate', rate: 100, durationMs: 600, maxInFlight: 100 }, async (_vu, i) => {
          // The load generator itself stalls (as in a GC pause): iterations due meanwhile start late.
          if (i === 5) {
            const until = performance.now() + blockMs;
            while (performance.now() < until) {
              /* busy */
            }
          }
          await c.retrieve(PAY_ID);
        });
      }),
    ]);
    expect(exchanges.length).toBe(60);
    const late = exchanges.filter((r) => r.tStart - r.tIntended > 50);
    // About blockMs/10 ms iterations were due during the stall; they start late but keep their schedule.
    expect(late.length).toBeGreaterThanOrEqual(5);
    for (const r of exchanges) expect(r.tIntended).toBeLessThanOrEqual(r.tStart);
    const worst = late.reduce((a, b) => (b.tStart - b.tIntended > a.tStart - a.tIntended ? b : a));
    expect(worst.tStart - worst.tIntended).toBeGreaterThan(blockMs / 2);
    // The recorded latency (HDR, from tIntended) includes the wait, not just the service time.
    const h = decodeHistogram(metrics.snapshot().latency.retrieve['2xx'].hdr);
    expect(h.maxValue / 1000).toBeGreaterThanOrEqual(worst.tEnd - worst.tIntended - 1);
    expect(h.maxValue / 1000).toBeGreaterThan(worst.tEnd - worst.tStart);
    // Intended starts are evenly spaced by the schedule (10 ms), whatever the stall.
    const intended = exchanges.map((r) => r.tIntended).sort((a, b) => a - b);
    for (let i = 1; i < intended.length; i++) expect(intended[i] - intended[i - 1]).toBeCloseTo(10, 2);
  });

  it('takes tIntended passed explicitly by the iteration', async () => {
    stub = await okStub();
    const { exchanges } = await run(stub.url, [
      scenario('explicit', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        await ctx.execute({ executor: 'constant-arrival-rate', rate: 20, durationMs: 200, maxInFlight: 4 }, async (_vu, _i, tIntended) => {
          await new Promise((r) => setTimeout(r, 20)); // first request after an await: the automatic hand-over cannot apply
          await c.retrieve(PAY_ID, { tIntended });
        });
      }),
    ]);
    expect(exchanges.length).toBe(4);
    for (const r of exchanges) expect(r.tStart - r.tIntended).toBeGreaterThanOrEqual(15);
  });

  it('counts iterations that find no free slot as dropped, never skipping silently', async () => {
    stub = await startStub((_req, res) => setTimeout(() => sendJson(res, 200, paymentB(PAY_ID)), 300));
    const { outcome, exchanges, end, metrics } = await run(stub.url, [
      scenario('drop', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        const r = await ctx.execute({ executor: 'constant-arrival-rate', rate: 50, durationMs: 1000, maxInFlight: 2 }, async () => {
          await c.retrieve(PAY_ID);
        });
        expect(r.iterations + r.dropped).toBe(50);
        expect(r.dropped).toBeGreaterThan(30);
      }),
    ]);
    expect(outcome.dropped).toBe(50 - exchanges.length);
    expect(end.dropped).toBe(outcome.dropped);
    expect(metrics.snapshot().dropped).toBe(outcome.dropped);
  });
});

describe('several keys at once', () => {
  it('runs one schedule per key concurrently, each iteration measured from its own intended start', async () => {
    stub = await okStub();
    const { exchanges } = await run(stub.url, [
      scenario('two-keys', async (ctx) => {
        const [a, b] = ctx.keys.map((k) => ctx.client(k));
        await Promise.all([
          ctx.execute({ executor: 'constant-arrival-rate', rate: 40, durationMs: 500, maxInFlight: 10 }, async () => void (await a.retrieve(PAY_ID))),
          ctx.execute({ executor: 'constant-arrival-rate', rate: 10, durationMs: 500, maxInFlight: 10 }, async () => void (await b.list({ limit: 1 }))),
        ]);
      }),
    ]);
    const byKey = (label: string) => exchanges.filter((r) => r.key === label);
    expect(byKey(KEYS[0].handle.label).length).toBe(20);
    expect(byKey(KEYS[1].handle.label).length).toBe(5);
    expect(byKey(KEYS[0].handle.label).every((r) => r.op === 'retrieve')).toBe(true);
    expect(byKey(KEYS[1].handle.label).every((r) => r.op === 'list')).toBe(true);
    // Each schedule keeps its own spacing: 25 ms for one key, 100 ms for the other.
    const gaps = (label: string) => {
      const t = byKey(label).map((r) => r.tIntended).sort((x, y) => x - y);
      return t.slice(1).map((x, i) => x - t[i]);
    };
    for (const g of gaps(KEYS[0].handle.label)) expect(g).toBeCloseTo(25, 1);
    for (const g of gaps(KEYS[1].handle.label)) expect(g).toBeCloseTo(100, 1);
  });
});

describe('arrival schedule', () => {
  it('spaces a constant rate evenly and ends at the duration', () => {
    const due = arrivalSchedule({ executor: 'constant-arrival-rate', rate: 4, durationMs: 1000, maxInFlight: 1 });
    expect([0, 1, 2, 3].map(due)).toEqual([0, 250, 500, 750]);
    expect(due(4)).toBeNull();
  });

  it('follows ramping stages: the count due by each stage end is the area under the rate', () => {
    const due = arrivalSchedule({
      executor: 'ramping-arrival-rate',
      startRate: 0,
      stages: [
        { target: 100, durationMs: 1000 }, // 50 iterations
        { target: 100, durationMs: 1000 }, // 100
        { target: 0, durationMs: 2000 }, // 100
      ],
      maxInFlight: 1,
    });
    const times: number[] = [];
    for (let n = 0; ; n++) {
      const t = due(n);
      if (t === null) break;
      times.push(t);
    }
    expect(times.length).toBe(250);
    const inRange = (a: number, b: number) => times.filter((t) => t >= a && t < b).length;
    expect(inRange(0, 1000)).toBe(50);
    expect(inRange(1000, 2000)).toBe(100);
    expect(inRange(2000, 4000)).toBe(100);
    // Rising rate: the second half of the ramp holds three times the first.
    expect(inRange(500, 1000)).toBeCloseTo(3 * inRange(0, 500), -1);
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]);
  });

  it('runs a ramping executor roughly along its stages', async () => {
    stub = await okStub();
    const starts: number[] = [];
    await run(stub.url, [
      scenario('ramp', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        const t0 = ctx.now();
        const r = await ctx.execute(
          { executor: 'ramping-arrival-rate', startRate: 20, stages: [{ target: 20, durationMs: 500 }, { target: 200, durationMs: 500 }], maxInFlight: 50 },
          async (_vu, _i, tIntended) => {
            starts.push(tIntended - t0);
            await c.retrieve(PAY_ID);
          },
        );
        expect(r.iterations + r.dropped).toBe(10 + 55);
      }),
    ]);
    const first = starts.filter((t) => t < 500).length;
    const second = starts.filter((t) => t >= 500).length;
    expect(first).toBe(10);
    expect(second).toBeGreaterThan(3 * first);
  });
});

describe('closed model', () => {
  it('per-vu-iterations runs exactly vus x iterations, each VU counting its own', async () => {
    stub = await okStub();
    const seen = new Map<number, number[]>();
    const { exchanges } = await run(stub.url, [
      scenario('pvu', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        const r = await ctx.execute({ executor: 'per-vu-iterations', vus: 3, iterations: 7, maxDurationMs: 20_000 }, async (vu, i) => {
          seen.set(vu, [...(seen.get(vu) ?? []), i]);
          await c.retrieve(PAY_ID);
        });
        expect(r).toEqual({ iterations: 21, dropped: 0, errors: 0, stoppedBy: 'done' });
      }),
    ]);
    expect(exchanges.length).toBe(21);
    expect([...seen.keys()].sort()).toEqual([0, 1, 2]);
    for (const list of seen.values()) expect(list).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // Closed model: each request is measured from its own start.
    for (const r of exchanges) expect(r.tIntended).toBe(r.tStart);
  });

  it('constant-vus keeps at most vus iterations in flight and ends by its duration', async () => {
    let inFlight = 0;
    let peak = 0;
    stub = await startStub((_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        sendJson(res, 200, paymentB(PAY_ID));
      }, 5);
    });
    await run(stub.url, [
      scenario('cvu', async (ctx) => {
        const c = ctx.client(ctx.keys[0]);
        const r = await ctx.execute({ executor: 'constant-vus', vus: 4, durationMs: 300 }, async () => {
          await c.retrieve(PAY_ID);
        });
        expect(r.stoppedBy).toBe('done');
        expect(r.iterations).toBeGreaterThan(4);
      }),
    ]);
    expect(peak).toBeLessThanOrEqual(4);
    expect(peak).toBeGreaterThan(1);
  });

  it('counts iterations that throw as errors and goes on', async () => {
    stub = await okStub();
    const errors: unknown[] = [];
    const r = await runExecutor(
      { executor: 'per-vu-iterations', vus: 2, iterations: 5, maxDurationMs: 5000 },
      async (_vu, i) => {
        if (i % 2 === 0) throw new Error('boom');
      },
      { clock: new RunClock(), signal: new AbortController().signal, onIterationError: (e) => errors.push(e) },
    );
    expect(r).toEqual({ iterations: 10, dropped: 0, errors: 6, stoppedBy: 'done' });
    expect(errors.length).toBe(6);
  });

  it('refuses an executor spec that could never end or is nonsense', async () => {
    const env = { clock: new RunClock(), signal: new AbortController().signal };
    await expect(runExecutor({ executor: 'constant-vus', vus: 1, durationMs: Infinity }, async () => {}, env)).rejects.toThrow(/durationMs/);
    await expect(runExecutor({ executor: 'constant-arrival-rate', rate: 0, durationMs: 10, maxInFlight: 1 }, async () => {}, env)).rejects.toThrow(/rate/);
  });
});

describe('hard caps stop a runaway run', () => {
  it('stops a constant-vus run of an hour at max requests', async () => {
    stub = await okStub();
    const { outcome, exchanges, end } = await run(
      stub.url,
      [
        scenario('runaway', async (ctx) => {
          const c = ctx.client(ctx.keys[0]);
          const r = await ctx.execute({ executor: 'constant-vus', vus: 8, durationMs: 3_600_000 }, async () => {
            await c.retrieve(PAY_ID);
          });
          expect(r.stoppedBy).toBe('cap');
        }),
        scenario('never-runs', async () => {
          throw new Error('a stopped run must not start the next scenario');
        }),
      ],
      { caps: { maxRequests: 300, maxDurationMs: 60_000 } },
    );
    expect(exchanges.length).toBe(300);
    expect(outcome).toMatchObject({ complete: false, reason: 'cap:max-requests', requests: 300 });
    expect(end).toMatchObject({ complete: false, reason: 'cap:max-requests', requests: 300 });
  });

  it('stops a run at max duration, even when the scenario loops on its own', async () => {
    stub = await okStub();
    const started = performance.now();
    const { outcome, end, exchanges } = await run(
      stub.url,
      [
        scenario('loop', async (ctx) => {
          const c = ctx.client(ctx.keys[0]);
          for (;;) await c.retrieve(PAY_ID); // ends only when the client refuses (run stopped)
        }),
      ],
      { caps: { maxRequests: 10_000_000, maxDurationMs: 400 } },
    );
    expect(outcome.reason).toBe('cap:max-duration');
    expect(end.complete).toBe(false);
    expect(exchanges.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('gives up on a scenario stuck in a wait that ignores the signal, after a grace period', async () => {
    stub = await okStub();
    const { outcome, end } = await run(
      stub.url,
      [
        scenario('stuck', async () => {
          await new Promise(() => {}); // never settles
        }),
      ],
      { caps: { maxRequests: 10, maxDurationMs: 200 }, timeoutMs: 100 },
    );
    expect(outcome.reason).toBe('cap:max-duration');
    expect(end.kind).toBe('end');
  });

  it('stops on an external interrupt', async () => {
    stub = await okStub();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const { outcome } = await run(
      stub.url,
      [
        scenario('interrupted', async (ctx) => {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute({ executor: 'constant-arrival-rate', rate: 50, durationMs: 3_600_000, maxInFlight: 10 }, async () => {
            await c.retrieve(PAY_ID);
          });
        }),
      ],
      { signal: ac.signal },
    );
    expect(outcome).toMatchObject({ complete: false, reason: 'interrupted' });
  });
});

describe('scenario context', () => {
  it('gives each scenario a seeded random independent of the scenario order', async () => {
    stub = await okStub();
    const draws: Record<string, number[]> = {};
    const s = (name: string) =>
      scenario(name, async (ctx) => {
        draws[`${name}@${Object.keys(draws).length}`] = [ctx.random(), ctx.random()];
      });
    await run(stub.url, [s('a'), s('b')]);
    await run(stub.url, [s('b'), s('a')]);
    expect(draws['a@0']).toEqual(draws['a@3']);
    expect(draws['b@1']).toEqual(draws['b@2']);
    expect(draws['a@0']).not.toEqual(draws['b@1']);
  });

  it("runs a scenario's fault schedule beside it and closes it when the scenario ends; extra faults span the run", async () => {
    stub = await okStub();
    const events: string[] = [];
    const chaos = {
      runSchedule: (steps: readonly { proxy: string }[], signal?: AbortSignal) =>
        new Promise<void>((resolve) => {
          events.push(`start ${steps.map((s) => s.proxy).join(',')}`);
          signal!.addEventListener('abort', () => {
            events.push(`stop ${steps.map((s) => s.proxy).join(',')}`);
            resolve();
          });
        }),
    };
    const step = (proxy: string) => ({ at: 0, duration: 60_000, proxy, type: 'latency' as const, stream: 'downstream' as const, toxicity: 1, attributes: { latency: 100 } });
    await run(
      stub.url,
      [
        { ...scenario('calm', async () => void events.push('calm runs')) },
        {
          ...scenario('stormy', async (ctx) => {
            events.push('stormy runs');
            await ctx.client(ctx.keys[0]).retrieve(PAY_ID);
          }),
          faults: { schedule: [step('upstream')] },
        },
      ],
      { chaos, extraFaults: [step('client')] },
    );
    expect(events).toEqual(['start client', 'calm runs', 'start upstream', 'stormy runs', 'stop upstream', 'stop client']);
  });

  it('records a scenario that throws and marks the run incomplete', async () => {
    stub = await okStub();
    const { outcome, end } = await run(stub.url, [
      scenario('bad', async () => {
        throw new Error('broken scenario');
      }),
      scenario('good', async (ctx) => {
        await ctx.client(ctx.keys[0]).retrieve(PAY_ID);
      }),
    ]);
    expect(outcome.scenarioErrors).toEqual([{ scenario: 'bad', message: 'broken scenario' }]);
    expect(outcome.requests).toBe(1);
    expect(end.complete).toBe(false);
  });
});

describe('the end record', () => {
  it('is the last line: record sources (a webhook receiver) are stopped before it is written', async () => {
    stub = await okStub();
    const records: HistoryRecord[] = [];
    const writer = HistoryWriter.memory(records);
    // A source that keeps writing webhook-like records until stopped, as a receiver does.
    let stopped = false;
    let beforeEndCalledAfterTraffic = false;
    const source = setInterval(() => {
      if (!stopped) writer.write({ v: 1, kind: 'fault', proxy: 'p', link: 'upstream', toxic: { name: 't', type: 'latency', stream: 'downstream', toxicity: 1, attributes: {} }, tStart: 0, tEnd: 1, wallStart: 0 } as unknown as HistoryRecord);
    }, 1);
    try {
      await runScenarios({
        scenarios: [scenario('traffic', async (ctx) => void (await ctx.client(ctx.keys[0]).retrieve(PAY_ID)))],
        target: { url: stub.url, embedded: false, presentation: 'B', rateLimit: null },
        keys: KEYS,
        cards: {},
        clock: new RunClock(),
        writer,
        caps: { maxRequests: 100, maxDurationMs: 10_000 },
        seed: 1,
        timeScale: 1,
        log: () => {},
        beforeEnd: async () => {
          beforeEndCalledAfterTraffic = records.some((r) => r.kind === 'exchange');
          await new Promise((r) => setTimeout(r, 20)); // sources go on writing meanwhile
          stopped = true;
        },
      });
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      clearInterval(source);
    }
    expect(beforeEndCalledAfterTraffic).toBe(true);
    expect(records.filter((r) => r.kind === 'fault').length).toBeGreaterThan(0);
    expect(records[records.length - 1].kind).toBe('end');
  });
});

describe('the run signal', () => {
  it('takes a wait from every virtual user at once without a MaxListenersExceededWarning', async () => {
    stub = await okStub();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      await run(stub.url, [
        scenario('sleepers', async (ctx) => {
          await ctx.execute({ executor: 'per-vu-iterations', vus: 30, iterations: 1, maxDurationMs: 10_000 }, async () => {
            await ctx.sleep(50);
          });
        }),
      ]);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });
});
