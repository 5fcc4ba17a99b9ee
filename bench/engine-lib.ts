/**
 * Shared helpers of the engine benchmarks: a one-worker nginx on loopback
 * returning a fixed JSON body, contenders run each in a fresh child process,
 * interleaved rounds and medians. Benchmarks print ratios; they are not tests.
 */
import { HISTORY_FILE } from '../src/history/index.ts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const PAY_ID = 'pay_0e5a1f2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b';
export const BENCH_KEY = 'svc_test_sk_benchKEY00000001';

/** A presentation-B payment, as GET /v1/payments/{id} returns it. */
export const PAYMENT_BODY = JSON.stringify({
  id: PAY_ID,
  object: 'payment',
  amount: 1000,
  currency: 'eur',
  status: 'succeeded',
  created: 1700000000,
  livemode: false,
  description: 'bench',
  card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, country: 'DE' },
  customer: { email: 'a@example.com', name: 'Pay Storm' },
  metadata: { order: '1' },
  decline_code: null,
  decline_message: null,
  redirect_url: null,
  refunded_at: null,
  succeeded_at: 1700000001,
  failed_at: null,
  next_action: null,
  refunded_amount: 0,
  refunds: [],
});

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Nginx {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Finds nginx or says how to get it (Debian: apt-get install -y nginx-light). */
export function nginxBinary(): string {
  for (const p of ['/usr/sbin/nginx', '/usr/bin/nginx']) {
    if (spawnSync(p, ['-v']).status === 0) return p;
  }
  const tryInstall = process.env.PAYSTORM_BENCH_INSTALL_NGINX === '1';
  if (tryInstall) {
    spawnSync('apt-get', ['install', '-y', '-qq', 'nginx-light'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (spawnSync('/usr/sbin/nginx', ['-v']).status === 0) return '/usr/sbin/nginx';
  }
  throw new Error('nginx not found: install it with `apt-get install -y nginx-light` (or run with PAYSTORM_BENCH_INSTALL_NGINX=1)');
}

/** One-worker nginx on 127.0.0.1 answering every request with 200 and `body` (JSON, rate headers). */
export async function startNginx(body: string = PAYMENT_BODY): Promise<Nginx> {
  const bin = nginxBinary();
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-nginx-'));
  const port = await freePort();
  const conf = `
worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    default_type application/json;
    location / {
      add_header X-RateLimit-Limit 500 always;
      add_header X-RateLimit-Remaining 499 always;
      add_header X-RateLimit-Reset 1900000000 always;
      return 200 '${body.replace(/'/g, "\\'")}';
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () => stopChild(child).then(() => rmSync(dir, { recursive: true, force: true })),
  };
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Runs `file` in a fresh Node process (tsx) with args; returns the JSON its last stdout line printed. */
export async function runChild<T>(file: string, args: string[], extraNodeArgs: string[] = []): Promise<T> {
  const child = spawn(process.execPath, [...extraNodeArgs, '--import', 'tsx', file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) throw new Error(`${file} ${args.join(' ')} exited ${code}`);
  const lines = out.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]) as T;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (fallback !== undefined) return fallback;
  throw new Error(`missing --${name}`);
}

export const fmt = (x: number, digits = 2) => x.toFixed(digits);

/** Responses per second between the 10% and 90% marks of a run of `n` (start-up and tail excluded, same for every contender). */
const CLOCK_TICK_US = 1e6 / 100; // USER_HZ is 100 on Linux

/** The main thread's CPU time (user + system) in µs, from /proc/self/task/<pid>/stat; NaN where there is no /proc. */
export function mainThreadCpuUs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * CLOCK_TICK_US; // utime, stime (fields 14 and 15)
  } catch {
    return NaN;
  }
}

export class SteadyRate {
  private count = 0;
  private t10 = 0;
  private t90 = 0;
  private cpu10: NodeJS.CpuUsage | null = null;
  private cpu90: NodeJS.CpuUsage | null = null;
  private main10 = 0;
  private main90 = 0;
  private readonly i10: number;
  private readonly i90: number;
  constructor(readonly n: number) {
    this.i10 = Math.floor(n * 0.1);
    this.i90 = Math.floor(n * 0.9);
  }
  tick(): void {
    const c = ++this.count;
    if (c === this.i10) {
      this.t10 = performance.now();
      this.cpu10 = process.cpuUsage();
      this.main10 = mainThreadCpuUs();
    } else if (c === this.i90) {
      this.t90 = performance.now();
      this.cpu90 = process.cpuUsage(this.cpu10!);
      this.main90 = mainThreadCpuUs();
    }
  }
  get responses(): number {
    return this.count;
  }
  /** When the steady window began and ended (performance.now() ms). */
  steadyWindow(): [number, number] {
    return [this.t10, this.t90];
  }
  /** CPU time (user + system, all threads of the process) per response in the steady window, µs: less noisy than rates on a shared machine. */
  cpuPerResponseUs(): number {
    return this.cpu90 ? (this.cpu90.user + this.cpu90.system) / (this.i90 - this.i10) : NaN;
  }
  /** The user and system parts of cpuPerResponseUs (system is mostly the socket syscalls, shared by every contender). */
  cpuSplitUs(): { user: number; system: number } {
    const n = this.i90 - this.i10;
    return this.cpu90 ? { user: this.cpu90.user / n, system: this.cpu90.system / n } : { user: NaN, system: NaN };
  }
  /** CPU time of the main thread alone per response, µs (Linux; NaN elsewhere): what bounds a closed loop's rate. */
  mainThreadPerResponseUs(): number {
    return (this.main90 - this.main10) / (this.i90 - this.i10);
  }
  rps(): number {
    return ((this.i90 - this.i10) * 1000) / (this.t90 - this.t10);
  }
}

/**
 * The history file the paystorm contenders write: what `paystorm run` writes (history.bin.gz),
 * or another encoding by name (`PAYSTORM_BENCH_HISTORY=history.ndjson`, inherited by the children).
 */
export const BENCH_HISTORY_FILE = process.env.PAYSTORM_BENCH_HISTORY ?? HISTORY_FILE;
