/** `paystorm history <path>`: prints a saved history as NDJSON, one record a line (for jq, grep, diff). */
import { once } from 'node:events';
import type { PaystormCommand } from './types.ts';
import { historyFileOf } from '../judge-run.ts';
import { readHistory } from '../../history/index.ts';

export const historyCommand: PaystormCommand = {
  command: 'history <path>',
  describe: 'Print a saved history (history.bin.gz or NDJSON) as NDJSON, one record a line',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'reports/<run-id> or a history file' })
      .option('kind', { type: 'string', array: true, choices: ['run', 'exchange', 'webhook', 'fault', 'end'], describe: 'Only records of these kinds' })
      .example('$0 history reports/latest | jq -c \'select(.status == 429)\'', 'The 429s of the latest run'),
  handler: async (args) => {
    const kinds = args.kind ? new Set<string>(args.kind as string[]) : null;
    const file = readHistory(historyFileOf(args.path), { onWarning: (m) => process.stderr.write(`paystorm: ${m}\n`) });
    for await (const batch of file.batches()) {
      let text = '';
      for (const r of batch) if (kinds === null || kinds.has(r.kind)) text += JSON.stringify(r) + '\n';
      // A reader that stops early (head) closes the pipe: stop quietly.
      if (text && !process.stdout.write(text)) await Promise.race([once(process.stdout, 'drain'), once(process.stdout, 'close')]);
      if (process.stdout.destroyed) break;
    }
    return 0;
  },
};
