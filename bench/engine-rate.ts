/**
 * Rate: an open-model run at a 2,000 req/s target rate against nginx. Bars:
 * achieved rate within 1% of the target, start-time lag (actual start minus
 * intended start) p99 under 5 ms, no dropped iteration.
 *
 *   node --import tsx bench/engine-rate.ts [--rounds 5] [--rate 2000] [--seconds 20]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeKeySecrets } from '../src/client/index.ts';
import { RunClock, runScenarios } from '../src/engine/index.ts';
import { MetricsAggregator } from '../src/history/metrics.ts';
import { HistoryWriter } from '../src/history/index.ts';
import { parseKeyArg } from '../src/spec/index.ts';
import { BENCH_KEY, PAY_ID, arg, fmt, median, runChild, startNginx } from './engine-lib.ts';
import { BENCH_HISTORY_FILE } from './engine-lib.ts';

const SELF = fileURLToPath(import.meta.url);

/** Time this process spent runnable but waiting for a CPU (Linux schedstat), ms: how much the shared machine held it back. */
function runQueueWaitMs(): number {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

interface RateResult {
  target: number;
  achieved: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  started: number;
  dropped: number;
  runQueueWaitMs: number;
  loopDelayP99Ms: number;
}

/**
 * The same schedule with no work at all: a timer loop that only notes how late each due
 * start is seen. It shows what lag the machine itself imposes at that moment.
 */
async function idleBaseline(rate: number, seconds: number): Promise<{ lagP99: number; runQueueWaitMs: number }> {
  const waited0 = runQueueWaitMs();
  const t0 = performance.now();
  const lags: number[] = [];
  let n = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (t0 + (n * 1000) / rate <= now) lags.push(now - (t0 + (n++ * 1000) / rate));
      if (now - t0 >= seconds * 1000) return resolve();
      setTimeout(tick, Math.max(0, Math.floor(t0 + (n * 1000) / rate - performance.now())));
    };
    tick();
  });
  lags.sort((a, b) => a - b);
  return { lagP99: lags[Math.ceil(0.99 * lags.length) - 1], runQueueWaitMs: runQueueWaitMs() - waited0 };
}

async function child(): Promise<void> {
  if (process.argv.includes('--idle')) {
    process.stdout.write(JSON.stringify(await idleBaseline(Number(arg('rate')), Number(arg('seconds')))) + '\n');
    return;
  }
  const url = arg('url');
  const rate = Number(arg('rate'));
  const seconds = Number(arg('seconds'));
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-rate-'));
  const writer = HistoryWriter.open(join(dir, BENCH_HISTORY_FILE), { offload: arg('offload', '1') === '1' });
  const starts: number[] = [];
  const lags: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const waited0 = runQueueWaitMs();
  const outcome = await runScenarios({
    scenarios: [
      {
        name: 'rate',
        description: 'constant arrival rate',
        rules: [],
        async run(ctx) {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute({ executor: 'constant-arrival-rate', rate, durationMs: seconds * 1000, maxInFlight: 1000 }, async () => {
            const r = await c.retrieve(PAY_ID);
            starts.push(r.record.tStart);
            lags.push(r.record.tStart - r.record.tIntended);
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
    caps: { maxRequests: 10_000_000, maxDurationMs: 600_000 },
    seed: 1,
    timeScale: 1,
    log: () => {},
  });
  const waited = runQueueWaitMs() - waited0;
  loop.disable();
  await writer.close();
  rmSync(dir, { recursive: true, force: true });
  starts.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.max(0, Math.ceil(p * xs.length) - 1))];
  // Achieved rate: starts per second over the span they cover (n starts span n-1 intervals).
  const achieved = ((starts.length - 1) * 1000) / (starts[starts.length - 1] - starts[0]);
  const r: RateResult = { target: rate, achieved, lagP50: q(lags, 0.5), lagP99: q(lags, 0.99), lagMax: lags[lags.length - 1], started: starts.length, dropped: outcome.dropped, runQueueWaitMs: waited, loopDelayP99Ms: loop.percentile(99) / 1e6 };
  process.stdout.write(JSON.stringify(r) + '\n');
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const rate = Number(arg('rate', '2000'));
  const seconds = Number(arg('seconds', '20'));
  const nginx = await startNginx();
  const results: RateResult[] = [];
  const idle: { lagP99: number; runQueueWaitMs: number }[] = [];
  try {
    console.log(`rate: constant-arrival-rate ${rate}/s for ${seconds} s against nginx (1 worker), full history to a file, ${rounds} rounds`);
    for (let round = 1; round <= rounds; round++) {
      const base = await runChild<{ lagP99: number; runQueueWaitMs: number }>(SELF, ['--child', '--idle', '--rate', String(rate), '--seconds', String(seconds)]);
      idle.push(base);
      const r = await runChild<RateResult>(SELF, ['--child', '--url', nginx.url, '--rate', String(rate), '--seconds', String(seconds), '--offload', arg('offload', '1')]);
      results.push(r);
      console.log(`round ${round}: idle schedule (no work, same rate): lag p99 ${fmt(base.lagP99, 2)} ms, waited for a CPU ${fmt(base.runQueueWaitMs, 0)} ms`);
      console.log(
        `round ${round}: achieved ${fmt(r.achieved, 1)}/s (${fmt((r.achieved / rate - 1) * 100, 2)}%), start lag p50 ${fmt(r.lagP50, 2)} ms, p99 ${fmt(r.lagP99, 2)} ms, max ${fmt(r.lagMax, 1)} ms, ${r.started} started, ${r.dropped} dropped; ` +
          `event-loop delay p99 ${fmt(r.loopDelayP99Ms, 2)} ms; waited for a CPU ${fmt(r.runQueueWaitMs, 0)} ms (machine load ${loadavg()[0].toFixed(1)})`,
      );
    }
  } finally {
    await nginx.stop();
  }
  const dev = median(results.map((r) => Math.abs(r.achieved / rate - 1) * 100));
  const lag = median(results.map((r) => r.lagP99));
  console.log('');
  console.log(`median |achieved/target - 1|: ${fmt(dev, 2)}% (bar: < 1%)  ${dev < 1 ? 'PASS' : 'FAIL'}`);
  console.log(`median start-lag p99: ${fmt(lag, 2)} ms (bar: < 5 ms)  ${lag < 5 ? 'PASS' : 'FAIL'}`);
  console.log(`median idle-schedule lag p99 on this machine meanwhile: ${fmt(median(idle.map((b) => b.lagP99)), 2)} ms (what the machine alone imposes)`);
  console.log(`dropped: ${results.map((r) => r.dropped).join(', ')}`);
}

if (process.argv.includes('--child')) await child();
else await main();
