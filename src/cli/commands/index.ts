/** Every paystorm command: each module registers one. */
import type { PaystormCommand } from './types.ts';

export const commands: PaystormCommand[] = [];
