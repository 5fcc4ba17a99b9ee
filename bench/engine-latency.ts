/**
 * Latency truth: against a target that stalls for 1 s every 5 s, paystorm's
 * open-model p99 and p99.9 should be within 5% of the true values, computed from
 * the stall schedule and each request's intended start. autocannon's figure and
 * a closed-loop (constant-vus) figure are printed beside them: both hide the
 * stalls (coordinated omission). Rounds interleave the contenders; medians printed.
 *
 *   node --import tsx bench/engine-latency.ts [--rounds 5] [--seconds 15] [--rate 400]
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { makeKeySecrets } from '../src/client/index.ts';
import { RunClock, runScenarios } from '../src/engine/index.ts';
import { MetricsAggregator } from '../src/history/metrics.ts';
import { HistoryWriter } from '../src/history/index.ts';
import { parseKeyArg, type ExecutorSpec } from '../src/spec/index.ts';
import { type ExchangeRecord, type HistoryRecord } from '../src/history/index.ts';
import { BENCH_KEY, PAYMENT_BODY, PAY_ID, arg, fmt, median, runChild, stopChild } from './engine-lib.ts';

const SELF = fileURLToPath(import.meta.url);
const CYCLE_MS = 5_000;
const STALL_MS = 1_000;
/** The stall takes the last second of each 5 s cycle, so a run starts calm. */
const STALL_FROM = CYCLE_MS - STALL_MS;

/** How long a request arriving at `wall` waits for the stall to end (0 outside stalls). */
function stallLeft(wall: number, origin: number): number {
  const phase = (((wall - origin) % CYCLE_MS) + CYCLE_MS) % CYCLE_MS;
  return phase >= STALL_FROM ? CYCLE_MS - phase : 0;
}

/** Server mode: answers at once, except inside a stall, where it answers when the stall ends. */
async function server(): Promise<void> {
  const origin = Date.now();
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(PAYMENT_BODY) });
        res.end(PAYMENT_BODY);
      };
      const wait = stallLeft(Date.now(), origin);
      if (wait > 0) setTimeout(send, wait);
      else send();
    });
  });
  srv.keepAliveTimeout = 60_000;
  srv.maxRequestsPerSocket = 0;
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  process.stdout.write(JSON.stringify({ port: (srv.address() as AddressInfo).port, origin }) + '\n');
  process.on('SIGTERM', () => {
    srv.closeAllConnections();
    srv.close(() => process.exit(0));
  });
}

interface Figures {
  contender: string;
  p99: number;
  p999: number;
  count: number;
  /** True values for the same intended starts (open model only). */
  trueP99?: number;
  trueP999?: number;
  maxLagMs?: number;
}

function quantile(sorted: number[], q: number): number {
  // HDR's definition: the smallest value with at least q of the samples at or below it.
  const i = Math.max(0, Math.ceil(q * sorted.length) - 1);
  return sorted[i];
}

async function paystorm(url: string, origin: number, spec: ExecutorSpec, name: string): Promise<Figures> {
  const records: HistoryRecord[] = [];
  const metrics = new MetricsAggregator();
  const clock = new RunClock();
  await runScenarios({
    scenarios: [
      {
        name,
        description: 'retrieve under a stalling target',
        rules: [],
        async run(ctx) {
          const c = ctx.client(ctx.keys[0]);
          await ctx.execute(spec, async () => {
            await c.retrieve(PAY_ID);
          });
        },
      },
    ],
    target: { url, embedded: false, presentation: 'B', rateLimit: null },
    keys: makeKeySecrets([parseKeyArg(`bench:${BENCH_KEY}`)]),
    cards: {},
    clock,
    writer: HistoryWriter.memory(records),
    metrics,
    caps: { maxRequests: 10_000_000, maxDurationMs: 600_000 },
    seed: 1,
    timeScale: 1,
    timeoutMs: 10_000,
    log: () => {},
  });
  const lat = metrics.snapshot().latency.retrieve['2xx'];
  const ex = records.filter((r): r is ExchangeRecord => r.kind === 'exchange' && r.status === 200);
  const out: Figures = { contender: name, p99: lat.p99, p999: lat.p999, count: lat.count };
  if (spec.executor === 'constant-arrival-rate') {
    // True latency of each request: the stall it was due into, plus the target's calm service time.
    const calm = ex.filter((r) => stallLeft(clock.wallAt(r.tIntended), origin) === 0).map((r) => r.tEnd - r.tStart);
    const base = median(calm);
    const truth = ex.map((r) => stallLeft(clock.wallAt(r.tIntended), origin) + base).sort((a, b) => a - b);
    out.trueP99 = quantile(truth, 0.99);
    out.trueP999 = quantile(truth, 0.999);
    out.maxLagMs = Math.max(...ex.map((r) => r.tStart - r.tIntended));
  }
  return out;
}

async function autocannonFigures(url: string, seconds: number, connections: number): Promise<Figures> {
  const result = await autocannon({ url: `${url}/v1/payments/${PAY_ID}`, connections, duration: seconds, pipelining: 1, timeout: 10, headers: { authorization: `Bearer ${BENCH_KEY}` } });
  const l = result.latency as unknown as Record<string, number>;
  return { contender: 'autocannon', p99: l.p99, p999: l.p99_9, count: result.requests.total };
}

async function child(): Promise<void> {
  if (process.argv.includes('--server')) return server();
  const url = arg('url');
  const origin = Number(arg('origin'));
  const seconds = Number(arg('seconds'));
  const rate = Number(arg('rate'));
  const connections = Number(arg('connections'));
  const contender = arg('contender');
  // Start on a cycle boundary so every run sees the same number of stalls.
  const now = Date.now();
  await new Promise((r) => setTimeout(r, CYCLE_MS - ((now - origin) % CYCLE_MS)));
  let f: Figures;
  if (contender === 'autocannon') f = await autocannonFigures(url, seconds, connections);
  else if (contender === 'open') f = await paystorm(url, origin, { executor: 'constant-arrival-rate', rate, durationMs: seconds * 1000, maxInFlight: rate * 3 }, 'open');
  else f = await paystorm(url, origin, { executor: 'constant-vus', vus: connections, durationMs: seconds * 1000 }, 'closed');
  process.stdout.write(JSON.stringify(f) + '\n');
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '5'));
  const seconds = Number(arg('seconds', '15'));
  const rate = Number(arg('rate', '400'));
  const connections = Number(arg('connections', '10'));
  const srv = spawn(process.execPath, ['--import', 'tsx', SELF, '--child', '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<{ port: number; origin: number }>((resolve) => srv.stdout!.once('data', (d: Buffer) => resolve(JSON.parse(d.toString().split('\n')[0]))));
  const url = `http://127.0.0.1:${info.port}`;
  const ratios = { p99: [] as number[], p999: [] as number[] };
  const rows: Record<string, Figures[]> = {};
  try {
    console.log(`latency truth: target stalls ${STALL_MS} ms every ${CYCLE_MS} ms; open model ${rate}/s, closed model and autocannon ${connections} connections; ${seconds} s per run, ${rounds} rounds interleaved`);
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 ? ['open', 'autocannon', 'closed'] : ['closed', 'autocannon', 'open'];
      const line: string[] = [];
      for (const c of order) {
        const f = await runChild<Figures>(SELF, ['--child', '--contender', c, '--url', url, '--origin', String(info.origin), '--seconds', String(seconds), '--rate', String(rate), '--connections', String(connections)]);
        (rows[c] ??= []).push(f);
        if (c === 'open') {
          ratios.p99.push(f.p99 / f.trueP99!);
          ratios.p999.push(f.p999 / f.trueP999!);
          line.push(`open p99 ${fmt(f.p99, 0)} ms (true ${fmt(f.trueP99!, 0)}), p99.9 ${fmt(f.p999, 0)} ms (true ${fmt(f.trueP999!, 0)}), max start lag ${fmt(f.maxLagMs!, 1)} ms`);
        } else line.push(`${c} p99 ${fmt(f.p99, 0)} ms, p99.9 ${fmt(f.p999, 0)} ms`);
      }
      console.log(`round ${round}: ${line.join('; ')}`);
    }
  } finally {
    await stopChild(srv);
  }
  const m = (c: string, k: 'p99' | 'p999' | 'trueP99' | 'trueP999') => median(rows[c].map((f) => f[k]!));
  console.log('');
  console.log(`true (from the stall schedule): p99 ${fmt(m('open', 'trueP99'), 0)} ms, p99.9 ${fmt(m('open', 'trueP999'), 0)} ms`);
  console.log(`paystorm open model:            p99 ${fmt(m('open', 'p99'), 0)} ms, p99.9 ${fmt(m('open', 'p999'), 0)} ms  (median ratio to true: p99 ${fmt(median(ratios.p99), 3)}, p99.9 ${fmt(median(ratios.p999), 3)})`);
  console.log(`autocannon (${connections} connections):      p99 ${fmt(m('autocannon', 'p99'), 0)} ms, p99.9 ${fmt(m('autocannon', 'p999'), 0)} ms`);
  console.log(`paystorm closed loop (${connections} VUs):   p99 ${fmt(m('closed', 'p99'), 0)} ms, p99.9 ${fmt(m('closed', 'p999'), 0)} ms`);
}

if (process.argv.includes('--child')) await child();
else await main();
