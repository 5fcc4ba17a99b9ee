/**
 * The command list `paystorm --help` shows without loading any command (commands/index.ts)
 * must say what each command's own module says.
 */
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli/commands/index.ts';

describe('command list', () => {
  it('names, usage and description match each command module', async () => {
    expect(commands.map((c) => c.name)).toEqual(['run', 'serve', 'scenarios', 'check', 'history', 'merge', 'report', 'repro', 'compare', 'doctor', 'selftest']);
    for (const entry of commands) {
      const c = await entry.load();
      expect(c.command, entry.name).toBe(entry.command);
      expect(c.describe, entry.name).toBe(entry.describe);
      expect(String(c.command).split(' ')[0]).toBe(entry.name);
    }
  });
});
