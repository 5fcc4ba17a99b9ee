/** paystorm's command line (yargs). Each command lives in its own module under commands/. */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, PaystormError } from '../spec/index.ts';
import { commands } from './commands/index.ts';

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  let exitCode: number = EXIT.pass;
  const parser = yargs(argv)
    .scriptName('paystorm')
    .usage('$0 <command> [options]\n\nLoad-and-chaos testing harness for the Card Payment Service API.')
    .strict()
    .demandCommand(1, 'Name a command: paystorm run, serve, scenarios, check, report, doctor, selftest.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw err ?? new PaystormError(msg, EXIT.usage);
    });
  for (const c of commands) {
    parser.command({
      ...c,
      handler: async (args) => {
        exitCode = (await c.handler(args)) ?? EXIT.pass;
      },
    });
  }
  try {
    await parser.parseAsync();
    return exitCode;
  } catch (err) {
    if (err instanceof PaystormError) {
      process.stderr.write(`paystorm: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    process.stderr.write(`paystorm: ${e?.stack ?? String(err)}\n`);
    return EXIT.usage;
  }
}
