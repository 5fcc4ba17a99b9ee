/**
 * Step 3 of `paystorm run`: is the target there, and does it speak this API? One GET with the
 * first test key: unreachable or not this API is exit 4, a refused key exit 3. Then what the run
 * judges the target as: its presentation (detected on a real target) and its rate window.
 */
import { EXIT, LIMITS, PaystormError, type Presentation, type TargetInfo } from '../../spec/index.ts';
import { probeRateLimit, detectTargetPresentation } from '../../client/index.ts';
import { EMBEDDED_DEFAULTS, type RunSettings } from './settings.ts';
import type { RunIo } from './scope.ts';

/**
 * A probe that opened a fresh window (remaining = limit - 1) shows the window's length in
 * X-RateLimit-Reset, to the second. When it disagrees with the window the run assumes, say so:
 * the oracle judges RL-2 with the assumed one.
 */
function warnIfWindowDiffers(probe: { limit: number | null; remaining: number | null; reset: number | null; date?: number | null; wall: number }, windowMs: number, io: RunIo): void {
  if (probe.limit === null || probe.remaining !== probe.limit - 1 || probe.reset === null) return;
  // Against the answer's own Date when it has one: both are the server's clock, so a host whose clock is off does not look like another window.
  const seen = probe.date !== null && probe.date !== undefined ? (probe.reset - probe.date) * 1000 : probe.reset * 1000 - probe.wall;
  if (Math.abs(seen - windowMs) > 1500) {
    io.stderr.write(`paystorm: the target's rate window looks like about ${Math.round(seen / 1000)} s (X-RateLimit-Reset), not the ${windowMs / 1000} s the spec fixes; rate-window rules are judged with ${windowMs / 1000} s. Pass --window-ms if the deployment is configured otherwise.\n`);
  }
}

/** The target as the run judges it; the probe always learns a rate limit. */
export type ProbedTarget = TargetInfo & { rateLimit: NonNullable<TargetInfo['rateLimit']> };

export async function probeTarget(s: RunSettings, targetUrl: string, io: RunIo): Promise<ProbedTarget> {
  const { cfg, embedded, cards } = s;
  const firstTest = s.keys.parsed.find((k) => k.mode === 'test')!;
  let probe;
  try {
    const wall = Date.now();
    probe = { ...(await probeRateLimit(targetUrl, firstTest.secret, 10_000)), wall };
  } catch (e) {
    throw new PaystormError(`target ${targetUrl} is unreachable (${(e as Error).message}). Check --target and that the service is up.`, EXIT.target, '--target');
  }
  if (probe.status === 401) throw new PaystormError(`--key ${firstTest.label}: the target refused it (401 invalid_api_key). Pass a valid test key.`, EXIT.usage, '--key');
  if (probe.limit === null || probe.status >= 500 || probe.status === 404) {
    throw new PaystormError(`target ${targetUrl} does not look like the Card Payment Service API (GET /v1/payments answered ${probe.status} without X-RateLimit-Limit). Check --target.`, EXIT.target, '--target');
  }
  const probePayments: string[] = [];
  const onPayment = (id: string) => probePayments.push(id);
  const presentation: Presentation = embedded
    ? s.embeddedPresentation
    : ((await detectTargetPresentation(targetUrl, firstTest.secret, cards.succeeds ? { probeCard: { number: cards.succeeds, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Pay Storm' }, onPayment } : {})) ?? 'B');
  // The spec fixes the window at 60 s; --window-ms declares another (a scaled staging or `paystorm serve --window-ms`).
  const windowMs = cfg.windowMs ?? (embedded ? EMBEDDED_DEFAULTS.windowMs : LIMITS.rateWindowMs);
  if (!embedded && cfg.windowMs === undefined) warnIfWindowDiffers(probe, windowMs, io);
  return { url: targetUrl, embedded, presentation, rateLimit: { limit: probe.limit, windowMs }, ...(probePayments.length ? { probePayments } : {}) };
}
