/** Table-driven bug tests: each probe keeps its rule on a clean service and breaks it with its bug. */
import { describe, expect, it } from 'vitest';
import { BUGS, type BugName } from '../../src/target/index.ts';
import { PROBES, runProbe } from './bug-probes.ts';

export function bugTests(families: string[]): void {
  const selected = BUGS.filter((b) => families.includes(b.rule.split('-')[0]));
  describe.each(selected.map((b) => [b.name, b] as const))('%s', (_name, b) => {
    it.concurrent(`keeps ${b.rule} without the bug and breaks it with it`, async () => {
      const probe = PROBES[b.name as BugName];
      expect(await runProbe(probe, [])).toBeNull();
      const seen = await runProbe(probe, [b.name]);
      expect(seen, `${b.name} should break ${b.rule}`).not.toBeNull();
    });
  });
}
