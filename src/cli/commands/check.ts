/** `paystorm check <run-dir | history.ndjson>`: re-runs the oracle over a saved history. */
import { dirname } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { historyFileOf, judgeHistory } from '../judge-run.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';

export const checkCommand: PaystormCommand = {
  command: 'check <path>',
  describe: 'Judge a saved run again (a run directory or its history.ndjson); rewrites its reports',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'reports/<run-id> or a history.ndjson' })
      .option('threshold', { type: 'string', array: true, describe: 'Threshold in k6 syntax, repeatable' })
      .option('write', { type: 'boolean', default: true, describe: 'Rewrite the reports beside the history (--no-write to only print)' })
      .example('$0 check reports/latest', 'Judge the latest run again'),
  handler: async (args) => {
    const history = historyFileOf(args.path);
    const summary = await judgeHistory(history, { thresholds: args.threshold ?? [], scenarioThresholds: (n) => scenarioByName(n)?.thresholds ?? [] });
    if (args.write) // latestDir = the run dir itself: re-judging an old run must not replace reports/latest.
    if (args.write) await writeReports(dirname(history), summary, { latestDir: dirname(history) });
    process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n');
    return summary.exitCode;
  },
};
