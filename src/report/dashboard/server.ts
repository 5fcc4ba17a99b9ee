/**
 * The live page's HTTP server (`paystorm run --dashboard PORT`):
 *   GET /            the page (self-contained: uPlot, styles and scripts inlined)
 *   GET /events      server-sent events: the feed's state on connect, every `intervalMs`, and at
 *                    once when a violation, a scenario, a phase or the verdict arrives
 *   GET /state.json  the same state, once (for polling and scripts)
 *   GET /report      the run's report.html, once the verdict is written (404 before)
 * It only reads: no request changes the run.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { DashboardFeed } from './feed.ts';
import { renderDashboardPage } from './page.ts';

export interface DashboardServerOptions {
  feed: DashboardFeed;
  host: string;
  /** 0: any free port. */
  port: number;
  /** The run's report.html, served at /report once the feed has the verdict. */
  reportFile: string;
  /** How often the state is pushed to open pages (default 2000 ms). */
  intervalMs?: number;
}

export interface DashboardServer {
  /** http://host:port/ (a wildcard host shown as 127.0.0.1). */
  url: string;
  port: number;
  /** Pages connected to /events now. */
  readonly clients: number;
  /**
   * Closes once every page that was watching at the verdict has loaded the final report, or after
   * `graceMs` (default 5000), whichever is first; at once when no page watches.
   */
  finish(graceMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Pushes after a change are held this long, so a burst of phases is one message. */
const CHANGE_DEBOUNCE_MS = 200;

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};
const PAGE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; frame-src 'self'";

export async function startDashboardServer(o: DashboardServerOptions): Promise<DashboardServer> {
  const page = renderDashboardPage();
  const intervalMs = o.intervalMs ?? 2000;
  const streams = new Set<ServerResponse>();
  let timer: NodeJS.Timeout | null = null;
  let pending: NodeJS.Timeout | null = null;
  let reportLoads = 0;
  const reportLoaded = new Set<() => void>();

  const message = () => `data: ${JSON.stringify(o.feed.state())}\n\n`;
  const push = () => {
    if (pending) clearTimeout(pending);
    pending = null;
    if (streams.size === 0) return;
    const m = message();
    for (const res of streams) res.write(m);
  };
  const unsubscribe = o.feed.onChange((urgent) => {
    if (urgent) return push();
    pending ??= setTimeout(push, CHANGE_DEBOUNCE_MS);
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://dashboard').pathname;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', ...SECURITY_HEADERS }).end();
      return;
    }
    if (path === '/' || path === '/index.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP, ...SECURITY_HEADERS }).end(page);
    } else if (path === '/state.json') {
      res.writeHead(200, { 'content-type': 'application/json', ...SECURITY_HEADERS }).end(JSON.stringify(o.feed.state()));
    } else if (path === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', connection: 'keep-alive', ...SECURITY_HEADERS });
      // A dropped connection retries after this long.
      res.write(`retry: ${intervalMs}\n${message()}`);
      streams.add(res);
      req.socket.setNoDelay(true);
      timer ??= setInterval(push, intervalMs);
      res.on('close', () => {
        streams.delete(res);
        if (streams.size === 0 && timer) {
          clearInterval(timer);
          timer = null;
        }
      });
    } else if (path === '/report') {
      if (!o.feed.done) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('The run has not ended yet: the report is written after the verdict.\n');
        return;
      }
      const html = await readFile(o.reportFile, 'utf8').catch(() => null);
      if (html === null) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end(`No report at ${o.reportFile}.\n`);
      } else {
        // report.html carries its own Content-Security-Policy (no network at all).
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS }).end(html);
      }
      reportLoads++;
      for (const fn of reportLoaded) fn();
    } else {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('Not found: the live page is at /.\n');
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`dashboard: ${(e as Error)?.message ?? String(e)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = o.host === '0.0.0.0' || o.host === '::' || o.host === '' ? '127.0.0.1' : o.host.includes(':') ? `[${o.host}]` : o.host;

  let closed: Promise<void> | null = null;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      unsubscribe();
      if (timer) clearInterval(timer);
      if (pending) clearTimeout(pending);
      for (const res of streams) res.end();
      streams.clear();
      server.close(() => resolve());
      server.closeAllConnections();
    }));

  return {
    url: `http://${shownHost}:${port}/`,
    port,
    get clients() {
      return streams.size;
    },
    async finish(graceMs = 5000) {
      if (o.feed.done && streams.size > 0) {
        // Every page open at the verdict loads the report once; the verdict itself was pushed at once.
        const watching = streams.size;
        await new Promise<void>((resolve) => {
          const done = () => {
            if (reportLoads < watching) return;
            clearTimeout(t);
            reportLoaded.delete(done);
            resolve();
          };
          const t = setTimeout(() => {
            reportLoaded.delete(done);
            resolve();
          }, graceMs);
          reportLoaded.add(done);
          done();
        });
      }
      await close();
    },
    close,
  };
}
