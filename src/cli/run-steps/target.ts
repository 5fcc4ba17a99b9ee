/**
 * Step 1 of `paystorm run`: what the run talks to besides the target's address. The webhook
 * receiver (always with the embedded target; with a real one when --webhook-port is given) and,
 * without --target, the embedded stack. The embedded service itself starts with the chaos step:
 * its upstream URL is a proxy that step opens.
 */
import { EXIT, PaystormError } from '../../spec/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../webhooks/index.ts';
import { EMBEDDED_WEBHOOK_SECRET, startEmbeddedStack, type EmbeddedStack } from '../embedded.ts';
import { EMBEDDED_DEFAULTS, EMBEDDED_WEBHOOK_ACK_MS, EMBEDDED_WEBHOOK_BASE_PATH, WEBHOOK_FAIL_SHARE_DEFAULT, type RunSettings } from './settings.ts';
import type { RunScope } from './scope.ts';

export interface ResolvedTarget {
  receiver: WebhookReceiver | null;
  /** The embedded stack (processor, proxy; the service not started yet), or null with --target. */
  stack: EmbeddedStack | null;
}

async function startReceiver(s: RunSettings, scope: RunScope): Promise<WebhookReceiver> {
  const { cfg, embedded } = s;
  // One secret or one per endpoint (another merchant's, the live endpoint's): any of them verifies.
  const given = typeof cfg.webhookSecret === 'string' ? [cfg.webhookSecret] : cfg.webhookSecret;
  const secret = given?.length ? given : embedded ? [EMBEDDED_WEBHOOK_SECRET] : undefined;
  if (!secret) throw new PaystormError('--webhook-secret: pass the endpoint\'s signing secret (whsec_...) with --webhook-port.', EXIT.usage, '--webhook-secret');
  const receiverOpts = {
    host: embedded ? '127.0.0.1' : '0.0.0.0',
    port: cfg.webhookPort ?? 0,
    secret,
    ...(cfg.webhookSignatureHeader !== undefined ? { signatureHeader: cfg.webhookSignatureHeader } : {}),
    failShare: cfg.webhookFailShare ?? WEBHOOK_FAIL_SHARE_DEFAULT,
    stallShare: cfg.webhookStallShare ?? (embedded ? 0.05 : 0),
    // A stall well past the service's acknowledge time: its time-out (undici's coarse timers,
    // an event loop busy with the run) may fire a few hundred ms late, and a stall it still
    // answered as delivered would look like a failure never retried (WH-9 false fail).
    ...(embedded ? { stallMs: EMBEDDED_WEBHOOK_ACK_MS + 1000, ackTimeoutMs: EMBEDDED_WEBHOOK_ACK_MS } : {}),
    seed: s.seed,
    now: () => scope.clock.now(),
    wall: () => scope.clock.wall(),
    sink: scope.gate.write,
    secretsToScan: s.keys.parsed.map((k) => k.secret),
    cardNumbersToScan: Object.values(s.cards).filter((x): x is string => !!x),
  };
  try {
    return await startWebhookReceiver(receiverOpts);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      const why = code === 'EADDRINUSE' ? 'is in use' : 'may not be opened by this user';
      throw new PaystormError(`--webhook-port: port ${receiverOpts.port} ${why} on ${receiverOpts.host}; pass a free port (and point the target's webhook URL at it).`, EXIT.usage, '--webhook-port');
    }
    throw e;
  }
}

export async function resolveTarget(s: RunSettings, scope: RunScope): Promise<ResolvedTarget> {
  const { cfg, embedded } = s;
  let receiver: WebhookReceiver | null = null;
  if (embedded || cfg.webhookPort !== undefined) {
    const started = (receiver = await startReceiver(s, scope));
    scope.onCleanup(() => started.close());
  }
  let stack: EmbeddedStack | null = null;
  if (embedded) {
    const started = (stack = await startEmbeddedStack({
      presentation: s.embeddedPresentation,
      // A variant's own limit (rate-limit-configured) stands in for the embedded default.
      rateLimit: cfg.rateLimit ?? s.variant?.options.rateLimit ?? EMBEDDED_DEFAULTS.rateLimit,
      windowMs: cfg.windowMs ?? EMBEDDED_DEFAULTS.windowMs,
      timeScale: s.timeScale,
      cards: s.cards,
      bugs: cfg.bugs ?? [],
      ...(s.variant ? { variant: s.variant.options } : {}),
      webhookUrl: receiver ? `${receiver.url}${EMBEDDED_WEBHOOK_BASE_PATH}` : null,
      webhookTimeoutMs: EMBEDDED_WEBHOOK_ACK_MS,
      ...(cfg.toxiproxy ? { toxiproxyUrl: cfg.toxiproxy } : {}),
    }));
    scope.onCleanup(() => started.close());
  }
  return { receiver, stack };
}
