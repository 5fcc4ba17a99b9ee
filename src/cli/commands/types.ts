import type { CommandModule } from 'yargs';

/** A command whose handler returns its exit code (see src/spec/exit-codes.ts). */
export interface PaystormCommand extends Omit<CommandModule<any, any>, 'handler'> {
  command: string | readonly string[];
  describe: string;
  handler: (args: any) => Promise<number | void>;
}
