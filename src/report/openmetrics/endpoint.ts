/**
 * The HTTP endpoint a Prometheus scrapes: `GET /metrics` answers the registry in the OpenMetrics
 * text format (prom-client writes it). It remembers when it was scraped, so that once the
 * verdict is in it can wait for one last scrape before it closes (`closeAfterFinalScrape`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenMetricsContentType, Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';
/** The longest a run waits for a final scrape after its verdict, whatever the scrape interval. */
export const FINAL_SCRAPE_WAIT_MAX_MS = 30_000;
/**
 * The least it waits once a scraper was seen: a busy scraper's scrapes jitter (two may come
 * back to back after a late one), so the last gap alone can be far shorter than its interval.
 */
export const FINAL_SCRAPE_WAIT_MIN_MS = 5_000;
/** Scrape start times kept to estimate the scraper's interval (the longest gap among them). */
const SCRAPES_KEPT = 5;

export interface MetricsEndpoint {
  /** `http://host:port` (the port the system gave for port 0). */
  readonly url: string;
  readonly port: number;
  /** Scrapes answered so far. */
  readonly scrapes: number;
  /**
   * Closes once a scrape has started after this call and been answered, or after twice the
   * longest gap between the last few scrapes (at least FINAL_SCRAPE_WAIT_MIN_MS, at most
   * FINAL_SCRAPE_WAIT_MAX_MS); at once when no scrape came (no scraper polls it).
   * Resolves with how long it waited (ms).
   */
  closeAfterFinalScrape(): Promise<number>;
  close(): Promise<void>;
}

export interface MetricsEndpointOptions {
  host: string;
  port: number;
  registry: Registry<OpenMetricsContentType>;
}

/** Starts listening; rejects with the listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL, ENOTFOUND) untouched. */
export async function startMetricsEndpoint(opts: MetricsEndpointOptions): Promise<MetricsEndpoint> {
  /** Start times (performance.now) of the last few scrapes. */
  const lastScrapes: number[] = [];
  let scrapes = 0;
  /** Called once a scrape's answer has gone out. */
  let afterScrape: (() => void) | null = null;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`paystorm serves its metrics at ${METRICS_PATH}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('GET only\n');
      return;
    }
    scrapes++;
    lastScrapes.push(performance.now());
    if (lastScrapes.length > SCRAPES_KEPT) lastScrapes.shift();
    const done = afterScrape;
    if (done) res.once('finish', done);
    opts.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (e: unknown) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`paystorm could not collect its metrics: ${(e as Error).message}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  let closed: Promise<void> | null = null;
  // A scraper's keep-alive connection must not hold the run open once the endpoint closes.
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return {
    url: `http://${host}:${port}`,
    port,
    get scrapes() {
      return scrapes;
    },
    async closeAfterFinalScrape() {
      const started = performance.now();
      // One scrape is enough to wait for: a scraper that started late in a short run has made only one.
      if (lastScrapes.length >= 1 && !closed) {
        let gap = 0;
        for (let i = 1; i < lastScrapes.length; i++) gap = Math.max(gap, lastScrapes[i] - lastScrapes[i - 1]);
        const waitMs = Math.min(FINAL_SCRAPE_WAIT_MAX_MS, Math.max(FINAL_SCRAPE_WAIT_MIN_MS, 2 * gap));
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, waitMs);
          afterScrape = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        afterScrape = null;
      }
      await close();
      return performance.now() - started;
    },
    close,
  };
}
