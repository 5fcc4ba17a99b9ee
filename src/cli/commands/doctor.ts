/** `paystorm doctor`: target reachable and speaking this API, keys valid and their modes, Toxiproxy reachable, webhook wiring round-trip. */
import type { PaystormCommand } from './types.ts';
import { DEFAULT_TEST_CARDS, parseKeyArg } from '../../spec/index.ts';
import { runDoctor, doctorExitCode, DOCTOR_WEBHOOK_TIMEOUT_MS } from '../doctor.ts';
import { resolveKeys } from '../run-steps/settings.ts';
import { loadCardsFile } from '../config.ts';
import { startEmbeddedStack, EMBEDDED_WEBHOOK_SECRET } from '../embedded.ts';

export const doctorCommand: PaystormCommand = {
  command: 'doctor',
  describe: 'Check the wiring: target, keys and modes, Toxiproxy, webhook round-trip',
  builder: (y) =>
    y
      .option('target', { type: 'string', describe: 'Base URL (omit to check an embedded reference service)' })
      .option('key', { type: 'string', array: true, describe: 'API key as [merchant:]KEY, repeatable' })
      .option('allow-live', { type: 'boolean' })
      .option('cards', { type: 'string', describe: 'Cards file (a succeeds card enables the webhook round-trip)' })
      .option('toxiproxy', { type: 'string', describe: 'Toxiproxy API URL to check' })
      .option('webhook-port', { type: 'number', describe: 'Start the receiver on this port and wait for a real delivery' })
      .option('webhook-secret', { type: 'string', array: true, describe: 'Signing secret (whsec_...), repeatable: one per endpoint' })
      .option('webhook-signature-header', { type: 'string', describe: 'The service\'s own signature header name (e.g. Acme-Signature); default: Service-Signature or any ...-signature header of the form t=...,v1=...' })
      .example('$0 doctor --target https://staging.example.com --key svc_test_sk_... --cards cards.json --webhook-port 4020 --webhook-secret whsec_...', 'Check a staging deployment'),
  handler: async (args) => {
    let stack: Awaited<ReturnType<typeof startEmbeddedStack>> | null = null;
    try {
      let targetUrl: string = args.target;
      let keys;
      let cards = args.cards ? loadCardsFile(args.cards) : {};
      let webhookPort: number | undefined = args.webhookPort;
      let webhookSecret: string[] | undefined = args.webhookSecret?.length ? args.webhookSecret : undefined;
      if (!targetUrl) {
        // No target: check an embedded reference service wired to a receiver on a free port.
        const { createServer } = await import('node:net');
        webhookPort = await new Promise<number>((res) => {
          const s = createServer().listen(0, '127.0.0.1', () => {
            const p = (s.address() as { port: number }).port;
            s.close(() => res(p));
          });
        });
        webhookSecret = [EMBEDDED_WEBHOOK_SECRET];
        cards = DEFAULT_TEST_CARDS;
        stack = await startEmbeddedStack({ presentation: 'B', rateLimit: 500, windowMs: 60_000, timeScale: 0.05, cards, bugs: [], webhookUrl: `http://127.0.0.1:${webhookPort}/webhooks`, webhookTimeoutMs: 2_000 });
        targetUrl = await stack.startService(new URL(stack.processorUrl).host);
        keys = stack.keys.map((k) => parseKeyArg(`${k.merchant}:${k.key}`));
      } else {
        keys = resolveKeys(args.key ?? [], args.allowLive ?? false);
        if (!keys.length) throw new Error('--key: pass at least one key to check');
      }
      const checks = await runDoctor({
        targetUrl,
        keys,
        cards,
        ...(args.toxiproxy ? { toxiproxyUrl: args.toxiproxy } : {}),
        ...(webhookPort !== undefined && webhookSecret ? { webhook: { port: webhookPort, secret: webhookSecret, ...(args.webhookSignatureHeader !== undefined ? { signatureHeader: args.webhookSignatureHeader } : {}), host: args.target ? '0.0.0.0' : '127.0.0.1', roundTripTimeoutMs: DOCTOR_WEBHOOK_TIMEOUT_MS } } : {}),
      });
      const w = Math.max(...checks.map((c) => c.name.length));
      for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(w)}  ${c.detail}\n`);
      const code = doctorExitCode(checks);
      process.stdout.write(code === 0 ? 'doctor: all checks passed\n' : `doctor: ${checks.filter((c) => !c.ok).length} check(s) failed (exit ${code})\n`);
      return code;
    } finally {
      await stack?.close();
    }
  },
};
