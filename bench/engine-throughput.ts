/**
 * Throughput: paystorm's closed-model engine, recording the full history to a
 * file (and metrics), against autocannon at the same connection count, no
 * pipelining, on a one-worker nginx returning a fixed JSON payment. Beside them
 * by default: paystorm with the main-thread history writer, and paystorm's
 * transport with no record at all (the undici floor); undici's plain request()
 * loop on request (`--contenders`). Contenders run interleaved, each in a fresh
 * process, and the median ratio is printed.
 *
 *   node --import tsx bench/engine-throughput.ts [--rounds 5] [--requests 100000] [--connections 10] [--offload 1] [--settle-ms 2000]
 *   node --import tsx bench/engine-throughput.ts --contenders paystorm,paystorm-live-judge   (the live judge's cost)
 *   node --import tsx bench/engine-throughput.ts --contenders paystorm,paystorm-live-judge,paystorm-live-judge-unyielding,paystorm-beside-idle-spinner
 *
 * paystorm-live-judge is the judge as `paystorm run` starts it: it holds off while the load
 * saturates the engine's event loop (src/cli/live/load-pacer.ts) and catches up after;
 * paystorm-live-judge-unyielding judges as it goes regardless (as under --abort-on-violation);
 * paystorm-beside-idle-spinner runs the engine beside another process that spins at the lowest
 * priority there is (SCHED_IDLE, else nice 19): what any work on the other core costs the load.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { HttpTransport, makeKeySecrets } from '../src/client/index.ts';
import { RunClock, runScenarios } from '../src/engine/index.ts';
import { MetricsAggregator } from '../src/history/metrics.ts';
import { HistoryWriter } from '../src/history/index.ts';
import { parseKeyArg } from '../src/spec/index.ts';
import { BENCH_KEY, PAY_ID, SteadyRate, arg, fmt, median, runChild, startNginx } from './engine-lib.ts';
import { BENCH_HISTORY_FILE } from './engine-lib.ts';
import { LiveJudge } from '../src/cli/live/live-judge.ts';

const SELF = fileURLToPath(import.meta.url);
type Contender = 'autocannon' | 'paystorm' | 'paystorm-live-judge' | 'paystorm-live-judge-unyielding' | 'paystorm-beside-idle-spinner' | 'paystorm-main-thread' | 'undici-request' | 'undici-dispatch';
interface ChildResult {
  contender: Contender;
  rps: number;
  responses: number;
  cpuUs: number;
  /** The system (kernel) part of cpuUs. */
  sysUs: number;
  /** The main thread's part of cpuUs. */
  mainUs: number;
  historyBytes?: number;
  /** The live judge's verdict came this long after the load ended (ms). */
  verdictAfterMs?: number;
  /** The share of the steady window the yielding live judge was held (0…1). */
  heldShare?: number;
}

async function autocannonRun(url: string, connections: number, n: number): Promise<ChildResult> {
  const rate = new SteadyRate(n);
  await new Promise<void>((resolve, reject) => {
    const inst = autocannon(
      { url: `${url}/v1/payments/${PAY_ID}`, connections, amount: n, pipelining: 1, headers: { authorization: `Bearer ${BENCH_KEY}`, accept: 'application/json' } },
      (err) => (err ? reject(err) : resolve()),
    );
    inst.on('response', () => rate.tick());
  });
  return { contender: 'autocannon', rps: rate.rps(), responses: rate.responses, cpuUs: rate.cpuPerResponseUs(), sysUs: rate.cpuSplitUs().system, mainUs: rate.mainThreadPerResponseUs() };
}

async function undiciRequestRun(url: string, connections: number, n: number): Promise<ChildResult> {
  const rate = new SteadyRate(n);
  const pool = new Pool(url, { connections, pipelining: 1 });
  let left = n;
  const loop = async () => {
    while (left-- > 0) {
      const res = await pool.request({ path: `/v1/payments/${PAY_ID}`, method: 'GET', headers: { authorization: `Bearer ${BENCH_KEY}`, accept: 'application/json' } });
      await res.body.text();
      rate.tick();
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  await pool.close();
  return { contender: 'undici-request', rps: rate.rps(), responses: rate.responses, cpuUs: rate.cpuPerResponseUs(), sysUs: rate.cpuSplitUs().system, mainUs: rate.mainThreadPerResponseUs() };
}

/** The transport paystorm uses, with no record at all: the floor of the undici path. */
async function undiciDispatchRun(url: string, connections: number, n: number): Promise<ChildResult> {
  const rate = new SteadyRate(n);
  const t = new HttpTransport({ connections });
  const headers = ['authorization', `Bearer ${BENCH_KEY}`, 'accept', 'application/json'];
  let left = n;
  const one = () =>
    new Promise<void>((resolve) =>
      t.send({ origin: url, method: 'GET', path: `/v1/payments/${PAY_ID}`, headers, body: null, timeoutMs: 30_000 }, () => {
        rate.tick();
        resolve();
      }),
    );
  const loop = async () => {
    while (left-- > 0) await one();
  };
  await Promise.all(Array.from({ length: connections }, loop));
  await t.close();
  return { contender: 'undici-dispatch', rps: rate.rps(), responses: rate.responses, cpuUs: rate.cpuPerResponseUs(), sysUs: rate.cpuSplitUs().system, mainUs: rate.mainThreadPerResponseUs() };
}

/** A process spinning on a core at the lowest priority there is (SCHED_IDLE where chrt is, else nice 19). */
function idleSpinner(): ChildProcess {
  const spin = ['-e', 'for (;;) {}'];
  const chrt = spawnSync('chrt', ['--idle', '0', 'true']).status === 0;
  return chrt ? spawn('chrt', ['--idle', '0', process.execPath, ...spin], { stdio: 'ignore' }) : spawn('nice', ['-n', '19', process.execPath, ...spin], { stdio: 'ignore' });
}

interface PaystormOptions {
  offload?: boolean;
  /** The live judge: none, as a run starts it (yielding to a saturated load), or judging as it goes. */
  liveJudge?: 'none' | 'yielding' | 'unyielding';
  /** An idle-priority spinner in another process during the load. */
  spinner?: boolean;
}

async function paystormRun(url: string, connections: number, n: number, o: PaystormOptions = {}): Promise<ChildResult> {
  const offload = o.offload ?? arg('offload', '1') === '1';
  const liveJudge = (o.liveJudge ?? 'none') !== 'none';
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-bench-'));
  const path = join(dir, BENCH_HISTORY_FILE);
  const writer = HistoryWriter.open(path, { offload });
  // As `paystorm run` judges: the oracle on its own thread, following the file as it is written.
  /** When the yielding judge was held and let go (performance.now() ms). */
  const holds: { t: number; held: boolean }[] = [];
  const judge = liveJudge ? new LiveJudge(path, { thresholds: [], scenarioThresholds: {} }, { onHold: (held) => holds.push({ t: performance.now(), held }) }, { yieldToLoad: o.liveJudge === 'yielding' }) : null;
  const spinner = o.spinner ? idleSpinner() : null;
  // As in a run, the thread has started before the load does (a run starts it before the target).
  await judge?.ready;
  const rate = new SteadyRate(n);
  writer.subscribe((r) => {
    if (r.kind === 'exchange') rate.tick();
  });
  const outcome = await runScenarios({
    scenarios: [
      {
        name: 'throughput',
        description: 'closed-model retrieve loop',
        rules: [],
        async run(ctx) {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute({ executor: 'per-vu-iterations', vus: connections, iterations: Math.ceil(n / connections), maxDurationMs: 600_000 }, async () => {
            await c.retrieve(PAY_ID);
          });
        },
      },
    ],
    target: { url, embedded: false, presentation: 'B', rateLimit: null },
    keys: makeKeySecrets([parseKeyArg(`bench:${BENCH_KEY}`)]),
    cards: {},
    clock: new RunClock(),
    writer,
    metrics: new MetricsAggregator(),
    caps: { maxRequests: n, maxDurationMs: 600_000 },
    seed: 1,
    timeScale: 1,
    log: () => {},
  });
  spinner?.kill();
  await writer.close();
  // The verdict comes after the load (not timed in the rate): the judge must have read every record.
  let verdictAfterMs: number | undefined;
  if (judge) {
    const loadEnded = performance.now();
    const summary = await judge.close(false);
    verdictAfterMs = performance.now() - loadEnded;
    if ((summary.metrics as { requests?: number }).requests !== n) throw new Error(`the live judge read ${String((summary.metrics as { requests?: number }).requests)} requests, expected ${n}`);
  }
  const historyBytes = statSync(path).size;
  rmSync(dir, { recursive: true, force: true });
  if (outcome.requests !== n) throw new Error(`paystorm sent ${outcome.requests}, expected ${n}`);
  const contender: Contender = o.liveJudge === 'yielding' ? 'paystorm-live-judge' : o.liveJudge === 'unyielding' ? 'paystorm-live-judge-unyielding' : o.spinner ? 'paystorm-beside-idle-spinner' : offload ? 'paystorm' : 'paystorm-main-thread';
  const heldShare = o.liveJudge === 'yielding' ? heldShareOf(holds, rate.steadyWindow()) : undefined;
  return { contender, rps: rate.rps(), responses: rate.responses, cpuUs: rate.cpuPerResponseUs(), sysUs: rate.cpuSplitUs().system, mainUs: rate.mainThreadPerResponseUs(), historyBytes, ...(verdictAfterMs !== undefined ? { verdictAfterMs } : {}), ...(heldShare !== undefined ? { heldShare } : {}) };
}

/** The share of [from, to] the judge was held, from its hold changes in time order. */
function heldShareOf(holds: readonly { t: number; held: boolean }[], [from, to]: [number, number]): number {
  let held = false;
  let since = from;
  let total = 0;
  for (const h of holds) {
    const t = Math.min(Math.max(h.t, from), to);
    if (held) total += t - since;
    held = h.held;
    since = t;
  }
  if (held) total += to - since;
  return to > from ? total / (to - from) : 0;
}

async function child(): Promise<void> {
  const contender = arg('contender') as Contender;
  const url = arg('url');
  const connections = Number(arg('connections'));
  const n = Number(arg('requests'));
  const warm = Math.max(connections, Math.floor(n / 10));
  const fn = {
    autocannon: autocannonRun,
    paystorm: (u: string, c: number, k: number) => paystormRun(u, c, k),
    'paystorm-live-judge': (u: string, c: number, k: number) => paystormRun(u, c, k, { offload: true, liveJudge: 'yielding' }),
    'paystorm-live-judge-unyielding': (u: string, c: number, k: number) => paystormRun(u, c, k, { offload: true, liveJudge: 'unyielding' }),
    'paystorm-beside-idle-spinner': (u: string, c: number, k: number) => paystormRun(u, c, k, { offload: true, spinner: true }),
    'paystorm-main-thread': (u: string, c: number, k: number) => paystormRun(u, c, k, { offload: false }),
    'undici-request': undiciRequestRun,
    'undici-dispatch': undiciDispatchRun,
  }[contender];
  await fn(url, connections, warm); // JIT warm-up, same share for every contender
  // The warm-up's threads (a live judge's isolate) are let go before the timed run, alike for every contender.
  await new Promise((resolve) => setTimeout(resolve, Number(arg('settle-ms', '2000'))));
  const r = await fn(url, connections, n);
  process.stdout.write(JSON.stringify(r) + '\n');
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const n = Number(arg('requests', '100000'));
  const connections = Number(arg('connections', '10'));
  const contenders = (arg('contenders', 'autocannon,paystorm,paystorm-main-thread,undici-dispatch').split(',') as Contender[]);
  const nginx = await startNginx();
  const results: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  const ratios: Record<string, number[]> = {};
  try {
    console.log(`throughput: nginx (1 worker) at ${nginx.url}, ${connections} connections, no pipelining, ${n} requests per run, ${rounds} rounds interleaved`);
    for (let round = 1; round <= rounds; round++) {
      const line: string[] = [];
      const rps: Record<string, number> = {};
      // Alternate the order each round so neither contender always runs first.
      const order = round % 2 ? contenders : [...contenders].reverse();
      for (const c of order) {
        const r = await runChild<ChildResult>(SELF, ['--child', '--contender', c, '--url', nginx.url, '--connections', String(connections), '--requests', String(n), '--offload', arg('offload', '1'), '--settle-ms', arg('settle-ms', '2000')]);
        rps[c] = r.rps;
        (results[c] ??= []).push(r.rps);
        (cpu[c] ??= []).push(r.cpuUs);
        line.push(`${c} ${Math.round(r.rps)}/s ${fmt(r.cpuUs, 1)} µs cpu/req (${fmt(r.sysUs, 1)} sys, ${fmt(r.mainUs, 1)} main thread)${r.historyBytes ? ` (history ${(r.historyBytes / 1e6).toFixed(1)} MB, ${(r.historyBytes / r.responses).toFixed(0)} B/request)` : ''}${r.verdictAfterMs !== undefined ? ` (verdict ${fmt(r.verdictAfterMs / 1000, 2)} s after the load)` : ''}${r.heldShare !== undefined ? ` (judge held ${Math.round(100 * r.heldShare)}% of the steady window)` : ''}`);
      }
      for (const c of contenders) if (c !== 'autocannon' && rps.autocannon) (ratios[c] ??= []).push(rps[c] / rps.autocannon);
      // The live judge's cost: the same engine with the judge following its history, against without.
      for (const c of ['paystorm-live-judge', 'paystorm-live-judge-unyielding', 'paystorm-beside-idle-spinner'] as const) if (rps[c] && rps.paystorm) (ratios[`${c} / paystorm`] ??= []).push(rps[c] / rps.paystorm);
      console.log(`round ${round}: ${line.join(', ')}`);
    }
  } finally {
    await nginx.stop();
  }
  console.log('');
  for (const c of contenders) console.log(`median ${c}: ${Math.round(median(results[c]))} req/s, ${fmt(median(cpu[c]), 1)} µs CPU per request`);
  for (const [c, xs] of Object.entries(ratios)) console.log(`median ratio ${c.includes(' / ') ? c : `${c} / autocannon`}: ${fmt(median(xs))}x  (rounds: ${xs.map((x) => fmt(x)).join(', ')})`);
}

if (process.argv.includes('--child')) await child();
else await main();
