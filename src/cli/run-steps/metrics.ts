/**
 * `paystorm run --metrics-port`: opens the run's OpenMetrics endpoint before anything else
 * starts, so a port in use or an address this machine does not have stops the run before any
 * load (exit 3). It watches the run (scope.live) and stays up until the verdict is written,
 * then waits for one last scrape so a Prometheus sees the final values (docs/metrics.md).
 */
import { EXIT, PaystormError } from '../../spec/index.ts';
import type { ChaosGroup } from '../../chaos/index.ts';
import { INVARIANTS } from '../../oracle/index.ts';
import { RunMetricsExporter, startMetricsEndpoint, METRICS_PATH, type MetricsEndpoint } from '../../report/openmetrics/index.ts';
import type { RunSettings } from './settings.ts';
import type { RunScope } from './scope.ts';

export const METRICS_HOST_DEFAULT = '127.0.0.1';

/** Why the endpoint could not listen, as a usage error naming the option and the fix; other errors unchanged. */
function listenError(e: unknown, host: string, port: number): unknown {
  const code = (e as { code?: string }).code;
  if (code === 'EADDRINUSE') return new PaystormError(`--metrics-port: port ${port} is in use on ${host}; pass a free port (or 0 for any free one).`, EXIT.usage, '--metrics-port');
  if (code === 'EACCES') return new PaystormError(`--metrics-port: port ${port} may not be opened by this user on ${host}; pass a port of 1024 or above (or 0 for any free one).`, EXIT.usage, '--metrics-port');
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_FAIL' || code === 'EAI_NONAME') {
    const what = code === 'EADDRNOTAVAIL' ? 'is not an address of this machine' : 'does not resolve to an address';
    return new PaystormError(
      `--metrics-host: ${JSON.stringify(host)} ${what} (${code}); pass 127.0.0.1 (the default), 0.0.0.0 to be scraped from other hosts, or one of this machine's addresses.`,
      EXIT.usage,
      '--metrics-host',
    );
  }
  return e;
}

export interface OpenedMetrics {
  /** The active-fault gauge reads these sessions' open windows from now on. */
  watchChaos(chaos: ChaosGroup | null): void;
}

/** Null without --metrics-port. */
export async function openMetrics(s: Pick<RunSettings, 'cfg'>, scope: RunScope): Promise<OpenedMetrics | null> {
  const { metricsPort, metricsHost } = s.cfg;
  if (metricsPort === undefined) return null;
  const host = metricsHost ?? METRICS_HOST_DEFAULT;
  const exporter = new RunMetricsExporter(INVARIANTS.map((i) => i.id));
  let endpoint: MetricsEndpoint;
  try {
    endpoint = await startMetricsEndpoint({ host, port: metricsPort, registry: exporter.series.registry });
  } catch (e) {
    throw listenError(e, host, metricsPort);
  }
  const { stderr } = scope.io;
  const unwatch = scope.live.watch(exporter);
  scope.onFinal(async () => {
    unwatch();
    const waited = await endpoint.closeAfterFinalScrape();
    if (waited >= 1000) stderr.write(`paystorm: metrics endpoint closed (it waited ${(waited / 1000).toFixed(1)} s after the verdict for a final scrape)\n`);
  });
  stderr.write(`paystorm: metrics (OpenMetrics) at ${endpoint.url}${METRICS_PATH} until the verdict is written\n`);
  return {
    watchChaos: (chaos) => {
      if (chaos) exporter.watchFaults(() => chaos.sessions.flatMap((x) => x.activeWindows()));
    },
  };
}
