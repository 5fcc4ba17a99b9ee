/** `paystorm scenarios`: every scenario with what it probes and the rules it exercises. */
import type { PaystormCommand } from './types.ts';
import { SCENARIOS } from '../../../scenarios/index.ts';

export const scenariosCommand: PaystormCommand = {
  command: 'scenarios',
  describe: 'List the scenarios, what each probes, and the rule ids it exercises',
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print JSON' }).example('$0 scenarios', 'List them'),
  handler: async (args) => {
    if (args.json) {
      process.stdout.write(JSON.stringify(SCENARIOS.map((s) => ({ name: s.name, description: s.description, rules: s.rules, defaultSuite: !!s.defaultSuite, thresholds: s.thresholds ?? [] })), null, 2) + '\n');
      return 0;
    }
    const width = Math.max(...SCENARIOS.map((s) => s.name.length));
    for (const s of SCENARIOS) {
      process.stdout.write(`${s.name.padEnd(width)}  ${s.defaultSuite ? '[default] ' : ''}${s.description}\n${' '.repeat(width + 2)}rules: ${s.rules.join(' ')}\n`);
    }
    return 0;
  },
};
