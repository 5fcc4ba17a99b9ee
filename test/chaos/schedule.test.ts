import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Toxiproxy } from 'toxiproxy-node-client';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/chaos/proxy/index.ts';
import { openChaosSession, ToxiproxyDriver, type ChaosSession } from '../../src/chaos/index.ts';
import { parseProxyArg, faultsDuring, PaystormError, type FaultStep, type FaultType } from '../../src/spec/index.ts';
import { parseFaultSchedule } from '../../src/chaos/fault-schedule.ts';
import { type FaultRecord } from '../../src/history/index.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/run-schedule.ts', import.meta.url));

let upstream: http.Server;
let upstreamPort: number;
let tp: ToxiproxyServer;
let driver: ToxiproxyDriver;
const t0 = performance.now();
const now = () => performance.now() - t0;
const sessions: ChaosSession[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  upstream = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamPort = (upstream.address() as { port: number }).port;
  tp = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
  driver = new ToxiproxyDriver(tp.url);
});

afterEach(async () => {
  for (const s of sessions.splice(0)) await s.cleanup().catch(() => {});
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  // Whatever a test left (on purpose or not) must not leak into the next one.
  for (const p of await driver.listProxies()) await driver.deleteProxy(p.name);
});

afterAll(async () => {
  await tp?.close();
  await new Promise((r) => upstream?.close(r));
});

/** Polls `cond` every 20 ms, at most `ms` long. */
async function waitFor(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met within ${ms} ms`);
}

/** One GET on a fresh connection: how long it took, or the connect error code. */
function timedGet(hostPort: string): Promise<{ ms: number } | { error: string }> {
  const start = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`http://${hostPort}/`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - start }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
  });
}

/** A session with one proxy, through the embedded Toxiproxy API or `toxiproxyUrl` (a forwarder in front of it). */
async function open(name = 'up', records: FaultRecord[] = [], toxiproxyUrl = tp.url): Promise<{ session: ChaosSession; listen: string; records: FaultRecord[] }> {
  const session = await openChaosSession({
    toxiproxyUrl,
    proxies: [{ name, listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` }],
    now,
    sink: (r) => records.push(r),
    exitHooks: false,
  });
  sessions.push(session);
  return { session, listen: session.proxies.get(name)!.listen, records };
}

const step = (s: Partial<FaultStep> & Pick<FaultStep, 'type'>): FaultStep => ({
  at: 0,
  duration: 1000,
  proxy: 'up',
  stream: 'downstream',
  toxicity: 1,
  attributes: {},
  ...s,
});

async function toxicsOf(name: string): Promise<string[]> {
  return (await driver.listProxies()).find((p) => p.name === name)?.toxics.map((t) => t.name) ?? [];
}

describe('chaos session against the embedded Toxiproxy', () => {
  it('creates the proxy, applies a latency toxic for its window, then removes it', async () => {
    const { session, listen, records } = await open();
    const before = await timedGet(listen);
    expect(before).toHaveProperty('ms');

    const tCall = now();
    const run = session.runSchedule([step({ type: 'latency', duration: 5000, attributes: { latency: 2000 } })]);
    await waitFor(async () => (await toxicsOf('up')).includes('paystorm_0_latency'));
    const during = await timedGet(listen);
    const out = await run;
    const tDone = now();
    const after = await timedGet(listen);

    // The toxic holds every response at least its latency; once removed nothing does.
    expect((during as { ms: number }).ms).toBeGreaterThanOrEqual(1900);
    expect((after as { ms: number }).ms).toBeLessThan(1900);
    expect(await toxicsOf('up')).toEqual([]);

    expect(records).toHaveLength(1);
    expect(out).toEqual(records);
    const rec = records[0];
    expect(rec).toMatchObject({
      v: 1,
      kind: 'fault',
      proxy: 'up',
      link: 'upstream',
      toxic: { name: 'paystorm_0_latency', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 2000 } },
    });
    expect(rec.tStart).toBeGreaterThanOrEqual(tCall);
    expect(rec.tEnd - rec.tStart).toBeGreaterThanOrEqual(5000);
    expect(rec.tEnd).toBeLessThanOrEqual(tDone);
    expect(Math.abs(rec.wallStart - Date.now())).toBeLessThan(60_000);
  });

  it('`down` refuses connections during its window and the proxy comes back after', async () => {
    const { session, listen, records } = await open();
    const run = session.runSchedule([step({ type: 'down', at: 100, duration: 1500 })]);
    await waitFor(async () => (await driver.listProxies()).find((p) => p.name === 'up')?.enabled === false);
    expect(await timedGet(listen)).toEqual({ error: 'ECONNREFUSED' });
    await run;
    expect(await timedGet(listen)).toHaveProperty('ms');
    expect((await driver.listProxies()).find((p) => p.name === 'up')?.enabled).toBe(true);
    expect(records.map((r) => r.toxic.type)).toEqual(['down']);
    expect(records[0].tEnd - records[0].tStart).toBeGreaterThanOrEqual(1500);
  });

  it('records the window a fault surely acted in: from Toxiproxy\'s answer to the request to remove it', async () => {
    // A Toxiproxy API that takes 300 ms to answer changes: until it has, the proxy still passes traffic.
    const DELAY = 300;
    const slowApi = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.method !== 'GET') await new Promise((r) => setTimeout(r, DELAY));
      const answer = await fetch(`${tp.url}${req.url}`, { method: req.method, headers: { 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
    await new Promise<void>((r) => slowApi.listen(0, '127.0.0.1', r));
    try {
      const { session, listen, records } = await open('up', [], `http://127.0.0.1:${(slowApi.address() as { port: number }).port}`);
      const run = session.runSchedule([step({ type: 'down', duration: 1000 }), step({ type: 'timeout', at: 1500, duration: 800 })]);
      await new Promise((r) => setTimeout(r, 50));
      // Inside the wide window, before the answer: the request still gets through.
      expect(await timedGet(listen)).toHaveProperty('ms');
      await run;
      expect(records.map((r) => r.toxic.type)).toEqual(['down', 'timeout']);
      for (const r of records) {
        expect(r.tApplied! - r.tStart).toBeGreaterThanOrEqual(DELAY - 5);
        expect(r.tEnd - r.tRemoving!).toBeGreaterThanOrEqual(DELAY - 5);
        expect(r.tRemoving! - r.tApplied!).toBeGreaterThan(0);
      }
    } finally {
      await new Promise((r) => slowApi.close(r));
    }
  });

  it('records one window per step, in schedule order, and faultsDuring finds the overlapping ones', async () => {
    const { session, records } = await open();
    const tCall = now();
    await session.runSchedule([
      step({ type: 'latency', at: 0, duration: 300, attributes: { latency: 10, jitter: 5 } }),
      step({ type: 'bandwidth', at: 500, duration: 300, stream: 'upstream', toxicity: 0.5, attributes: { rate: 100 } }),
    ]);
    expect(records.map((r) => r.toxic.name)).toEqual(['paystorm_0_latency', 'paystorm_1_bandwidth']);
    const [a, b] = records;
    expect(b.toxic).toMatchObject({ stream: 'upstream', toxicity: 0.5, attributes: { rate: 100 } });
    expect(a.tStart).toBeGreaterThanOrEqual(tCall);
    expect(b.tStart).toBeGreaterThanOrEqual(tCall + 500);
    expect(b.tStart).toBeGreaterThan(a.tEnd);
    expect(faultsDuring(records, a.tStart, a.tStart)).toEqual([a]);
    expect(faultsDuring(records, a.tEnd + 0.001, b.tStart - 0.001)).toEqual([]);
    expect(faultsDuring(records, 0, Infinity)).toEqual(records);
  });

  it('numbers toxics across schedules of one session, so names never collide', async () => {
    const { session, records } = await open();
    await session.runSchedule([step({ type: 'latency', duration: 100, attributes: { latency: 1 } })]);
    await session.runSchedule([step({ type: 'latency', duration: 100, attributes: { latency: 1 } })]);
    expect(records.map((r) => r.toxic.name)).toEqual(['paystorm_0_latency', 'paystorm_1_latency']);
  });

  it('aborting the signal closes the open window early and leaves no toxic', async () => {
    const { session, records } = await open();
    const ac = new AbortController();
    const run = session.runSchedule([step({ type: 'latency', duration: 60_000, attributes: { latency: 5 } }), step({ type: 'timeout', at: 50_000 })], ac.signal);
    await waitFor(async () => (await toxicsOf('up')).length === 1);
    ac.abort();
    await run;
    expect(await toxicsOf('up')).toEqual([]);
    expect(records.map((r) => r.toxic.type)).toEqual(['latency']);
    expect(records[0].tEnd - records[0].tStart).toBeLessThan(60_000);
  });

  it('a step that throws cleans up everything the session created', async () => {
    const { session, records } = await open();
    const bad = step({ type: 'no_such_toxic' as FaultType, at: 300 });
    const run = session.runSchedule([step({ type: 'latency', duration: 30_000, attributes: { latency: 5 } }), bad]);
    await expect(run).rejects.toThrow(/no_such_toxic.*answered 400/);
    const client = new Toxiproxy(tp.url);
    expect(Object.keys(await client.getAll())).toEqual([]);
    expect(records.map((r) => r.toxic.name)).toEqual(['paystorm_0_latency']);
    // Idempotent, and the name is free again.
    await session.cleanup();
    await session.cleanup();
    await open();
  });

  it('reports what cleanup could not undo when Toxiproxy has gone away', async () => {
    const own = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
    const errors: unknown[] = [];
    const session = await openChaosSession({
      toxiproxyUrl: own.url,
      proxies: [{ name: 'gone', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` }],
      now,
      sink: () => {},
      exitHooks: false,
      onError: (e) => errors.push(e),
    });
    const run = session.runSchedule([step({ proxy: 'gone', type: 'latency', duration: 30_000, attributes: { latency: 1 } })]).catch((e: unknown) => e);
    await waitFor(() => session.activeFaults().length === 1);
    await waitFor(async () => ((await new ToxiproxyDriver(own.url).listProxies())[0]?.toxics.length ?? 0) === 1);
    await own.close();
    await expect(session.cleanup()).rejects.toThrow(new RegExp(`chaos cleanup left things behind on ${own.url}[^]*deleting proxy "gone": cannot reach Toxiproxy`));
    expect(String(await run)).toMatch(/removing toxic "paystorm_0_latency"/);
  });

  it('a `down` window opening while the previous one re-enables the proxy disables it again before its sure window starts', async () => {
    // An API forwarder that answers re-enables 150 ms late and logs when each enable/disable was answered.
    const answered: { enabled: boolean; t: number }[] = [];
    const target = new URL(tp.url);
    const slow = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (d: Buffer) => chunks.push(d));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const update = req.method === 'POST' && /^\/proxies\/[^/]+$/.test(req.url ?? '') ? (JSON.parse(body.toString() || '{}') as { enabled?: boolean }) : null;
        const forward = () => {
          const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (ur) => {
            res.writeHead(ur.statusCode ?? 500, ur.headers);
            ur.pipe(res);
            ur.on('end', () => {
              if (typeof update?.enabled === 'boolean') answered.push({ enabled: update.enabled, t: now() });
            });
          });
          up.end(body);
        };
        if (update?.enabled === true) setTimeout(forward, 150);
        else forward();
      });
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const { session, listen, records } = await open('up', [], `http://127.0.0.1:${(slow.address() as { port: number }).port}`);
      const tRun = now();
      // B opens 60 ms after A closes: A's re-enable is still on its way.
      const run = session.runSchedule([step({ type: 'down', at: 0, duration: 100 }), step({ type: 'down', at: 160, duration: 900 })]);
      await waitFor(() => now() - tRun >= 700);
      const mid = await timedGet(listen);
      await run;
      const b = records.find((r) => r.toxic.name === 'paystorm_1_down')!;
      expect(b.tApplied).toBeDefined();
      // Inside B's sure window the proxy is down: the last answer before it disabled it, and no re-enable lands in it.
      const before = answered.filter((a) => a.t <= b.tApplied!);
      expect(before.at(-1)?.enabled, JSON.stringify({ answered, b })).toBe(false);
      expect(answered.filter((a) => a.enabled && a.t > b.tApplied! && a.t < b.tRemoving!), JSON.stringify({ answered, b })).toEqual([]);
      expect(mid).toEqual({ error: 'ECONNREFUSED' });
      await session.cleanup();
      expect((await driver.listProxies()).find((p) => p.name === 'up')).toBeUndefined();
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });

  it('overlapping `down` windows keep the proxy down until the last closes, then re-enable it once', async () => {
    await driver.createProxy({ name: 'populated', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    const records: FaultRecord[] = [];
    const session = await openChaosSession({ toxiproxyUrl: tp.url, proxies: [], now, sink: (r) => records.push(r), exitHooks: false });
    sessions.push(session);
    const listen = (await driver.listProxies()).find((p) => p.name === 'populated')!.listen;
    const run = session.runSchedule([
      step({ proxy: 'populated', type: 'down', at: 0, duration: 400 }),
      step({ proxy: 'populated', type: 'down', at: 100, duration: 900 }),
    ]);
    await waitFor(() => records.length === 1);
    // The first window closed, the second still holds it down.
    expect(await timedGet(listen)).toEqual({ error: 'ECONNREFUSED' });
    await run;
    expect((await driver.listProxies()).find((p) => p.name === 'populated')?.enabled).toBe(true);
    expect(records.every((r) => r.tApplied !== undefined && r.tRemoving !== undefined)).toBe(true);
  });

  it('uses a proxy it did not create without deleting it, and re-enables it after `down`', async () => {
    await driver.createProxy({ name: 'populated', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    const records: FaultRecord[] = [];
    const session = await openChaosSession({ toxiproxyUrl: tp.url, proxies: [], now, sink: (r) => records.push(r), exitHooks: false, link: { populated: 'client' } });
    sessions.push(session);
    const run = session.runSchedule([
      step({ proxy: 'populated', type: 'latency', duration: 30_000, attributes: { latency: 5 } }),
      step({ proxy: 'populated', type: 'down', duration: 30_000 }),
    ]);
    await waitFor(async () => {
      const p = (await driver.listProxies()).find((x) => x.name === 'populated');
      return p?.enabled === false && p.toxics.length === 1;
    });
    await session.cleanup();
    await run;
    const p = (await driver.listProxies()).find((x) => x.name === 'populated');
    expect(p).toMatchObject({ enabled: true, toxics: [] });
    expect(records.map((r) => [r.toxic.type, r.link])).toEqual(
      expect.arrayContaining([
        ['latency', 'client'],
        ['down', 'client'],
      ]),
    );
  });

  it('refuses a proxy name that already exists instead of clobbering it', async () => {
    await driver.createProxy({ name: 'up', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    await expect(open()).rejects.toThrow(/proxy "up".*did not create/);
  });

  it('rejects a step naming an unknown proxy, naming the field', async () => {
    const { session } = await open();
    await expect(session.runSchedule([step({ proxy: 'nope', type: 'latency', attributes: { latency: 1 } })])).rejects.toThrow(/faults\[0\]\.proxy: "nope"/);
  });
});

describe('a run killed midway', () => {
  function startRun(name: string): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, tp.url, String(upstreamPort), name], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  }
  const exited = (c: ChildProcess) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (c.exitCode !== null || c.signalCode !== null) resolve({ code: c.exitCode, signal: c.signalCode });
      else c.once('exit', (code, signal) => resolve({ code, signal }));
    });

  it('SIGTERM: the run removes its toxic and proxy before exiting', async () => {
    const child = startRun('killed');
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    await waitFor(async () => (await toxicsOf('killed')).length === 1, 20_000);
    child.kill('SIGTERM');
    const { code } = await exited(child);
    expect(code).toBe(143);
    expect(await driver.listProxies()).toEqual([]);
    // The window it had open was still written to the history.
    expect(out).toMatch(/fault .*"paystorm_0_latency"/);
  });

  it('SIGKILL cannot clean up: the next session reports the leftovers clearly', async () => {
    const child = startRun('killed');
    await waitFor(async () => (await toxicsOf('killed')).length === 1, 20_000);
    child.kill('SIGKILL');
    await exited(child);
    expect(await toxicsOf('killed')).toEqual(['paystorm_0_latency']);
    const err = await openChaosSession({
      toxiproxyUrl: tp.url,
      proxies: [{ name: 'killed', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` }],
      now,
      sink: () => {},
      exitHooks: false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    const msg = (err as Error).message;
    expect(msg).toContain('proxy "killed"');
    expect(msg).toContain('paystorm_0_latency');
    expect(msg).toContain('SIGKILL');
    expect(msg).toContain(`curl -X DELETE ${tp.url}/proxies/NAME`);
  });

  it('SIGKILL leftovers on a proxy the next run only uses are reported too', async () => {
    await driver.createProxy({ name: 'populated', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    await driver.addToxic('populated', { name: 'paystorm_3_latency', type: 'latency', stream: 'downstream', toxicity: 1, attributes: { latency: 1 } });
    await expect(openChaosSession({ toxiproxyUrl: tp.url, proxies: [], now, sink: () => {}, exitHooks: false })).rejects.toThrow(
      /paystorm toxics paystorm_3_latency on proxy "populated"/,
    );
  });

  it('SIGKILL inside a `down` window leaves a proxy the run only used disabled: the next session re-enables it and says so', async () => {
    // As a populated proxy (docker compose's) looks after a run was killed between disabling and re-enabling it.
    await driver.createProxy({ name: 'populated', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    await driver.setEnabled('populated', false);
    const listen = (await driver.listProxies()).find((p) => p.name === 'populated')!.listen;
    expect(await timedGet(listen)).toEqual({ error: 'ECONNREFUSED' });
    const notices: string[] = [];
    const session = await openChaosSession({ toxiproxyUrl: tp.url, proxies: [], now, sink: () => {}, exitHooks: false, notice: (l) => notices.push(l) });
    sessions.push(session);
    expect((await driver.listProxies()).find((p) => p.name === 'populated')?.enabled).toBe(true);
    expect(await timedGet(listen)).toHaveProperty('ms');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(new RegExp(`proxy "populated" on Toxiproxy at ${tp.url} was disabled .*re-enabled it`));
  });

  it('a same-named leftover proxy that is disabled is refused, saying it is disabled and what /reset does', async () => {
    await driver.createProxy({ name: 'killed', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` });
    await driver.setEnabled('killed', false);
    const notices: string[] = [];
    const err = await openChaosSession({
      toxiproxyUrl: tp.url,
      proxies: [{ name: 'killed', listen: '127.0.0.1:0', upstream: `127.0.0.1:${upstreamPort}` }],
      now,
      sink: () => {},
      exitHooks: false,
      notice: (l) => notices.push(l),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as Error).message).toMatch(/proxy "killed" \(listen [^)]*, disabled\)/);
    expect((err as Error).message).toContain(`curl -X POST ${tp.url}/reset, which removes every toxic and re-enables every proxy`);
    expect(notices).toEqual([]);
    // Refused means untouched.
    expect((await driver.listProxies()).find((p) => p.name === 'killed')?.enabled).toBe(false);
  });
});

describe('unreachable Toxiproxy', () => {
  it('says which URL failed and how to fix it', async () => {
    const dead = http.createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as { port: number }).port;
    await new Promise((r) => dead.close(r));
    await expect(openChaosSession({ toxiproxyUrl: `http://127.0.0.1:${port}`, proxies: [], now, sink: () => {}, exitHooks: false })).rejects.toThrow(
      new RegExp(`cannot reach Toxiproxy at http://127.0.0.1:${port}.*--toxiproxy`),
    );
  });
});

describe('fault schedule parsing', () => {
  it('fills the defaults: downstream, toxicity 1, no attributes', () => {
    expect(parseFaultSchedule([{ at: 0, duration: 20_000, proxy: 'upstream', type: 'down' }])).toEqual([
      { at: 0, duration: 20_000, proxy: 'upstream', type: 'down', stream: 'downstream', toxicity: 1, attributes: {} },
    ]);
  });

  it('accepts every toxic type with its Toxiproxy attributes', () => {
    const steps = parseFaultSchedule([
      { at: 0, duration: 20_000, proxy: 'upstream', type: 'latency', attributes: { latency: 2000, jitter: 500 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'reset_peer', attributes: { timeout: 0 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'timeout', stream: 'upstream', toxicity: 0.25, attributes: { timeout: 100 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'bandwidth', attributes: { rate: 10 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'slow_close', attributes: { delay: 10 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'slicer', attributes: { average_size: 10, size_variation: 2, delay: 100 } },
      { at: 0, duration: 1, proxy: 'upstream', type: 'limit_data', attributes: { bytes: 100 } },
    ]);
    expect(steps.map((s) => s.type)).toEqual(['latency', 'reset_peer', 'timeout', 'bandwidth', 'slow_close', 'slicer', 'limit_data']);
    expect(steps[2]).toMatchObject({ stream: 'upstream', toxicity: 0.25 });
  });

  it('names the path of each bad field', () => {
    const msg = (v: unknown, where?: string) => {
      try {
        parseFaultSchedule(v, where);
      } catch (e) {
        expect(e).toBeInstanceOf(PaystormError);
        return (e as Error).message;
      }
      throw new Error('expected a parse error');
    };
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'latency' }])).toContain('faults[0].attributes.latency: required for a latency fault (ms)');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'latency', attributes: { latency: 1 } }, { at: 0, duration: 1, proxy: 'u', type: 'explode' }])).toContain('faults[1].type');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'latency', attributes: { latency: 1, rate: 5 } }])).toMatch(/faults\[0\]\.attributes\.rate: not an attribute of latency \(it takes latency, jitter\)/);
    expect(msg([{ at: -1, duration: 1, proxy: 'u', type: 'down' }])).toContain('faults[0].at');
    expect(msg([{ at: 0, duration: 0, proxy: 'u', type: 'down' }])).toContain('faults[0].duration');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'latency', toxicity: 2, attributes: { latency: 1 } }])).toContain('faults[0].toxicity');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'latency', stream: 'sideways', attributes: { latency: 1 } }])).toContain('faults[0].stream');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'down', toxicity: 0.5 }])).toContain('faults[0].toxicity: down disables the whole proxy');
    expect(msg([{ at: 0, duration: 1, proxy: 'u', type: 'down', extra: 1 }])).toContain('faults[0]');
    expect(msg({}, 'scenarios.chaos.faults')).toContain('scenarios.chaos.faults');
  });

  it('parses --proxy and explains a malformed one', () => {
    expect(parseProxyArg('upstream=127.0.0.1:4111>127.0.0.1:4011')).toEqual({ name: 'upstream', listen: '127.0.0.1:4111', upstream: '127.0.0.1:4011' });
    expect(parseProxyArg('client=0.0.0.0:4110>target:4010')).toEqual({ name: 'client', listen: '0.0.0.0:4110', upstream: 'target:4010' });
    expect(parseProxyArg('v6=[::1]:4111>[::1]:4011').listen).toBe('[::1]:4111');
    // What the shell leaves of an unquoted value: `> 127.0.0.1:4011` became a redirect.
    expect(() => parseProxyArg('upstream=127.0.0.1:4111')).toThrow(/--proxy .*quote the whole value/);
    expect(() => parseProxyArg('127.0.0.1:4111>127.0.0.1:4011')).toThrow(/--proxy .*NAME=LISTEN_HOST:PORT>UPSTREAM_HOST:PORT/);
    expect(() => parseProxyArg('up=127.0.0.1>127.0.0.1:4011')).toThrow(/--proxy .*listen address "127.0.0.1" is not HOST:PORT/);
    expect(() => parseProxyArg('up=127.0.0.1:4111>127.0.0.1:99999')).toThrow(/--proxy .*upstream address/);
    expect(() => parseProxyArg('up stream=127.0.0.1:1>127.0.0.1:2')).toThrow(/--proxy .*proxy name/);
  });
});
