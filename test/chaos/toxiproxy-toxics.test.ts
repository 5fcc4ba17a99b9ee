// Each toxic measured on real loopback traffic through the embedded Toxiproxy. Timing asserts are
// mostly lower bounds with generous slack: the machine is noisy.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Toxiproxy, type Proxy } from 'toxiproxy-node-client';
import { startToxiproxyServer, type ToxiproxyServer } from '../../src/chaos/proxy/index.ts';
import { collect, connect, roundTrip, sleep, startEcho, startSender, startServer, type TestServer } from './toxiproxy-helpers.ts';

let server: ToxiproxyServer;
let echo: TestServer;
let client: Toxiproxy;
const extraServers: TestServer[] = [];
const sockets: net.Socket[] = [];

beforeAll(async () => {
  echo = await startEcho();
  server = await startToxiproxyServer({ port: 0 });
  client = new Toxiproxy(server.url);
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await server?.close();
  await echo?.close();
  for (const s of extraServers) await s.close();
});

let seq = 0;
async function proxyTo(upstream: string): Promise<Proxy> {
  return client.createProxy({ name: `t_${++seq}`, listen: '127.0.0.1:0', upstream });
}

async function open(listen: string): Promise<net.Socket> {
  const s = await connect(listen);
  sockets.push(s);
  return s;
}

async function serverFor(s: Promise<TestServer>): Promise<TestServer> {
  const t = await s;
  extraServers.push(t);
  return t;
}

function addToxic(p: Proxy, body: Record<string, unknown>) {
  return p.addToxic(body as any);
}

describe('baseline', () => {
  it('passes data both ways with no toxics', async () => {
    const p = await proxyTo(echo.address);
    const sock = await open(p.listen);
    const big = Buffer.alloc(256 * 1024, 7);
    const { data } = await roundTrip(sock, big);
    expect(data.equals(big)).toBe(true);
  });
});

describe('latency', () => {
  it('delays downstream data by latency ± jitter', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'latency', attributes: { latency: 300, jitter: 50 } });
    const sock = await open(p.listen);
    for (let i = 0; i < 3; i++) {
      const { ms, data } = await roundTrip(sock, `ping${i}`);
      expect(String(data)).toBe(`ping${i}`);
      expect(ms).toBeGreaterThanOrEqual(240); // 300 - 50 jitter - timer slack
      expect(ms).toBeLessThan(3000);
    }
  });

  it('adds up across directions (upstream + downstream)', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'latency', stream: 'upstream', attributes: { latency: 150 } });
    await addToxic(p, { type: 'latency', stream: 'downstream', attributes: { latency: 150 } });
    const sock = await open(p.listen);
    const { ms } = await roundTrip(sock, 'both');
    expect(ms).toBeGreaterThanOrEqual(280);
  });

  it('applies to live connections when added, updated and removed', async () => {
    const p = await proxyTo(echo.address);
    const sock = await open(p.listen);
    const before = await roundTrip(sock, 'a');
    expect(before.ms).toBeLessThan(1000);

    const toxic = await addToxic(p, { type: 'latency', attributes: { latency: 250 } });
    expect((await roundTrip(sock, 'b')).ms).toBeGreaterThanOrEqual(230);

    await toxic.update({ attributes: { latency: 500 } } as any);
    expect((await roundTrip(sock, 'c')).ms).toBeGreaterThanOrEqual(470);

    await toxic.remove();
    const after = await roundTrip(sock, 'd');
    expect(after.ms).toBeLessThan(230);
  });
});

describe('removing a toxic while it holds data', () => {
  it('latency: the delayed chunk is released at once, not dropped', async () => {
    const p = await proxyTo(echo.address);
    const toxic = await addToxic(p, { type: 'latency', attributes: { latency: 3000 } });
    const sock = await open(p.listen);
    const trip = roundTrip(sock, 'held');
    await sleep(200);
    await toxic.remove();
    const { data, ms } = await trip;
    expect(String(data)).toBe('held');
    expect(ms).toBeLessThan(2000);
  });

  it('bandwidth: the rest of the throttled data flows at full speed', async () => {
    const payload = Buffer.alloc(200_000, 5);
    const sender = await serverFor(startSender(payload));
    const p = await proxyTo(sender.address);
    const toxic = await addToxic(p, { type: 'bandwidth', attributes: { rate: 10 } }); // would take 20 s
    const sock = await open(p.listen);
    const outcome = collect(sock, 8000);
    await sleep(300);
    await toxic.remove();
    const res = await outcome;
    expect(res.how).toBe('closed');
    expect(res.data.equals(payload)).toBe(true);
    expect(res.ms).toBeLessThan(5000);
  });
});

describe('toxicity', () => {
  it('toxicity 0 never applies the toxic', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'latency', toxicity: 0, attributes: { latency: 600 } });
    await addToxic(p, { type: 'reset_peer', stream: 'upstream', toxicity: 0 });
    for (let i = 0; i < 5; i++) {
      const sock = await open(p.listen);
      const { ms, data } = await roundTrip(sock, `n${i}`);
      expect(String(data)).toBe(`n${i}`);
      expect(ms).toBeLessThan(500);
      sock.destroy();
    }
  });

  it('is rolled once per connection: each connection is consistently affected or not', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'latency', toxicity: 0.5, attributes: { latency: 250 } });
    const conns = await Promise.all(Array.from({ length: 16 }, () => open(p.listen)));
    const slow = await Promise.all(
      conns.map(async (sock) => {
        const a = await roundTrip(sock, 'one');
        const b = await roundTrip(sock, 'two');
        const slowA = a.ms >= 230;
        const slowB = b.ms >= 230;
        expect(slowA).toBe(slowB); // same roll for the whole connection
        return slowA;
      }),
    );
    // P(all 16 the same) = 2^-15.
    expect(slow).toContain(true);
    expect(slow).toContain(false);
  });
});

describe('timeout', () => {
  it('stalls data and closes the connection after the timeout', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'timeout', attributes: { timeout: 300 } });
    const sock = await open(p.listen);
    const outcome = collect(sock, 5000);
    sock.write('anyone there?');
    const res = await outcome;
    expect(res.data.length).toBe(0);
    expect(res.how).toBe('closed');
    expect(res.ms).toBeGreaterThanOrEqual(270);
  });

  it('timeout 0 stalls forever; removing the toxic closes the stalled connection', async () => {
    const p = await proxyTo(echo.address);
    const toxic = await addToxic(p, { type: 'timeout', attributes: { timeout: 0 } });
    const sock = await open(p.listen);
    sock.write('hello?');
    const stalled = await collect(sock, 400);
    expect(stalled.how).toBe('deadline'); // still open, nothing came back
    expect(stalled.data.length).toBe(0);

    const closing = collect(sock, 3000);
    await toxic.remove();
    const res = await closing;
    expect(res.how).toBe('closed');
  });

  it('removing it also closes connections its toxicity roll spared, like Toxiproxy (Cleanup runs on every link)', async () => {
    const p = await proxyTo(echo.address);
    const toxic = await addToxic(p, { type: 'timeout', toxicity: 0, attributes: { timeout: 0 } });
    const sock = await open(p.listen);
    const { data } = await roundTrip(sock, 'spared?');
    expect(String(data)).toBe('spared?'); // the roll ran the noop: data flows
    const closing = collect(sock, 3000);
    await toxic.remove();
    const res = await closing;
    expect(res.how).toBe('closed');
  });
});

describe('reset_peer', () => {
  it('resets the connection (ECONNRESET) once data flows', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'reset_peer', attributes: { timeout: 0 } });
    const sock = await open(p.listen);
    const outcome = collect(sock, 3000);
    sock.write('boom');
    const res = await outcome;
    expect(res.how).toBe('error');
    expect(res.error?.code).toBe('ECONNRESET');
    expect(res.data.length).toBe(0);
  });

  it('waits timeout ms before the reset', async () => {
    const p = await proxyTo(echo.address);
    await addToxic(p, { type: 'reset_peer', stream: 'upstream', attributes: { timeout: 250 } });
    const sock = await open(p.listen);
    const outcome = collect(sock, 3000);
    sock.write('boom');
    const res = await outcome;
    expect(res.error?.code).toBe('ECONNRESET');
    expect(res.ms).toBeGreaterThanOrEqual(220);
  });
});

describe('bandwidth', () => {
  it('throttles to about rate KB/s', async () => {
    const payload = Buffer.alloc(60_000, 1);
    const sender = await serverFor(startSender(payload));
    const p = await proxyTo(sender.address);
    await addToxic(p, { type: 'bandwidth', attributes: { rate: 100 } }); // 100 KB/s -> 60 KB in ~600 ms
    const sock = await open(p.listen);
    const res = await collect(sock, 8000);
    expect(res.how).toBe('closed');
    expect(res.data.length).toBe(payload.length);
    expect(res.lastByteMs!).toBeGreaterThanOrEqual(450);
    expect(res.lastByteMs!).toBeLessThan(6000);
    // Throttled, the data arrives in pieces (at most 10 KB per 100 ms).
    expect(res.chunks.length).toBeGreaterThanOrEqual(4);
  });

  it('throttles the upstream direction too', async () => {
    let received = 0;
    let doneAt = 0;
    const t0 = Date.now();
    const sink = await serverFor(
      startServer((s) =>
        s.on('data', (d: Buffer) => {
          received += d.length;
          if (received >= 30_000) doneAt = Date.now();
        }),
      ),
    );
    const p = await proxyTo(sink.address);
    await addToxic(p, { type: 'bandwidth', stream: 'upstream', attributes: { rate: 50 } }); // 30 KB at 50 KB/s ~ 600 ms
    const sock = await open(p.listen);
    sock.write(Buffer.alloc(30_000, 2));
    for (let i = 0; i < 100 && doneAt === 0; i++) await sleep(50);
    expect(received).toBe(30_000);
    expect(doneAt - t0).toBeGreaterThanOrEqual(450);
  });
});

describe('backpressure', () => {
  it('a throttled link stops reading its source instead of buffering everything', async () => {
    let upstreamSock: net.Socket | undefined;
    const payload = Buffer.alloc(24 << 20, 4); // far more than socket buffers + the proxy's high-water mark
    const sender = await serverFor(
      startServer((s) => {
        upstreamSock = s;
        s.write(payload);
      }),
    );
    const p = await proxyTo(sender.address);
    await addToxic(p, { type: 'bandwidth', attributes: { rate: 10 } });
    const sock = await open(p.listen);
    await sleep(600);
    // The proxy read at most ~1 MiB + kernel buffers, so most of the payload is still queued in the sender.
    expect(upstreamSock).toBeDefined();
    expect(upstreamSock!.writableLength).toBeGreaterThan(8 << 20);
    sock.destroy();
  });
});

describe('slow_close', () => {
  it('delays the close by delay ms after the upstream closed', async () => {
    const sender = await serverFor(startSender(Buffer.from('bye')));
    const plain = await proxyTo(sender.address);
    const p = await proxyTo(sender.address);
    await addToxic(p, { type: 'slow_close', attributes: { delay: 400 } });

    const control = await collect(await open(plain.listen), 3000);
    expect(control.how).toBe('closed');

    const res = await collect(await open(p.listen), 3000);
    expect(String(res.data)).toBe('bye'); // data is not delayed
    expect(res.how).toBe('closed');
    expect(res.ms - (res.lastByteMs ?? 0)).toBeGreaterThanOrEqual(350);
    expect(res.ms).toBeGreaterThan(control.ms);
  });
});

describe('slicer', () => {
  it('delivers one write as many small chunks, intact and in order', async () => {
    const payload = Buffer.from(Array.from({ length: 2000 }, (_, i) => 65 + (i % 26)));
    const sender = await serverFor(startSender(payload));
    const p = await proxyTo(sender.address);
    await addToxic(p, { type: 'slicer', attributes: { average_size: 10, size_variation: 5, delay: 2000 } });
    const res = await collect(await open(p.listen), 8000);
    expect(res.how).toBe('closed');
    expect(res.data.equals(payload)).toBe(true);
    expect(res.chunks.length).toBeGreaterThanOrEqual(20);
    expect(Math.max(...res.chunks.map((c) => c.length))).toBeLessThan(1000);
  });
});

describe('limit_data', () => {
  it('cuts the connection after N bytes downstream', async () => {
    const sender = await serverFor(startSender(Buffer.alloc(1000, 3), false));
    const p = await proxyTo(sender.address);
    await addToxic(p, { type: 'limit_data', attributes: { bytes: 100 } });
    const res = await collect(await open(p.listen), 3000);
    expect(res.data.length).toBe(100);
    expect(res.how).toBe('closed');
  });

  it('cuts the connection after N bytes upstream; the upstream sees exactly N', async () => {
    const chunks: Buffer[] = [];
    let upstreamClosed = false;
    const sink = await serverFor(
      startServer((s) => {
        s.on('data', (d: Buffer) => chunks.push(d));
        s.on('close', () => (upstreamClosed = true));
      }),
    );
    const p = await proxyTo(sink.address);
    await addToxic(p, { type: 'limit_data', stream: 'upstream', attributes: { bytes: 5 } });
    const sock = await open(p.listen);
    const outcome = collect(sock, 3000);
    sock.write('hello world');
    expect((await outcome).how).toBe('closed');
    for (let i = 0; i < 40 && !upstreamClosed; i++) await sleep(25);
    expect(String(Buffer.concat(chunks))).toBe('hello');
    expect(upstreamClosed).toBe(true);
  });
});

describe('enabled: false', () => {
  it('refuses new connections and cuts existing ones; re-enabling restores traffic', async () => {
    const p = await proxyTo(echo.address);
    const live = await open(p.listen);
    await roundTrip(live, 'x');
    const cut = collect(live, 3000);

    await p.update({ enabled: false, listen: p.listen, upstream: p.upstream });
    expect((await cut).how).toBe('closed');
    await expect(connect(p.listen)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    await p.update({ enabled: true, listen: p.listen, upstream: p.upstream });
    const sock = await open(p.listen);
    expect(String((await roundTrip(sock, 'again')).data)).toBe('again');
  });

  it('deleting a proxy cuts its connections; reset restores disabled proxies and clears toxics', async () => {
    const p = await proxyTo(echo.address);
    const live = await open(p.listen);
    await roundTrip(live, 'x');
    const cut = collect(live, 3000);
    await p.remove();
    expect((await cut).how).toBe('closed');

    const q = await proxyTo(echo.address);
    await addToxic(q, { type: 'timeout', attributes: { timeout: 0 } });
    await q.update({ enabled: false, listen: q.listen, upstream: q.upstream });
    await client.reset();
    const sock = await open(q.listen);
    expect(String((await roundTrip(sock, 'ok')).data)).toBe('ok');
  });
});

describe('shutdown', () => {
  it('close() cuts every connection, even one whose peer stopped reading', async () => {
    const own = await startToxiproxyServer({ port: 0 });
    try {
      const sender = await serverFor(startServer((s) => s.write(Buffer.alloc(8 << 20, 6))));
      const p = await new Toxiproxy(own.url).createProxy({ name: 'stuck', listen: '127.0.0.1:0', upstream: sender.address });
      const sock = await open(p.listen);
      sock.pause(); // never read: the proxy's writes to us back up
      await sleep(300);
      sock.end(); // half-close: the proxy ends both directions but cannot flush to us
      await sleep(200);
      const closed = await Promise.race([own.close().then(() => 'closed'), sleep(5000).then(() => 'hung')]);
      expect(closed).toBe('closed');
      await expect(connect(p.listen)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      await Promise.race([own.close(), sleep(1000)]);
    }
  });
});

describe('upstream down', () => {
  it('accepts then closes the client when the upstream refuses', async () => {
    const gone = await startEcho();
    const addr = gone.address;
    await gone.close();
    const p = await proxyTo(addr);
    const sock = await open(p.listen);
    const res = await collect(sock, 3000);
    expect(res.how).not.toBe('deadline');
    expect(res.data.length).toBe(0);
  });
});
