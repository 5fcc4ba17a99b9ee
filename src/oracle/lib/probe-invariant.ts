import type { Operation } from '../../spec/index.ts';
import type { Invariant } from '../types.ts';
import { Findings } from './findings.ts';
import { judgeProbe, probeRule } from './probes.ts';

/** An invariant that judges the bad-input probes of one rule. */
export function probeInvariant(def: { id: string; title: string; rule: string; notExercised: string; ops?: readonly Operation[] }): Invariant {
  return {
    id: def.id,
    title: def.title,
    rules: [def.rule],
    create(ctx) {
      const f = new Findings();
      return {
        kinds: ['exchange'],
        ...(def.ops ? { ops: def.ops } : {}),
        onRecord(rec) {
          if (rec.kind === 'exchange' && probeRule(rec) === def.rule) judgeProbe(rec, def.rule, f, ctx.presentation);
        },
        finish: () => f.outcome(def.notExercised),
      };
    },
  };
}
