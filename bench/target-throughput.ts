/**
 * Throughput of the reference service (not a timed test; `npx tsx bench/target-throughput.ts`).
 *
 * - GET /v1/payments/{id}: the service against a bare node:http server that returns
 *   the same payment JSON as a fixed body, both driven by autocannon at the same
 *   concurrency, interleaved over several rounds (order alternating); the ratio of
 *   each round is printed and the median is the figure (bar: at least 0.4).
 * - POST /v1/payments: creates per second on one process (each create calls the
 *   sandbox processor over HTTP), reported, with no bar.
 * Each contender runs in its own child process so the load generator never shares
 * its event loop. Options: --rounds N (5) --duration S (3) --connections N (32).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { DEFAULT_TEST_CARDS, directCreateBody } from '../src/spec/index.ts';
import { DEFAULT_KEYS, startReferenceService } from '../src/target/index.ts';

const KEY = DEFAULT_KEYS[0].key;
const AUTH = `Bearer ${KEY}`;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

function createBody(): string {
  return JSON.stringify(
    directCreateBody(
      { amount: 1999, currency: 'EUR', card: { number: DEFAULT_TEST_CARDS.succeeds, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Bench' }, description: 'bench' },
      'B',
    ),
  );
}

// ---------------------------------------------------------------- children

async function child(kind: string): Promise<void> {
  if (kind === 'service') {
    const s = await startReferenceService({ port: 0, rateLimit: 1_000_000_000, timeScale: 0.01 });
    // One payment to read, settled before the run.
    const created = await fetch(`${s.url}/v1/payments`, { method: 'POST', headers: { authorization: AUTH, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: createBody() });
    const payment = (await created.json()) as { id: string };
    await new Promise((r) => setTimeout(r, 200));
    const body = await (await fetch(`${s.url}/v1/payments/${payment.id}`, { headers: { authorization: AUTH } })).text();
    process.stdout.write(`${JSON.stringify({ url: s.url, path: `/v1/payments/${payment.id}`, body })}\n`);
  } else {
    const body = process.argv[process.argv.indexOf('--body') + 1];
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, path: '/' })}\n`);
  }
}

interface Contender {
  proc: ChildProcess;
  url: string;
  path: string;
  body?: string;
}

function spawnChild(kind: string, extra: string[] = []): Promise<Contender> {
  const file = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ['--import', 'tsx', file, '--child', kind, ...extra], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve({ proc, ...JSON.parse(out.slice(0, nl)) });
    });
    proc.on('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
  });
}

// ---------------------------------------------------------------- load

async function load(opts: autocannon.Options): Promise<autocannon.Result> {
  return (await autocannon(opts)) as autocannon.Result;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main(): Promise<void> {
  const rounds = arg('rounds', 5);
  const duration = arg('duration', 3);
  const connections = arg('connections', 32);
  const service = await spawnChild('service');
  const bare = await spawnChild('bare', ['--body', service.body!]);
  const get = (c: Contender, seconds: number) => load({ url: c.url + c.path, connections, duration: seconds, headers: { authorization: AUTH } });
  try {
    // Warm both up (JIT, sockets) before measuring.
    await get(bare, 1);
    await get(service, 1);
    const ratios: number[] = [];
    console.log(`GET by id, ${connections} connections, ${duration} s per contender, ${rounds} interleaved rounds`);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? [bare, service] : [service, bare];
      const res = new Map<Contender, autocannon.Result>();
      for (const c of order) res.set(c, await get(c, duration));
      const b = res.get(bare)!;
      const s = res.get(service)!;
      if (s.non2xx || s.errors || b.non2xx || b.errors) console.log(`  round ${i + 1}: non-2xx/errors service ${s.non2xx}/${s.errors}, bare ${b.non2xx}/${b.errors}`);
      const ratio = s.requests.average / b.requests.average;
      ratios.push(ratio);
      console.log(`  round ${i + 1}: bare ${b.requests.average.toFixed(0)} req/s, service ${s.requests.average.toFixed(0)} req/s (p99 ${s.latency.p99} ms), ratio ${ratio.toFixed(3)}`);
    }
    console.log(`median ratio service/bare: ${median(ratios).toFixed(3)} (bar 0.4)`);

    const creates = await load({
      url: `${service.url}/v1/payments`,
      connections,
      duration: duration * 2,
      requests: [
        {
          method: 'POST',
          setupRequest: (req) => ({ ...req, headers: { authorization: AUTH, 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body: createBody() }),
        },
      ],
    });
    console.log(
      `creates: ${creates.requests.average.toFixed(0)} per second on one process (${connections} connections, ${duration * 2} s, 201s ${creates['2xx']}, non-2xx ${creates.non2xx}, p50 ${creates.latency.p50} ms, p99 ${creates.latency.p99} ms)`,
    );
  } finally {
    service.proc.kill('SIGTERM');
    bare.proc.kill('SIGTERM');
  }
}

const childIdx = process.argv.indexOf('--child');
if (childIdx > 0) await child(process.argv[childIdx + 1]);
else await main();
