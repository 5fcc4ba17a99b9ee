/** `paystorm run [scenario...]`: runs scenarios against a target (or the embedded one) and gates on the verdict. */
import type { PaystormCommand } from './types.ts';
import { EXIT } from '../../spec/exit-codes.ts';
import type { RunConfig } from '../config.ts';

export const runCommand: PaystormCommand = {
  command: 'run [scenarios..]',
  describe: 'Run scenarios against a target (default: the embedded reference service) and judge the history',
  builder: (y) =>
    y
      .positional('scenarios', { type: 'string', array: true, describe: 'Scenario names (default: the default suite; see paystorm scenarios)' })
      .option('target', { type: 'string', describe: 'Base URL of the service under test (omit to start the embedded reference service)' })
      .option('key', { type: 'string', array: true, describe: 'API key as [merchant:]KEY, repeatable' })
      .option('shared-key', { type: 'string', array: true, describe: 'A key used like --key that other clients also use during the run: the rate limit\'s lower bound (a 429 before the limit) is only observed on it, repeatable' })
      .option('allow-live', { type: 'boolean', describe: 'Accept live keys (read-only and single-payment checks only)' })
      .option('cards', { type: 'string', describe: 'JSON file: {succeeds, do_not_honor, insufficient_funds, three_ds_challenge, upstream_error} -> card number' })
      .option('config', { type: 'string', describe: 'paystorm.config.json with the same options (flags win)' })
      .option('duration', { type: 'string', describe: 'Duration of load scenarios (30s, 5m, 1h)' })
      .option('rate', { type: 'number', describe: 'Arrival rate (iterations/s) of load scenarios' })
      .option('out', { type: 'string', describe: 'Reports directory (default reports/)' })
      .option('webhook-port', { type: 'number', describe: 'Port of paystorm\'s webhook receiver (the target must be configured to deliver there)' })
      .option('webhook-secret', { type: 'string', array: true, describe: 'Signing secret (whsec_...) of the webhook endpoint, repeatable: one per endpoint (each merchant\'s, the live one\'s); a delivery any of them verifies is signed' })
      .option('webhook-signature-header', { type: 'string', describe: 'The service\'s own signature header name (e.g. Acme-Signature); default: Service-Signature, or any header named ...-signature whose value has the form t=...,v1=...' })
      .option('webhook-fail-share', { type: 'number', describe: 'Share (0..1) of test-mode events whose deliveries the receiver answers 500 so retries are judged (WH-8, WH-9; a few fail 3 attempts in a row); live events never (default 0.2; 0 turns it off)' })
      .option('webhook-retry-within', { type: 'string', describe: "How long (e.g. 1h) the target may take to retry a failed delivery (WH-9), if known: the spec sets no first retry delay, and the webhooks scenario waits this long for retries, ending early once every failed delivery was retried (default: twice the service's longest first retry seen, else 5m)" })
      .option('toxiproxy', { type: 'string', describe: 'Toxiproxy API URL (default: paystorm\'s embedded proxy)' })
      .option('proxy', { type: 'string', array: true, describe: 'Proxy to create, NAME=LISTEN>UPSTREAM, repeatable' })
      .option('threshold', { type: 'string', array: true, describe: 'Threshold in k6 syntax, e.g. "http_req_duration{op:create}: p(99)<800", repeatable' })
      .option('seed', { type: 'number', describe: 'Seed for every random choice (default: random, recorded in the history)' })
      .option('max-requests', { type: 'number', describe: 'Hard cap on requests (default 2,000,000, or the plan and a quarter when it makes more)' })
      .option('max-duration', { type: 'string', describe: 'Hard cap on run time (default 4h, or the plan and a quarter when it is longer)' })
      .option('request-timeout', { type: 'string', describe: 'Per-request time-out (default 30s)' })
      .option('settle-bound', { type: 'string', describe: 'SM-6/FT-2 bound for a pending payment to settle (default 30s; embedded: scaled)' })
      .option('challenge-timeout', { type: 'string', describe: "The target's 3DS challenge time-out (e.g. 10m), if known: an abandoned challenge still requires_action well past it breaks SM-4 (default: unknown, not judged; embedded: known)" })
      .option('upstream-timeout', { type: 'string', describe: "The service's time-out for one processor call (e.g. 10s), if known: the upstream timeout fault is held longer than it, so processor calls do time out (default: unknown; embedded: known)" })
      .option('presentation', { type: 'string', choices: ['A', 'B'], describe: 'Embedded target: Payment presentation (default B)' })
      .option('time-scale', { type: 'number', describe: 'Embedded target: multiplier of its own delays (default 0.05)' })
      .option('rate-limit', { type: 'number', describe: 'Embedded target: requests per window (default 120)' })
      .option('window-ms', { type: 'number', describe: 'Rate window in ms, whole seconds (embedded default 3000; with --target it declares the deployment\'s window, default the spec\'s 60000)' })
      .option('bugs', { type: 'string', describe: 'Embedded target: seeded bugs to switch on, comma-separated (see docs/reference-service.md)' })
      .option('baseline', { type: 'string', describe: 'Compare with a saved baseline (a --save-baseline directory, a baseline.json or a run directory): regression thresholds such as "http_req_duration{op:create}: p(99) < baseline * 1.2" (default: every op\'s p50 < baseline * 1.5 + 5, error rate < baseline + 0.01, settle time p50 < baseline * 1.5 + 5); see docs/baselines.md' })
      .option('save-baseline', { type: 'string', describe: 'Save this run\'s baseline (histograms and counts, a few KB) into this directory' })
      .option('trend-window', { type: 'string', describe: 'Window of the soak drift figures and trend() thresholds (default 60s)' })
      .option('metrics-port', { type: 'number', describe: 'Serve the run\'s metrics (OpenMetrics, for a Prometheus) at http://127.0.0.1:PORT/metrics until the verdict is written; 0 picks a free port (see docs/metrics.md)' })
      .option('metrics-host', { type: 'string', describe: 'Address the metrics endpoint listens on (default 127.0.0.1; 0.0.0.0 to be scraped from other hosts)' })
      .option('abort-on-violation', { type: 'string', describe: 'End the run at the first confirmed violation (exit 1, reports and repro written); with ids (comma-separated invariant or rule ids, e.g. idem-single-object,IDEM-6) only at theirs' })
      .option('snapshot-every', { type: 'string', describe: 'Rewrite summary.json and report.html with the verdict so far this often, marked as a snapshot (default 5m for a run planned over 15 minutes)' })
      .option('judge-memory', { type: 'number', describe: "The live judge's memory limit in MB (default three quarters of the machine's): the oracle keeps about 75 bytes a request (most of it one key's rate-limit rows, read back at the end), so a long soak may need more than Node's default 4 GB" })
      .option('variant', { type: 'string', describe: 'Embedded target: a conforming variant of the reference service, one open choice of the spec taken another way (see docs/variant-matrix.md)' })
      .option('dashboard', { type: 'number', describe: 'Serve a live page on this port while the run goes: the report\'s charts, the phase, the plan\'s time left and violations as they are found, then the final report (0: any free port; see docs/dashboard.md)' })
      .option('dashboard-host', { type: 'string', describe: 'Address the live page listens on (default 127.0.0.1: this machine only; 0.0.0.0: every interface, with no authentication)' })
      .example('$0 run', 'The default suite against the embedded reference service')
      .example('$0 run mixed --target https://staging.example.com --key acme:svc_test_sk_... --cards cards.json --duration 5m', 'Mixed load against a staging deployment')
      .example('$0 run rate-limit --target https://staging.example.com --key svc_test_sk_... --key svc_test_sk_...', 'Probe the 500/min fixed window')
      .example('$0 run soak --duration 1h --metrics-port 9464', 'A soak a Prometheus scrapes at http://127.0.0.1:9464/metrics')
      .example('$0 run mixed --duration 20m --abort-on-violation --snapshot-every 1m', 'Stop at the first violation; keep a report of the verdict so far every minute')
      .example('$0 run chaos', 'Upstream faults through the embedded Toxiproxy-compatible proxy')
      .example('$0 run mixed --duration 5m --dashboard 8090', 'Watch the run live at http://127.0.0.1:8090/'),
  handler: async (args) => {
    const flags: RunConfig = {
      scenarios: args.scenarios,
      target: args.target,
      keys: args.key,
      sharedKeys: args.sharedKey,
      allowLive: args.allowLive,
      duration: args.duration,
      rate: args.rate,
      out: args.out,
      webhookPort: args.webhookPort,
      webhookSecret: args.webhookSecret,
      webhookSignatureHeader: args.webhookSignatureHeader,
      webhookFailShare: args.webhookFailShare,
      webhookRetryWithin: args.webhookRetryWithin,
      toxiproxy: args.toxiproxy,
      proxies: args.proxy,
      thresholds: args.threshold,
      seed: args.seed,
      maxRequests: args.maxRequests,
      maxDuration: args.maxDuration,
      requestTimeout: args.requestTimeout,
      settleBound: args.settleBound,
      challengeTimeout: args.challengeTimeout,
      upstreamTimeout: args.upstreamTimeout,
      presentation: args.presentation,
      timeScale: args.timeScale,
      rateLimit: args.rateLimit,
      windowMs: args.windowMs,
      bugs: typeof args.bugs === 'string' ? args.bugs.split(',').map((s: string) => s.trim()).filter(Boolean) : undefined,
      variant: args.variant,
      baseline: args.baseline,
      saveBaseline: args.saveBaseline,
      trendWindow: args.trendWindow,
      dashboard: args.dashboard,
      dashboardHost: args.dashboardHost,
      metricsPort: args.metricsPort,
      metricsHost: args.metricsHost,
      // A bare --abort-on-violation: any invariant.
      abortOnViolation: args.abortOnViolation === undefined ? undefined : args.abortOnViolation === '' ? true : String(args.abortOnViolation).split(',').map((x) => x.trim()).filter(Boolean),
      snapshotEvery: args.snapshotEvery,
      judgeMemory: args.judgeMemory,
      ...(args.cards !== undefined ? { cards: args.cards } : {}),
    };
    // The pipeline loads only when a run starts (`paystorm run --help` stays fast).
    const { loadConfigFile } = await import('../config.ts');
    const { resolveRunConfig } = await import('../run-checks.ts');
    const { executeRun } = await import('../run.ts');
    // Every flag and config field is checked here, before any load: all problems at once, exit 3.
    const cfg = resolveRunConfig(flags, args.config ? loadConfigFile(args.config) : null, args.config);
    const controller = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        process.stderr.write(`\npaystorm: ${sig}: stopping; judging what was measured (again to quit at once)\n`);
        controller.abort(sig);
      } else process.exit(EXIT.interrupted);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const result = await executeRun(cfg, { stdout: process.stdout, stderr: process.stderr, signal: controller.signal });
      const { appendStepSummary } = await import('../../report/step-summary.ts');
      appendStepSummary(result.runDir);
      return controller.signal.aborted && result.exitCode === EXIT.pass ? EXIT.interrupted : result.exitCode;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
