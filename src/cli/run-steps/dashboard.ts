/**
 * The first step of `paystorm run` with --dashboard PORT: the live page's server, opened before anything
 * else starts, so a port in use or a bad host stops the run (exit 3) before any load. It watches
 * the run's LiveRun, and stays up after the verdict until every page watching has loaded the
 * final report (a few seconds at most), then closes (docs/dashboard.md).
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { EXIT, PaystormError } from '../../spec/index.ts';
import { DashboardFeed } from '../../report/dashboard/feed.ts';
import { startDashboardServer, type DashboardServer } from '../../report/dashboard/server.ts';
import type { RunSettings } from './settings.ts';
import type { RunScope } from './scope.ts';

const DASHBOARD_DEFAULT_HOST = '127.0.0.1';

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** What is wrong with a --dashboard-host value, with the fix; nothing when it is a host name or an IP address. */
export function dashboardHostProblem(host: string): string | undefined {
  if (isIP(host) || HOST_NAME.test(host)) return undefined;
  return `${JSON.stringify(host)} is not a host name or IP address: pass the address to listen on, such as 127.0.0.1 (this machine only) or 0.0.0.0 (every interface), without a scheme or a port (the port is --dashboard).`;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

async function listen(s: RunSettings, feed: DashboardFeed, host: string, port: number): Promise<DashboardServer> {
  try {
    return await startDashboardServer({ feed, host, port, reportFile: join(s.runDir, 'report.html') });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new PaystormError(`--dashboard: port ${port} is in use on ${host}; pass a free port (or 0 for any free one).`, EXIT.usage, '--dashboard');
    if (code === 'EACCES') throw new PaystormError(`--dashboard: port ${port} may not be opened by this user on ${host}; pass a port above 1023 (or 0 for any free one).`, EXIT.usage, '--dashboard');
    if (code === 'EADDRNOTAVAIL') throw new PaystormError(`--dashboard-host: ${host} is not an address of this machine; pass one of its addresses, 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`, EXIT.usage, '--dashboard-host');
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new PaystormError(`--dashboard-host: ${host} does not resolve to an address; pass an IP address of this machine, such as 127.0.0.1 or 0.0.0.0.`, EXIT.usage, '--dashboard-host');
    throw e;
  }
}

export async function openDashboard(s: RunSettings, scope: RunScope): Promise<void> {
  const port = s.cfg.dashboard;
  if (port === undefined) return;
  const host = s.cfg.dashboardHost ?? DASHBOARD_DEFAULT_HOST;
  const feed = new DashboardFeed({ clock: scope.clock, runId: s.runId });
  const server = await listen(s, feed, host, port);
  const unwatch = scope.live.watch(feed);
  scope.io.stderr.write(`paystorm: live page: ${server.url}${LOOPBACK.has(host) ? '' : ` (listening on ${host}: anyone who can reach it sees the run; the page has no login)`}\n`);
  scope.onFinal(async () => {
    unwatch();
    await server.finish();
  });
}
