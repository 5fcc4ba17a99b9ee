/**
 * soak: the `mixed` workload at about 80% of each key's limit for a long time (default
 * 30 minutes, or --duration). Its own state is bounded (counters and a small ring of ids
 * per key), so memory stays flat as in the engine's benchmark. Progress goes to the log
 * every minute (every twentieth of a shorter run), and at mid-run a report snapshot is written so an operator sees
 * trouble early.
 */
import type { Scenario, ScenarioContext } from '../src/spec/scenario.ts';
import { runMixed } from './lib/mixed-load.ts';
import { declareRules } from './lib/rules.ts';

export const SOAK_SHARE = 0.8;
export const SOAK_DEFAULT_MS = 30 * 60_000;

const { rules, rulesFor } = declareRules(
  ['PAY-1', 'PAY-6', 'PAY-8', 'PAY-11', 'PAY-12', 'SM-1', 'SM-2', 'LIST-1', 'LIST-2', 'RL-4', 'RL-5', 'RL-6', 'ERR-5', 'AUTH-5', 'SEC-2'],
  [
    { rules: ['PAY-9', 'PAY-15', 'SM-6', 'REF-1', 'REF-2'], cards: ['succeeds'] },
    { rules: ['REF-6', 'PAY-13', 'PAY-14'], presentation: 'B', cards: ['succeeds'] },
    { rules: ['PAY-10'], presentation: 'A', cards: ['succeeds'] },
  ],
);

/** How long the soak's load runs: --duration, else 30 minutes (the run's plan reads it too). */
export function soakDurationMs(ctx: Pick<ScenarioContext, 'durationMs'>): number {
  return ctx.durationMs ?? SOAK_DEFAULT_MS;
}

async function run(ctx: ScenarioContext): Promise<void> {
  const durationMs = soakDurationMs(ctx);
  const t0 = ctx.now();
  let snapped = false;
  // Operator-facing, so wall time: every minute, or every twentieth of a short run (at least 5 s).
  const progressEveryMs = Math.max(5_000, Math.min(60_000, durationMs / 20));
  await runMixed(ctx, {
    durationMs,
    share: SOAK_SHARE,
    progressEveryMs,
    onProgress: async () => {
      if (snapped || !ctx.snapshot || ctx.now() - t0 < durationMs / 2) return;
      snapped = true;
      const mem = process.memoryUsage();
      ctx.log(`soak: mid-run snapshot (rss ${Math.round(mem.rss / 2 ** 20)} MiB, heap ${Math.round(mem.heapUsed / 2 ** 20)} MiB)`);
      await ctx.snapshot('mid-run');
    },
  });
}

const scenario: Scenario = {
  name: 'soak',
  description: 'The mixed workload at about 80% of each key’s limit for a long duration (default 30 minutes), with progress and a mid-run report snapshot',
  rules,
  rulesFor,
  thresholds: ['http_req_failed: rate<0.01', 'http_req_duration{op:create}: p(99)<2000'],
  defaultSuite: false,
  run,
};
export default scenario;
