/**
 * A chaos session: the proxies one run creates on a Toxiproxy server, the fault
 * schedules it runs through them, and the cleanup that removes everything it added —
 * on normal exit, on SIGINT/SIGTERM, and when a step throws.
 */
import { EXIT, PaystormError, type FaultStep, type ProxySpec } from '../spec/index.ts';
import { type FaultRecord } from '../history/index.ts';
import { ToxiproxyDriver, type ProxyState, type ToxicState } from './driver.ts';
import { installCleanupHooks } from './exit-hooks.ts';
import { runWindows, TOXIC_PREFIX, toxicName } from './schedule.ts';

export type ProxyLink = FaultRecord['link'];

export interface ChaosSessionOptions {
  /** Toxiproxy API base URL, e.g. http://127.0.0.1:8474. */
  toxiproxyUrl: string;
  /** Proxies this run creates (and so deletes). Proxies that already exist may be named by steps without being listed here. */
  proxies: readonly ProxySpec[];
  /** Run-monotonic ms. */
  now: () => number;
  /** Epoch ms; defaults to Date.now. */
  wall?: () => number;
  /** Receives one record per closed fault window. */
  sink: (rec: FaultRecord) => void;
  /** Which link each proxy sits on; by default `client` for a proxy named "client", else `upstream`. */
  link?: Readonly<Record<string, ProxyLink>>;
  /** Install SIGINT/SIGTERM/beforeExit cleanup (default true). */
  exitHooks?: boolean;
  /** Where cleanup failures inside signal handlers are reported (default: stderr). */
  onError?: (err: unknown) => void;
  /** Where what the session did on its own is said, one line each (default: stderr). */
  notice?: (line: string) => void;
}

export interface SessionProxy extends ProxySpec {
  /** Whether this session created it (and will delete it). */
  created: boolean;
}

export interface ChaosSession {
  readonly toxiproxyUrl: string;
  /** Proxies the session created, by name, with the listen address Toxiproxy reported. */
  readonly proxies: ReadonlyMap<string, SessionProxy>;
  /** Applies a schedule on the clock; resolves when its last window closed. Aborting closes the open windows early. */
  runSchedule(steps: readonly FaultStep[], signal?: AbortSignal): Promise<FaultRecord[]>;
  /** Names of the faults active now. */
  activeFaults(): string[];
  /** The faults active now, by proxy and toxic type (one entry per open window). */
  activeWindows(): { proxy: string; type: string }[];
  /** Removes every toxic and proxy this session added and re-enables what it disabled. Idempotent. */
  cleanup(): Promise<void>;
}

interface OpenWindow {
  proxy: string;
  toxic: ToxicState;
  tStart: number;
  /** When Toxiproxy acknowledged the toxic (set once it did). */
  tApplied?: number;
  wallStart: number;
}

function describeLeftovers(url: string, found: string[]): string {
  return (
    `Toxiproxy at ${url} already holds ${found.join('; ')}, which this run did not create. ` +
    'A run killed with SIGKILL (or one that crashed) cannot clean up and leaves its proxies and toxics behind. ' +
    `Remove them (curl -X DELETE ${url}/proxies/NAME; or curl -X POST ${url}/reset, which removes every toxic and re-enables every proxy on the server but deletes none), ` +
    'or, to use a proxy that exists on purpose (e.g. populated from toxiproxy.json), leave it out of --proxy and name it in the schedule only.'
  );
}

export async function openChaosSession(opts: ChaosSessionOptions): Promise<ChaosSession> {
  const url = opts.toxiproxyUrl.replace(/\/+$/, '');
  const driver = new ToxiproxyDriver(url);
  const wall = opts.wall ?? Date.now;
  const onError = opts.onError ?? ((err: unknown) => process.stderr.write(`paystorm: chaos cleanup: ${(err as Error)?.message ?? String(err)}\n`));

  // Refuse to clobber: a same-named proxy or a paystorm toxic is someone else's or a leftover.
  const existing = await driver.listProxies();
  const found: string[] = [];
  for (const spec of opts.proxies) {
    const p = existing.find((e) => e.name === spec.name);
    if (p) found.push(`a proxy "${p.name}" (listen ${p.listen}, upstream ${p.upstream}${p.enabled === false ? ', disabled' : ''}${p.toxics.length ? `, toxics ${p.toxics.map((t) => t.name).join(', ')}` : ''})`);
  }
  for (const p of existing) {
    const ours = p.toxics.filter((t) => t.name.startsWith(TOXIC_PREFIX)).map((t) => t.name);
    if (ours.length && !opts.proxies.some((s) => s.name === p.name)) found.push(`paystorm toxics ${ours.join(', ')} on proxy "${p.name}"`);
  }
  if (found.length) throw new PaystormError(describeLeftovers(url, found), EXIT.usage, '--proxy');
  // A proxy that exists disabled is a `down` window a killed run never closed (a run re-enables
  // what it disabled, even on SIGINT/SIGTERM): left so, the run would start with that link down
  // and no fault record saying so. paystorm owns the fault schedule, so it puts it back up.
  const notice = opts.notice ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const p of existing.filter((e) => e.enabled === false)) {
    await driver.setEnabled(p.name, true);
    notice(
      `paystorm: chaos: proxy "${p.name}" on Toxiproxy at ${url} was disabled (left by a run killed inside a \`down\` window?); ` +
        're-enabled it, so the run starts with it up and it goes down only in the windows the schedule records.',
    );
  }

  const proxies = new Map<string, SessionProxy>();
  const open = new Map<number, OpenWindow>();
  /** Per proxy, how many `down` windows are open: it is re-enabled when the last closes. */
  const downCount = new Map<string, number>();
  /**
   * Per proxy, its enable/disable calls as one chain: each starts after the one before it has
   * been answered, so they land in the order they were asked for.
   */
  const toggles = new Map<string, Promise<unknown>>();
  /**
   * Per proxy, what the last call queued on its chain sets it to (absent: not known, e.g. that
   * call failed): a `down` window that opens while the proxy is, or is being, re-enabled
   * disables it again instead of trusting an earlier window's disable.
   */
  const queuedEnabled = new Map<string, boolean>();
  /** Per proxy, the number of the last call queued on its chain. */
  const lastToggle = new Map<string, number>();
  let toggleSeq = 0;
  const pending = new Set<Promise<unknown>>();
  /** Schedules running now; cleanup stops them through `stopAll` and waits for them. */
  const runs = new Set<Promise<unknown>>();
  const stopAll = new AbortController();
  let nextStep = 0;
  let closing: Promise<void> | null = null;
  let uninstallHooks: () => void = () => {};

  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };

  /**
   * Queues enabling/disabling `proxy` on its chain; resolves once Toxiproxy answered (or the
   * call was skipped). A re-enable is skipped when, by its turn, a `down` window is open again.
   */
  const setEnabled = (proxy: string, enabled: boolean): Promise<void> => {
    const seq = ++toggleSeq;
    lastToggle.set(proxy, seq);
    queuedEnabled.set(proxy, enabled);
    const run = async () => {
      if (enabled && (downCount.get(proxy) ?? 0) > 0) return;
      try {
        await driver.setEnabled(proxy, enabled);
      } catch (err) {
        // Its state is unknown now: the next `down` disables it rather than assume.
        if (lastToggle.get(proxy) === seq) queuedEnabled.delete(proxy);
        throw err;
      }
    };
    const p = (toggles.get(proxy) ?? Promise.resolve()).then(run, run);
    toggles.set(
      proxy,
      p.catch(() => undefined),
    );
    return track(p);
  };

  const linkOf = (proxy: string): ProxyLink => opts.link?.[proxy] ?? (proxy === 'client' ? 'client' : 'upstream');

  /** `tRemoving`: when paystorm asked to remove the toxic (absent when it never asked, as in cleanup after an error). */
  const emit = (w: OpenWindow, tRemoving?: number) => {
    const rec: FaultRecord = {
      v: 1,
      kind: 'fault',
      proxy: w.proxy,
      link: linkOf(w.proxy),
      toxic: w.toxic,
      tStart: w.tStart,
      tEnd: opts.now(),
      ...(w.tApplied !== undefined && tRemoving !== undefined && tRemoving >= w.tApplied ? { tApplied: w.tApplied, tRemoving } : {}),
      wallStart: w.wallStart,
    };
    try {
      opts.sink(rec);
    } catch (err) {
      onError(err);
    }
    return rec;
  };

  const cleanup = (): Promise<void> => {
    closing ??= (async () => {
      uninstallHooks();
      // Stop the schedules: they close their own open windows, then nothing new opens.
      stopAll.abort();
      await Promise.allSettled([...runs]);
      // Let in-flight API calls land first, so nothing is added after it was meant to be removed.
      await Promise.allSettled([...pending]);
      const problems: string[] = [];
      for (const [n, w] of [...open]) {
        open.delete(n);
        const tRemoving = opts.now();
        try {
          if (w.toxic.type === 'down') {
            const left = Math.max(0, (downCount.get(w.proxy) ?? 1) - 1);
            downCount.set(w.proxy, left);
            if (left === 0 && !proxies.get(w.proxy)?.created) await setEnabled(w.proxy, true);
          } else if (!proxies.get(w.proxy)?.created) {
            await driver.removeToxic(w.proxy, w.toxic.name);
          }
        } catch (err) {
          if ((err as { status?: number }).status !== 404) problems.push((err as Error).message);
        }
        emit(w, tRemoving);
      }
      for (const p of [...proxies.values()].filter((x) => x.created)) {
        try {
          await driver.deleteProxy(p.name);
        } catch (err) {
          if ((err as { status?: number }).status !== 404) problems.push((err as Error).message);
        }
      }
      if (problems.length) {
        throw new PaystormError(`chaos cleanup left things behind on ${url}:\n  ${problems.join('\n  ')}`, EXIT.target);
      }
    })();
    return closing;
  };

  try {
    for (const spec of opts.proxies) {
      const p: ProxyState = await driver.createProxy(spec);
      proxies.set(spec.name, { name: p.name, listen: p.listen, upstream: p.upstream, created: true });
    }
  } catch (err) {
    await cleanup().catch(onError);
    throw err;
  }
  if (opts.exitHooks !== false) uninstallHooks = installCleanupHooks(cleanup, onError);

  const openWindow = async (step: FaultStep, n: number) => {
    if (closing) throw new PaystormError('chaos session is closed: no fault can be applied after cleanup', EXIT.usage);
    const toxic: ToxicState = {
      name: toxicName(n, step.type),
      type: step.type,
      stream: step.stream,
      toxicity: step.type === 'down' ? 1 : step.toxicity,
      attributes: step.attributes,
    };
    // The window opens before the API call: a request may meet the toxic as soon as it is sent.
    const w: OpenWindow = { proxy: step.proxy, toxic, tStart: opts.now(), wallStart: wall() };
    open.set(n, w);
    try {
      if (step.type === 'down') {
        downCount.set(step.proxy, (downCount.get(step.proxy) ?? 0) + 1);
        // The proxy is down once the last call queued on it is a disable that has been answered:
        // queue one unless that is already so (another `down` window disabled it and nothing
        // re-enables it after), then wait for the whole chain, so a re-enable still in flight
        // from a window that just closed lands before this window's sure part starts.
        for (;;) {
          if (queuedEnabled.get(step.proxy) !== false) {
            await setEnabled(step.proxy, false);
            break;
          }
          const tail = toggles.get(step.proxy) ?? Promise.resolve();
          await track(tail);
          // Still the last call, and it did not fail: the proxy is down.
          if (toggles.get(step.proxy) === tail && queuedEnabled.get(step.proxy) === false) break;
        }
      } else {
        await track(driver.addToxic(step.proxy, toxic));
      }
      // From here on every request meets the toxic: the window it surely acted in starts now.
      w.tApplied = opts.now();
    } catch (err) {
      // It never opened: nothing to remove, nothing to record.
      open.delete(n);
      if (step.type === 'down') downCount.set(step.proxy, Math.max(0, (downCount.get(step.proxy) ?? 1) - 1));
      throw err;
    }
    return w.tStart;
  };

  const closeWindow = async (n: number) => {
    const w = open.get(n);
    if (!w) return; // cleanup already closed it
    const tRemoving = opts.now();
    // A `down` stops counting before its re-enable is asked for, so a `down` window opening
    // meanwhile sees the re-enable coming and disables the proxy again after it.
    const left = w.toxic.type === 'down' ? Math.max(0, (downCount.get(w.proxy) ?? 1) - 1) : 0;
    if (w.toxic.type === 'down') downCount.set(w.proxy, left);
    try {
      if (w.toxic.type !== 'down') await track(driver.removeToxic(w.proxy, w.toxic.name));
      // Another `down` window still holds the proxy down: it re-enables it when it closes.
      else if (left === 0) await setEnabled(w.proxy, true);
    } catch (err) {
      // Still open as far as we know: cleanup tries again and reports what it could not undo.
      if ((err as { status?: number }).status !== 404) {
        if (w.toxic.type === 'down') downCount.set(w.proxy, (downCount.get(w.proxy) ?? 0) + 1);
        throw err;
      }
    }
    open.delete(n);
    // The window closes after the API call: until Toxiproxy answered, the toxic may still act.
    return emit(w, tRemoving);
  };

  return {
    toxiproxyUrl: url,
    proxies,
    activeFaults: () => [...open.values()].map((w) => `${w.proxy}/${w.toxic.name}`),
    activeWindows: () => [...open.values()].map((w) => ({ proxy: w.proxy, type: w.toxic.type })),
    cleanup,
    async runSchedule(steps, signal) {
      if (closing) throw new PaystormError('chaos session is closed: open a new one to run another schedule', EXIT.usage);
      const known = new Set([...proxies.keys(), ...(await driver.listProxies()).map((p) => p.name)]);
      const missing = steps.map((s, i) => ({ s, i })).filter(({ s }) => !known.has(s.proxy));
      if (missing.length) {
        throw new PaystormError(
          missing.map(({ s, i }) => `faults[${i}].proxy: "${s.proxy}" is neither created by --proxy nor present on Toxiproxy (known: ${[...known].join(', ') || 'none'})`).join('\n'),
          EXIT.usage,
          `faults[${missing[0].i}].proxy`,
        );
      }
      const base = nextStep;
      nextStep += steps.length;
      const records: FaultRecord[] = [];
      const run = runWindows(
        steps,
        {
          open: (step, i) => openWindow(step, base + i),
          close: async (_step, i) => {
            const rec = await closeWindow(base + i);
            if (rec) records.push(rec);
          },
        },
        opts.now,
        signal ? AbortSignal.any([signal, stopAll.signal]) : stopAll.signal,
      );
      runs.add(run);
      try {
        await run;
      } catch (err) {
        // A failed step must not leave the rest of the run's faults in place.
        await cleanup().catch(onError);
        throw err;
      } finally {
        runs.delete(run);
      }
      return records;
    },
  };
}
