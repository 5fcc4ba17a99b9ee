/**
 * Memory: a 1,000,000-request run (closed model, full history streamed to a
 * file, metrics aggregated) stays under 200 MB RSS. RSS is sampled every 250 ms
 * in the running process; the peak is printed. This is also the soak bound.
 *
 *   node --import tsx bench/engine-memory.ts [--requests 1000000] [--vus 10]
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeKeySecrets } from '../src/client/index.ts';
import { RunClock, runScenarios } from '../src/engine/index.ts';
import { MetricsAggregator } from '../src/history/metrics.ts';
import { HistoryWriter } from '../src/history/index.ts';
import { parseKeyArg } from '../src/spec/index.ts';
import { BENCH_KEY, PAY_ID, arg, fmt, runChild, startNginx } from './engine-lib.ts';
import { BENCH_HISTORY_FILE } from './engine-lib.ts';

const SELF = fileURLToPath(import.meta.url);
const BAR_MB = 200;

interface MemResult {
  requests: number;
  peakRssMb: number;
  endRssMb: number;
  seconds: number;
  historyMb: number;
  livePayments: number;
  /** At the peak: the main thread's V8 heap (total), external memory and array buffers, MB. */
  heapMb: number;
  externalMb: number;
}

async function child(): Promise<void> {
  const url = arg('url');
  const n = Number(arg('requests'));
  const vus = Number(arg('vus'));
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-mem-'));
  const path = join(dir, BENCH_HISTORY_FILE);
  const writer = HistoryWriter.open(path, { offload: arg('offload', '1') === '1' });
  const metrics = new MetricsAggregator();
  let peak = process.memoryUsage.rss();
  // The main thread's V8 heap and off-heap buffers at the peak: the rest of RSS is code, threads and malloc.
  let atPeak = process.memoryUsage();
  let statusAtPeak = '';
  const sampler = setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > peak) {
      peak = rss;
      atPeak = process.memoryUsage();
      if (process.env.PAYSTORM_BENCH_STATUS) statusAtPeak = readFileSync('/proc/self/status', 'latin1').split('\n').filter((l) => /^(RssAnon|RssFile|RssShmem|Threads)/.test(l)).join(' ');
    }
  }, 250);
  const t0 = performance.now();
  const outcome = await runScenarios({
    scenarios: [
      {
        name: 'memory',
        description: 'a million requests',
        rules: [],
        async run(ctx) {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute({ executor: 'per-vu-iterations', vus, iterations: Math.ceil(n / vus), maxDurationMs: 3_600_000 }, async () => {
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
    metrics,
    caps: { maxRequests: n, maxDurationMs: 3_600_000 },
    seed: 1,
    timeScale: 1,
    log: () => {},
  });
  await writer.close();
  metrics.snapshot();
  peak = Math.max(peak, process.memoryUsage.rss());
  clearInterval(sampler);
  const r: MemResult = {
    requests: outcome.requests,
    peakRssMb: peak / 1e6,
    endRssMb: process.memoryUsage.rss() / 1e6,
    seconds: (performance.now() - t0) / 1000,
    historyMb: statSync(path).size / 1e6,
    livePayments: metrics.livePayments,
    heapMb: atPeak.heapTotal / 1e6,
    externalMb: atPeak.external / 1e6,
  };
  rmSync(dir, { recursive: true, force: true });
  if (statusAtPeak) process.stderr.write(`at the peak: ${statusAtPeak.replace(/\s+/g, ' ')}\n`);
  process.stdout.write(JSON.stringify(r) + '\n');
}

async function main(): Promise<void> {
  const n = Number(arg('requests', '1000000'));
  const vus = Number(arg('vus', '10'));
  const nginx = await startNginx();
  try {
    console.log(`memory: ${n} requests, ${vus} VUs (closed model), full history to a file, metrics on, against nginx (1 worker)`);
    const r = await runChild<MemResult>(SELF, ['--child', '--url', nginx.url, '--requests', String(n), '--vus', String(vus), '--offload', arg('offload', '1')]);
    console.log(`${r.requests} requests in ${fmt(r.seconds, 0)} s, history ${fmt(r.historyMb, 0)} MB; peak RSS ${fmt(r.peakRssMb, 0)} MB (bar: < ${BAR_MB} MB) ${r.peakRssMb < BAR_MB ? 'PASS' : 'FAIL'}; RSS at end ${fmt(r.endRssMb, 0)} MB; at the peak the main thread's V8 heap was ${fmt(r.heapMb, 0)} MB and external memory ${fmt(r.externalMb, 0)} MB`);
  } finally {
    await nginx.stop();
  }
}

if (process.argv.includes('--child')) await child();
else await main();
