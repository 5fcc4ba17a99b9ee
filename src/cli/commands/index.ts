/** Every paystorm command: each module registers one. */
import type { PaystormCommand } from './types.ts';
import { serveCommand } from './serve.ts';
import { runCommand } from './run.ts';
import { checkCommand } from './check.ts';
import { reportCommand } from './report.ts';
import { scenariosCommand } from './scenarios.ts';
import { selftestCommand } from './selftest.ts';
import { doctorCommand } from './doctor.ts';

export const commands: PaystormCommand[] = [runCommand, serveCommand, scenariosCommand, checkCommand, reportCommand, doctorCommand, selftestCommand];
