/**
 * Step 2 of `paystorm run`: the proxies the fault schedules act on, and so the address the
 * run's requests go to. Starts the embedded service behind its upstream proxy (and, when a
 * scenario faults the client link, puts a proxy in front of it); on a real target, creates the
 * --proxy proxies. Then checks every schedule against the proxies that exist: what can run runs,
 * what cannot is said.
 */
import { EXIT, PaystormError, type ProxySpec } from '../../spec/index.ts';
import { faultRunInfo } from '../../engine/index.ts';
import { openChaosSession, groupSessions, ToxiproxyDriver, ToxiproxyApiError, type ChaosGroup, type ChaosSession } from '../../chaos/index.ts';
import { startToxiproxyServer } from '../../chaos/proxy/index.ts';
import { planFaults, scenarioSchedule, viaProxyUrl, type FaultPlan } from '../chaos-setup.ts';
import type { RunSettings } from './settings.ts';
import type { RunScope } from './scope.ts';
import type { ResolvedTarget } from './target.ts';

export interface OpenedChaos {
  /** Where the run's requests go: the target, or a proxy in front of it. */
  targetUrl: string;
  /** The chaos sessions, when any proxy was opened. */
  chaos: ChaosGroup | null;
  toxiproxyUrl: string | undefined;
  faultPlan: FaultPlan;
}

export async function openChaos(s: RunSettings, t: ResolvedTarget, scope: RunScope): Promise<OpenedChaos> {
  const { cfg, embedded, proxies, scenarios, extraFaults } = s;
  const { stack } = t;
  const io = scope.io;
  let targetUrl = cfg.target ?? '';
  let chaos: ChaosGroup | null = null;
  let toxiproxyUrl = cfg.toxiproxy ?? stack?.toxiproxyUrl;
  // --proxy on a real target without --toxiproxy: the proxies live in paystorm's embedded Toxiproxy-compatible proxy.
  if (!toxiproxyUrl && proxies.length > 0) {
    const own = await startToxiproxyServer({ host: '127.0.0.1', port: 0 });
    scope.onCleanup(() => own.close());
    toxiproxyUrl = own.url;
    io.stderr.write(`paystorm: no --toxiproxy: started the embedded Toxiproxy-compatible proxy (API ${own.url}) for --proxy\n`);
  }
  const runInfo = faultRunInfo({ ...(s.durationMs !== undefined ? { durationMs: s.durationMs } : {}), timeScale: s.timeScale, target: { embedded }, ...(s.upstreamTimeoutMs !== undefined ? { upstreamTimeoutMs: s.upstreamTimeoutMs } : {}) });
  const scheduled = [...scenarios.flatMap((sc) => scenarioSchedule(sc, runInfo)), ...extraFaults];
  const sessions: ChaosSession[] = [];
  const openSession = async (specs: ProxySpec[]) => {
    let session: ChaosSession;
    try {
      session = await openChaosSession({ toxiproxyUrl: toxiproxyUrl!, proxies: specs, now: () => scope.clock.now(), wall: () => scope.clock.wall(), sink: scope.gate.write, exitHooks: false, notice: (line) => io.stderr.write(`${line}\n`) });
    } catch (e) {
      // Toxiproxy down or refusing: its sentence says what to do; no stack trace (exit 3).
      if (e instanceof ToxiproxyApiError) throw new PaystormError(`--toxiproxy: ${e.message}`, EXIT.usage, '--toxiproxy');
      throw e;
    }
    sessions.push(session);
    return session;
  };
  if (toxiproxyUrl && (embedded || proxies.length > 0 || scheduled.length > 0)) {
    scope.onCleanup(async () => {
      for (const session of sessions.splice(0).reverse()) await session.cleanup();
    });
    // The embedded upstream proxy must exist before the service starts: its address is the service's upstream URL.
    const first = await openSession(embedded ? [stack!.upstreamProxy, ...proxies.filter((p) => p.name !== 'client')] : proxies);
    if (stack) targetUrl = await stack.startService(first.proxies.get('upstream')!.listen);
    // A client-link fault needs paystorm's own traffic to go through a proxy in front of the service.
    if (embedded && scheduled.some((f) => f.proxy === 'client')) {
      const client = await openSession([{ name: 'client', listen: '127.0.0.1:0', upstream: new URL(targetUrl).host }]);
      targetUrl = `http://${client.proxies.get('client')!.listen}`;
    }
    if (!embedded) {
      for (const p of first.proxies.values()) io.stderr.write(`paystorm: proxy "${p.name}" listens on ${p.listen} and forwards to ${p.upstream}\n`);
      // A client proxy this run created sits in front of the service: paystorm's own requests go through it.
      const client = first.proxies.get('client');
      if (client) {
        if (client.upstream !== new URL(targetUrl).host) io.stderr.write(`paystorm: warning: proxy "client" forwards to ${client.upstream}, not to the target ${new URL(targetUrl).host}\n`);
        targetUrl = viaProxyUrl(targetUrl, client.listen, toxiproxyUrl);
        io.stderr.write(`paystorm: requests to the target go through proxy "client" (${targetUrl})\n`);
      }
    }
    chaos = groupSessions(sessions);
  } else if (stack) {
    targetUrl = await stack.startService(new URL(stack.processorUrl).host);
  }
  // Check every schedule against the proxies that exist before load: run what can run, say what cannot.
  const known = toxiproxyUrl && chaos ? [...new Set([...sessions.flatMap((x) => [...x.proxies.keys()]), ...(await new ToxiproxyDriver(toxiproxyUrl).listProxies()).map((p) => p.name)])] : null;
  const faultPlan = planFaults({
    scenarios,
    named: (cfg.scenarios ?? []).length > 0,
    extraFaults,
    proxies: known,
    toxiproxyUrl: toxiproxyUrl ?? null,
    targetHost: new URL(cfg.target ?? targetUrl).host,
    run: runInfo,
  });
  for (const n of faultPlan.notes) io.stderr.write(`paystorm: ${n}\n`);
  return { targetUrl, chaos, toxiproxyUrl, faultPlan };
}
