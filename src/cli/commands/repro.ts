/**
 * `paystorm repro RUN VIOLATION-ID`: replays one violation's repro (reports/<run>/repro/<id>.sh,
 * rebuilt from the history) against a target, judges the replay with the same invariant and says
 * whether it still reproduces. Exit 1: reproduces, 0: does not, 3: usage, 4: the setup the repro
 * needs failed on the target (it cannot tell).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { historyFileOf } from '../judge-run.ts';
import { loadCardsFile } from '../config.ts';
import { EXIT, PaystormError, DEFAULT_TEST_CARDS, parseKeyArg, summarySchema, type CardsFile, type Presentation } from '../../spec/index.ts';
import { makeKeySecrets, type KeySecret } from '../../client/index.ts';
import { DEFAULT_KEYS, isBugName, startReferenceService, type RunningService } from '../../target/index.ts';
import { plansFromHistory, violationsOf } from '../../repro/generate.ts';
import { replay } from '../../repro/replay.ts';
import type { ReproPlan } from '../../repro/plan.ts';

/** Embedded keys standing for the plan's keys: same merchant, mode and prefix form, each used once. */
function embeddedKeysFor(plan: ReproPlan): KeySecret[] {
  const used = new Set<string>();
  const parsed = plan.keys.map((k) => {
    const pick =
      DEFAULT_KEYS.find((d) => !used.has(d.key) && d.merchant === k.merchant && d.key.startsWith(k.prefix || `svc_${k.mode}_sk_`) && d.direct_api) ??
      DEFAULT_KEYS.find((d) => !used.has(d.key) && d.merchant === k.merchant && d.key.includes(`_${k.mode}_sk_`));
    if (!pick) throw new PaystormError(`the reference service has no key like ${k.label}; pass --target and --key`, EXIT.usage, '--key');
    used.add(pick.key);
    return parseKeyArg(`${pick.merchant}:${pick.key}`);
  });
  return makeKeySecrets(parsed, (p) => DEFAULT_KEYS.find((d) => d.key === p.secret)?.direct_api);
}

export const reproCommand: PaystormCommand = {
  command: 'repro <run> <violation>',
  describe: "Replay one violation's repro against a target and say whether it still reproduces",
  builder: (y) =>
    y
      .positional('run', { type: 'string', describe: 'reports/<run-id> (with summary.json and its history)' })
      .positional('violation', { type: 'string', describe: 'violation id <invariant>-<n>, as in the reports and repro/<id>.sh' })
      .option('target', { type: 'string', describe: 'Base URL of the service (default: the embedded reference service)' })
      .option('key', { type: 'string', array: true, describe: '[merchant:]KEY, in the order of the repro\'s PAYSTORM_KEY, PAYSTORM_KEY_2, ...' })
      .option('cards', { type: 'string', describe: 'Cards file (JSON outcome -> number); embedded default: the reference cards' })
      .option('bugs', { type: 'string', describe: 'Embedded only: comma-separated seeded bugs to switch on' })
      .option('wait', { type: 'number', default: 30, describe: 'Seconds to wait for a payment or refund to settle' })
      .example('$0 repro reports/latest idem-single-object-1 --bugs idem-no-inflight-lock', 'Replay against the embedded service with the bug on')
      .example('$0 repro reports/latest over-refund-refused-1 --target http://127.0.0.1:4010 --key acme:svc_test_sk_...', 'Replay against a running service'),
  handler: async (args) => {
    const runDir: string = args.run;
    const history = historyFileOf(runDir);
    const summaryPath = join(dirname(history), 'summary.json');
    if (!existsSync(summaryPath)) throw new PaystormError(`${summaryPath} does not exist. Run \`paystorm check ${runDir}\` first.`, EXIT.usage, 'run');
    let summary;
    try {
      summary = summarySchema.parse(JSON.parse(readFileSync(summaryPath, 'utf8')));
    } catch (e) {
      throw new PaystormError(`${summaryPath} is not a paystorm summary.json (${(e as Error).message.split('\n')[0]}). Run \`paystorm check ${runDir}\` to rewrite it.`, EXIT.usage, 'run');
    }
    const all = violationsOf(summary);
    const id: string = args.violation;
    const v = all.find((x) => `${x.invariant.id}-${x.n}` === id);
    if (!v) {
      const known = all.map((x) => `${x.invariant.id}-${x.n}`);
      throw new PaystormError(`no violation ${id} in ${runDir}. ${known.length ? `Violations with a repro: ${known.join(', ')}.` : 'This run has no violation with evidence.'}`, EXIT.usage, 'violation');
    }
    const { plans, run } = await plansFromHistory(history, [v]);
    const plan = plans[0];
    if (!plan || !run) throw new PaystormError(`the evidence of ${id} names no request of the history, so there is nothing to replay`, EXIT.usage, 'violation');

    const bugs = typeof args.bugs === 'string' && args.bugs ? args.bugs.split(',').map((s: string) => s.trim()).filter(Boolean) : [];
    const bad = bugs.filter((b: string) => !isBugName(b));
    if (bad.length) throw new PaystormError(`--bugs: unknown bug(s) ${bad.join(', ')}; see \`paystorm serve --list-bugs\``, EXIT.usage, '--bugs');
    if (args.target && bugs.length) throw new PaystormError('--bugs applies to the embedded service only: drop --target or --bugs', EXIT.usage, '--bugs');
    if (args.target && !args.key?.length) throw new PaystormError(`--target needs --key (${plan.keys.length} key(s), for ${plan.keys.map((k) => k.label).join(', ')})`, EXIT.usage, '--key');
    const cards: CardsFile = args.cards ? loadCardsFile(args.cards) : DEFAULT_TEST_CARDS;
    const presentation: Presentation = run.target.presentation ?? 'B';

    let service: RunningService | null = null;
    try {
      let targetUrl: string = args.target;
      let keys: KeySecret[];
      if (targetUrl) keys = makeKeySecrets(args.key.map((k: string) => parseKeyArg(k)));
      else {
        // The run's own limit and window when it ran embedded (scaled), so rate rules are judged alike.
        const rate = run.target.embedded && run.rateLimit ? { rateLimit: run.rateLimit.limit, windowMs: run.rateLimit.windowMs } : {};
        service = await startReferenceService({ port: 0, host: '127.0.0.1', presentation, timeScale: run.target.embedded ? run.timeScale : 1, bugs, cards, ...rate });
        targetUrl = service.url;
        keys = embeddedKeysFor(plan);
      }
      const result = await replay(plan, { targetUrl, keys, cards, presentation, run, waitMs: args.wait * 1000, timeScale: run.target.embedded ? run.timeScale : 1 });
      const where = args.target ? targetUrl : `the embedded reference service${bugs.length ? ` with ${bugs.join(', ')}` : ''}`;
      process.stdout.write(`paystorm: repro ${id} (${plan.rules.join(', ')}): ${result.records.length} requests against ${where}${plan.concurrent ? ', some at once' : ''}\n`);
      if (result.setupFailed) {
        process.stdout.write(`paystorm: repro ${id}: cannot tell: the setup failed: ${result.setupFailed}\n`);
        return EXIT.target;
      }
      if (result.reproduces) {
        process.stdout.write(`paystorm: repro ${id}: reproduces: ${result.invariant?.examples[0]?.message ?? result.invariant?.reason ?? ''}\n`);
        return EXIT.violation;
      }
      process.stdout.write(`paystorm: repro ${id}: does not reproduce (${plan.invariant}: ${result.invariant?.status ?? 'not run'}${result.invariant?.reason ? `, ${result.invariant.reason}` : ''})\n`);
      return EXIT.pass;
    } finally {
      await service?.close();
    }
  },
};
