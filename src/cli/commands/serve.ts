/** `paystorm serve`: runs the reference Card Payment Service until SIGINT/SIGTERM. */
import { readFileSync } from 'node:fs';
import { EXIT, PaystormError, type CardsFile } from '../../spec/index.ts';
import { cardsFileSchema } from '../cards-file.ts';
import {
  BUGS,
  BUG_NAMES,
  DEFAULT_OPTIONS,
  isBugName,
  keysFileSchema,
  parseWebhookUrlArg,
  startProcessor,
  startReferenceService,
  type KeyConfig,
  type RunningProcessor,
  type ServiceOptions,
  type WebhookEndpoint,
} from '../../target/index.ts';
import type { PaystormCommand } from './types.ts';

interface ServeArgs {
  port: number;
  host: string;
  presentation: string;
  'rate-limit': number;
  'window-ms': number;
  'time-scale': number;
  'upstream-port'?: number;
  'upstream-url'?: string;
  'upstream-backlog': number;
  'webhook-url'?: string[];
  'webhook-secret': string;
  'webhook-timeout-ms': number;
  keys?: string;
  cards?: string;
  bugs?: string;
  'list-bugs'?: boolean;
  'slow-create-ms'?: number;
  'slow-create-growth'?: number;
}

const usage = (flag: string, message: string) => new PaystormError(`${flag}: ${message}`, EXIT.usage, flag);

function integer(flag: string, v: unknown, min: number, max: number, example: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw usage(flag, `expected an integer from ${min} to ${max}; got ${JSON.stringify(v)}. Example: ${flag} ${example}`);
  }
  return v;
}

function readJsonFile(flag: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw usage(flag, `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}). Pass the path of a JSON file.`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw usage(flag, `${path} is not valid JSON (${(e as Error).message}).`);
  }
}

function zodProblems(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Turns the flags into service options; every problem names its flag and the fix. */
export function serveOptionsFromArgs(a: ServeArgs): Partial<ServiceOptions> & { upstreamPortGiven: boolean } {
  const port = integer('--port', a.port, 0, 65535, '4010 (0 = any free port)');
  if (a.presentation !== 'A' && a.presentation !== 'B') throw usage('--presentation', `expected A or B; got ${JSON.stringify(a.presentation)}.`);
  const rateLimit = integer('--rate-limit', a['rate-limit'], 1, 1_000_000_000, '500');
  const windowMs = integer('--window-ms', a['window-ms'], 1000, 86_400_000, '60000');
  if (windowMs % 1000 !== 0) throw usage('--window-ms', `must be whole seconds (X-RateLimit-Reset is in seconds); got ${windowMs}. Example: --window-ms 2000`);
  const timeScale = a['time-scale'];
  if (typeof timeScale !== 'number' || !Number.isFinite(timeScale) || timeScale <= 0 || timeScale > 1000) {
    throw usage('--time-scale', `expected a number above 0 (1 = real delays, 0.01 = a hundred times faster); got ${JSON.stringify(timeScale)}.`);
  }
  const upstreamPortGiven = a['upstream-port'] !== undefined;
  const upstreamPort = upstreamPortGiven ? integer('--upstream-port', a['upstream-port'], 0, 65535, '4011') : 0;
  let upstreamUrl: string | undefined;
  if (a['upstream-url'] !== undefined) {
    upstreamUrl = String(a['upstream-url']);
    if (!/^https?:\/\/[^\s/]+(\/.*)?$/.test(upstreamUrl)) throw usage('--upstream-url', `expected an http(s) URL such as http://127.0.0.1:4012; got ${JSON.stringify(upstreamUrl)}.`);
  }
  const webhookUrls: WebhookEndpoint[] = [];
  for (const w of a['webhook-url'] ?? []) {
    try {
      webhookUrls.push(parseWebhookUrlArg(String(w)));
    } catch (e) {
      throw new PaystormError((e as Error).message, EXIT.usage, '--webhook-url');
    }
  }
  const webhookSecret = String(a['webhook-secret']);
  if (!/^whsec_\S{8,}$/.test(webhookSecret)) throw usage('--webhook-secret', 'expected a signing secret of the form whsec_ followed by at least 8 characters.');
  const webhookTimeoutMs = integer('--webhook-timeout-ms', a['webhook-timeout-ms'], 1, 3_600_000, '10000');
  const upstreamBacklogLimit = integer('--upstream-backlog', a['upstream-backlog'], 1, 1_000_000_000, '10000');
  const slowCreateMs = a['slow-create-ms'] === undefined ? 0 : integer('--slow-create-ms', a['slow-create-ms'], 0, 60_000, '40');
  const slowCreateGrowthMsPerMin = a['slow-create-growth'] === undefined ? 0 : integer('--slow-create-growth', a['slow-create-growth'], 0, 60_000, '60');
  let keys: KeyConfig[] | undefined;
  if (a.keys !== undefined) {
    const parsed = keysFileSchema.safeParse(readJsonFile('--keys', a.keys));
    if (!parsed.success) throw usage('--keys', `${a.keys} is not [{"key": "...", "merchant": "...", "direct_api": true}, ...]: ${zodProblems(parsed.error)}`);
    keys = parsed.data;
    const dup = keys.find((k, i) => keys!.findIndex((o) => o.key === k.key) !== i);
    if (dup) throw usage('--keys', `${a.keys} lists the key ending …${dup.key.slice(-4)} twice; each key may appear once.`);
  }
  let cards: CardsFile | undefined;
  if (a.cards !== undefined) {
    const parsed = cardsFileSchema.safeParse(readJsonFile('--cards', a.cards));
    if (!parsed.success) throw usage('--cards', `${a.cards} is not {"succeeds": "4242…", "do_not_honor": "…", ...}: ${zodProblems(parsed.error)}`);
    cards = parsed.data;
  }
  const bugs = (a.bugs ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = bugs.filter((b) => !isBugName(b));
  if (unknown.length) throw usage('--bugs', `unknown bug name(s) ${unknown.join(', ')}. Run paystorm serve --list-bugs for the ${BUG_NAMES.length} names.`);
  return {
    port,
    host: a.host,
    presentation: a.presentation,
    rateLimit,
    windowMs,
    timeScale,
    upstreamUrl,
    upstreamPort,
    upstreamPortGiven,
    upstreamBacklogLimit,
    webhookUrls,
    webhookSecret,
    webhookTimeoutMs,
    keys,
    cards,
    bugs,
    slowCreateMs,
    slowCreateGrowthMsPerMin,
  };
}

export const serveCommand: PaystormCommand = {
  command: 'serve',
  describe: 'Run the reference Card Payment Service (sandbox processor, webhooks, seeded bugs) until SIGINT/SIGTERM',
  builder: (y) =>
    y
      .option('port', { type: 'number', default: DEFAULT_OPTIONS.port, describe: 'Port of the API (0 = any free port)' })
      .option('host', { type: 'string', default: DEFAULT_OPTIONS.host, describe: 'Address to listen on' })
      .option('presentation', { type: 'string', choices: ['A', 'B'], default: DEFAULT_OPTIONS.presentation, describe: 'Payment presentation of the spec' })
      .option('rate-limit', { type: 'number', default: DEFAULT_OPTIONS.rateLimit, describe: 'Requests per window per API key' })
      .option('window-ms', { type: 'number', default: DEFAULT_OPTIONS.windowMs, describe: 'Fixed rate window, whole seconds in ms' })
      .option('time-scale', { type: 'number', default: DEFAULT_OPTIONS.timeScale, describe: "Multiplies the service's own delays (never the spec's protocol values)" })
      .option('upstream-port', { type: 'number', describe: 'Port of the sandbox processor this command starts (default: any free port)' })
      .option('upstream-url', { type: 'string', describe: 'Where the service reaches the processor (e.g. a Toxiproxy listener); without --upstream-port nothing is started' })
      .option('upstream-backlog', { type: 'number', default: DEFAULT_OPTIONS.upstreamBacklogLimit, describe: 'Creates answer 503 while this many payments wait on an unreachable processor' })
      .option('webhook-url', { type: 'string', array: true, describe: '[merchant:mode=]URL of a webhook endpoint (repeatable)' })
      .option('webhook-secret', { type: 'string', default: DEFAULT_OPTIONS.webhookSecret, describe: 'Signing secret (whsec_…)' })
      .option('webhook-timeout-ms', { type: 'number', default: DEFAULT_OPTIONS.webhookTimeoutMs, describe: 'A delivery not answered within this is failed and retried' })
      .option('keys', { type: 'string', describe: 'JSON file [{"key", "merchant", "direct_api"}] replacing the built-in keys' })
      .option('cards', { type: 'string', describe: 'JSON file mapping test-card outcomes to numbers, replacing the defaults' })
      .option('bugs', { type: 'string', describe: 'Comma-separated seeded bugs to inject (see --list-bugs)' })
      .option('list-bugs', { type: 'boolean', describe: 'Print the seeded bugs and exit' })
      .option('slow-create-ms', { type: 'number', describe: 'Seeded performance regression: every Direct API create waits this many ms more (baseline gates; keeps every rule)' })
      .option('slow-create-growth', { type: 'number', describe: 'Seeded slow leak: every Direct API create waits this many ms more per minute since start (soak drift; keeps every rule)' }),
  handler: async (args: ServeArgs) => {
    if (args['list-bugs']) {
      for (const b of BUGS) process.stdout.write(`${b.name.padEnd(36)} ${b.rule.padEnd(8)} ${b.description}\n`);
      return EXIT.pass;
    }
    const { upstreamPortGiven, ...opts } = serveOptionsFromArgs(args);
    let processor: RunningProcessor | undefined;
    // With both upstream flags, start the processor here and let the service reach it through the URL (a proxy).
    if (opts.upstreamUrl && upstreamPortGiven) {
      processor = await startProcessor({ host: opts.host, port: opts.upstreamPort, timeScale: opts.timeScale, cards: opts.cards }).catch((e) => {
        throw listenError('--upstream-port', opts.upstreamPort!, e);
      });
    }
    const service = await startReferenceService(opts).catch(async (e) => {
      await processor?.close();
      throw listenError('--port', opts.port!, e);
    });
    process.stdout.write(`listening ${service.url}\n`);
    process.stdout.write(`upstream ${service.upstreamUrl}${processor ? ` (processor ${processor.url})` : ''}\n`);
    process.stderr.write(
      `presentation ${service.options.presentation}, ${service.options.rateLimit} requests per ${service.options.windowMs} ms per key, time scale ${service.options.timeScale}, bugs: ${service.options.bugs.join(',') || 'none'}\n`,
    );
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
    process.stderr.write(`${signal}: closing\n`);
    await service.close();
    await processor?.close();
    return EXIT.pass;
  },
};

function listenError(flag: string, port: number, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE') return usage(flag, `port ${port} is already in use. Pick another, or ${flag} 0 for any free port.`);
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES') return usage(flag === '--port' ? '--host' : flag, `cannot listen (${code}). Use --host 127.0.0.1 and a port above 1023.`);
  return e instanceof Error ? e : new Error(String(e));
}
