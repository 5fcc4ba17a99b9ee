/** The live page's server (src/report/dashboard/server.ts): the page, the event stream, the state, the final report, closing. */
import { get, type IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveRun } from '../../src/engine/index.ts';
import { DashboardFeed, type DashboardState } from '../../src/report/dashboard/feed.ts';
import { startDashboardServer, type DashboardServer } from '../../src/report/dashboard/server.ts';
import { fixtureSummary } from './fixture.ts';

const opened: DashboardServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function start(intervalMs = 60_000) {
  const dir = await mkdtemp(join(tmpdir(), 'paystorm-dash-'));
  dirs.push(dir);
  const live = new LiveRun(() => {});
  const feed = new DashboardFeed({ clock: { now: () => 1234 }, runId: 'run-9' });
  live.watch(feed);
  const reportFile = join(dir, 'report.html');
  const server = await startDashboardServer({ feed, host: '127.0.0.1', port: 0, reportFile, intervalMs });
  opened.push(server);
  return { live, feed, server, reportFile };
}

/** An open /events stream: its messages, parsed, as they arrive. */
function events(url: string) {
  const messages: DashboardState[] = [];
  const waiters: (() => void)[] = [];
  let res: IncomingMessage | null = null;
  let ended = false;
  const opened = new Promise<IncomingMessage>((resolve, reject) => {
    const req = get(`${url}events`, (r) => {
      res = r;
      let buf = '';
      r.setEncoding('utf8');
      r.on('data', (chunk: string) => {
        buf += chunk;
        let at: number;
        while ((at = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, at);
          buf = buf.slice(at + 2);
          const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
          if (data) messages.push(JSON.parse(data));
          for (const w of waiters.splice(0)) w();
        }
      });
      r.on('end', () => {
        ended = true;
        for (const w of waiters.splice(0)) w();
      });
      resolve(r);
    });
    req.on('error', reject);
  });
  return {
    messages,
    opened,
    get ended() {
      return ended;
    },
    /** Resolves when `n` messages have arrived (or the stream ended). */
    async count(n: number, timeoutMs = 3000) {
      const until = Date.now() + timeoutMs;
      while (messages.length < n && !ended) {
        if (Date.now() > until) throw new Error(`only ${messages.length} of ${n} messages in ${timeoutMs} ms`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return messages;
    },
    close: () => res?.destroy(),
  };
}

describe('dashboard server', () => {
  it('serves a self-contained page with its own security policy, and the state as JSON', async () => {
    const { server } = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(server.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('PaystormCharts');
    expect(html).toContain('EventSource');
    expect(html).toMatch(/uPlot/);
    // Nothing from another origin: no src= or href= to a URL.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const st = (await (await fetch(`${server.url}state.json`)).json()) as DashboardState;
    expect(st).toMatchObject({ runId: 'run-9', status: 'starting', elapsedMs: 1234 });
    expect((await fetch(`${server.url}nope`)).status).toBe(404);
    expect((await fetch(server.url, { method: 'POST' })).status).toBe(405);
  });

  it('streams the state on connect and pushes a violation at once, without waiting for the next tick', async () => {
    const { live, server } = await start(60_000);
    const stream = events(server.url);
    await stream.count(1);
    expect(stream.messages[0].violations).toEqual([]);
    const t0 = Date.now();
    live.violation({ invariant: 'no-card-data-returned', rules: ['PAY-9'], evidence: { message: 'card data returned' }, t: 900 });
    await stream.count(2);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(stream.messages[1].violations.map((v) => v.invariant)).toEqual(['no-card-data-returned']);
    expect(server.clients).toBe(1);
    stream.close();
  });

  it('pushes the state every interval while a page watches', async () => {
    const { server } = await start(150);
    const stream = events(server.url);
    await stream.count(4, 3000);
    stream.close();
  });

  it('serves the report only after the verdict, and closes once the watching page loaded it', async () => {
    const { live, server, reportFile } = await start();
    const stream = events(server.url);
    await stream.count(1);
    expect((await fetch(`${server.url}report`)).status).toBe(404);
    await writeFile(reportFile, '<!doctype html><title>the report</title>');
    live.verdict(fixtureSummary());
    await stream.count(2);
    expect(stream.messages[1].final).toMatchObject({ verdict: 'fail' });
    const finishing = server.finish(10_000);
    let finished = false;
    void finishing.then(() => (finished = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(finished).toBe(false); // the page has not loaded the report yet
    const t0 = Date.now();
    const report = await fetch(`${server.url}report`);
    expect(await report.text()).toContain('the report');
    await finishing;
    expect(Date.now() - t0).toBeLessThan(2000);
    await stream.count(99).catch(() => {});
    expect(stream.ended).toBe(true);
    await expect(fetch(server.url)).rejects.toThrow();
  });

  it('closes at once when no page watches, and after the grace when a page never loads the report', async () => {
    const a = await start();
    a.live.verdict(fixtureSummary());
    const t0 = Date.now();
    await a.server.finish(10_000);
    expect(Date.now() - t0).toBeLessThan(500);

    const b = await start();
    const stream = events(b.server.url);
    await stream.count(1);
    b.live.verdict(fixtureSummary());
    const t1 = Date.now();
    await b.server.finish(300);
    expect(Date.now() - t1).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t1).toBeLessThan(3000);
  });

  it('refuses a port already in use', async () => {
    const { server, feed } = await start();
    await expect(startDashboardServer({ feed, host: '127.0.0.1', port: server.port, reportFile: '/nonexistent' })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });
});
