/** `paystorm report <run-dir>`: re-renders the reports of a saved run from its summary.json (or its history). */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { EXIT, PaystormError, summarySchema } from '../../spec/index.ts';
import { historyFileOf, judgeHistoryFile } from '../judge-run.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { formatIssues } from '../config.ts';

export const reportCommand: PaystormCommand = {
  command: 'report <dir>',
  describe: 'Re-render console, JSON, JUnit, Markdown and HTML reports of a saved run',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', describe: 'reports/<run-id>' })
      .option('from-history', { type: 'boolean', default: false, describe: 'Judge the run history again instead of reading summary.json' })
      .example('$0 report reports/20261122-101500-ab12', 'Rewrite report.html and the others'),
  handler: async (args) => {
    const dir: string = args.dir;
    const summaryPath = join(dir, 'summary.json');
    let summary;
    if (!args.fromHistory && existsSync(summaryPath)) {
      let raw: unknown;
      try {
        raw = JSON.parse(readFileSync(summaryPath, 'utf8'));
      } catch (e) {
        throw new PaystormError(`${summaryPath} is not JSON (${(e as Error).message}); expected the summary.json a paystorm run writes. Use --from-history to rebuild it from the run's history.`, EXIT.usage);
      }
      const parsed = summarySchema.safeParse(raw);
      if (!parsed.success) throw new PaystormError(`${summaryPath} is not a summary.json v1:\n${formatIssues(parsed.error.issues, '  ')}\nUse --from-history to rebuild it.`, EXIT.usage);
      summary = parsed.data;
    } else {
      summary = await judgeHistoryFile(historyFileOf(dir), {});
    }
    const { files } = await writeReports(dir, summary, { latestDir: dir });
    process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n' + files.map((f) => `wrote ${f}`).join('\n') + '\n');
    return EXIT.pass;
  },
};
