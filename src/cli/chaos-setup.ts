/**
 * What a run's fault schedules can do against the proxies that exist, worked out before load:
 * which proxies a step can act on, which steps are skipped and why, and the flag that would
 * let them run. A fault that cannot reach anything is never silently dropped: a step the user
 * asked for (a named scenario with faults, a --config schedule) that cannot run is refused
 * (exit 3, naming the flag to add); a step of the default suite's chaos phase is skipped, its
 * rules are not declared, and the reason goes into the run record (`faultsSkipped`).
 */
import { EXIT, PaystormError, type FaultRunInfo, type FaultStep, type Scenario } from '../spec/index.ts';
import { type RunRecord } from '../history/index.ts';

export type SkippedFault = NonNullable<RunRecord['faultsSkipped']>[number];

export interface FaultPlanInput {
  scenarios: readonly Scenario[];
  /** Whether the scenarios were named on the command line (not the default suite). */
  named: boolean;
  /** The --config schedule. */
  extraFaults: readonly FaultStep[];
  /** Proxies that exist on the Toxiproxy server (created by this run or already there); null when the run has no Toxiproxy. */
  proxies: readonly string[] | null;
  toxiproxyUrl: string | null;
  /** host:port of the target, for the suggested `client` proxy. */
  targetHost: string;
  run: FaultRunInfo;
}

export interface FaultPlan {
  /** Proxies a fault step can act on in this run. */
  faultProxies: string[];
  skipped: SkippedFault[];
  /** One line per skipped proxy, for stderr. */
  notes: string[];
}

/** The schedule a scenario runs in this run. */
export function scenarioSchedule(s: Scenario, run: FaultRunInfo): FaultStep[] {
  return s.faults?.scheduleFor?.(run) ?? s.faults?.schedule ?? [];
}

/** The flag (and what it does) that provides a missing proxy. */
export function missingProxyFix(proxy: string, toxiproxyUrl: string | null, targetHost: string): string {
  if (proxy === 'client') {
    return `add --proxy "client=127.0.0.1:4110>${targetHost}": paystorm then sends its own requests through it (paystorm -> client proxy -> service)`;
  }
  if (proxy === 'upstream') {
    return `add --proxy "upstream=LISTEN_HOST:PORT>PROCESSOR_HOST:PORT" and point the service's processor URL at LISTEN_HOST:PORT${toxiproxyUrl ? '' : ' (without --toxiproxy, paystorm starts its embedded Toxiproxy-compatible proxy for it)'}`;
  }
  return `add --proxy "${proxy}=LISTEN_HOST:PORT>UPSTREAM_HOST:PORT"`;
}

export function planFaults(i: FaultPlanInput): FaultPlan {
  const have = new Set(i.proxies ?? []);
  const where = i.toxiproxyUrl ? `on Toxiproxy at ${i.toxiproxyUrl}` : 'in this run (no --toxiproxy and no --proxy)';
  const why = (proxy: string) => `no "${proxy}" proxy ${where}: ${missingProxyFix(proxy, i.toxiproxyUrl, i.targetHost)}`;

  const refused: string[] = [];
  let firstField = '--proxy';
  i.extraFaults.forEach((s, n) => {
    if (!have.has(s.proxy)) {
      refused.push(`faults[${n}].proxy: ${why(s.proxy)}`);
      firstField = refused.length === 1 ? `faults[${n}].proxy` : firstField;
    }
  });

  const skipped: SkippedFault[] = [];
  for (const s of i.scenarios) {
    const steps = scenarioSchedule(s, i.run);
    const missing = steps.filter((st) => !have.has(st.proxy));
    if (missing.length === 0) continue;
    // Asked for by name and nothing of it can run: refuse rather than pass on nothing.
    if (i.named && missing.length === steps.length) {
      for (const p of new Set(missing.map((m) => m.proxy))) refused.push(`scenario ${s.name}: ${why(p)}`);
      continue;
    }
    for (const st of missing) skipped.push({ scenario: s.name, proxy: st.proxy, type: st.type, reason: why(st.proxy) });
  }
  if (refused.length) {
    throw new PaystormError(`a fault schedule names proxies this run does not have:\n  ${refused.join('\n  ')}`, EXIT.usage, firstField);
  }
  const notes: string[] = [];
  const byScenarioProxy = new Map<string, SkippedFault[]>();
  for (const k of skipped) byScenarioProxy.set(`${k.scenario}\u0000${k.proxy}`, [...(byScenarioProxy.get(`${k.scenario}\u0000${k.proxy}`) ?? []), k]);
  for (const ks of byScenarioProxy.values()) {
    notes.push(`${ks[0].scenario}: ${ks.length} fault step(s) (${ks.map((k) => k.type).join(', ')}) skipped, their rules not judged: ${ks[0].reason}.`);
  }
  return { faultProxies: [...have], skipped, notes };
}

/**
 * The URL paystorm sends its requests to when they go through a proxy in front of the service:
 * the target's scheme and path on the proxy's listen address. A wildcard listen address
 * (0.0.0.0, [::], empty) is reached on the Toxiproxy host.
 */
export function viaProxyUrl(targetUrl: string, listen: string, toxiproxyUrl: string): string {
  const u = new URL(targetUrl);
  const colon = listen.lastIndexOf(':');
  let host = listen.slice(0, colon);
  const port = listen.slice(colon + 1);
  if (host === '' || host === '0.0.0.0' || host === '[::]' || host === '::') host = new URL(toxiproxyUrl).hostname;
  u.host = `${host}:${port}`;
  return u.toString().replace(/\/$/, targetUrl.endsWith('/') ? '/' : '');
}
