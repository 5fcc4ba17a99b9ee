/**
 * Validates a fault schedule (a scenario's, or `faults` in the config file) against the tables
 * of src/spec/faults.ts and fills its defaults. Here rather than in src/spec so the spec's
 * tables stay free of zod.
 */
import { z } from 'zod';
import { EXIT, FAULT_ATTRIBUTES, FAULT_STREAMS, FAULT_TYPES, PROXY_NAME_PATTERN, PaystormError, type FaultStep, type FaultStream } from '../spec/index.ts';

/** One step as written (the config file's JSON Schema shows it to editors: src/cli/config-schema.ts). */
export const faultStepInputSchema = z
  .object({
    at: z.number().int().min(0),
    duration: z.number().int().positive(),
    proxy: z.string().regex(PROXY_NAME_PATTERN, 'a proxy name (letters, digits, ".", "_", "-")'),
    type: z.enum(FAULT_TYPES),
    stream: z.enum(FAULT_STREAMS).optional(),
    toxicity: z.number().min(0).max(1).optional(),
    attributes: z.record(z.string(), z.number().min(0)).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const def = FAULT_ATTRIBUTES[s.type];
    const attrs = s.attributes ?? {};
    for (const name of def.required) {
      if (!(name in attrs)) ctx.addIssue({ code: 'custom', path: ['attributes', name], message: `required for a ${s.type} fault (${def.units[name]})` });
    }
    for (const name of Object.keys(attrs)) {
      if (!def.required.includes(name) && !def.optional.includes(name)) {
        const known = [...def.required, ...def.optional];
        ctx.addIssue({
          code: 'custom',
          path: ['attributes', name],
          message: `not an attribute of ${s.type}` + (known.length ? ` (it takes ${known.join(', ')})` : ' (it takes none)'),
        });
      }
    }
    if (s.type === 'down' && s.toxicity !== undefined && s.toxicity !== 1) {
      ctx.addIssue({ code: 'custom', path: ['toxicity'], message: 'down disables the whole proxy; toxicity does not apply' });
    }
  });

/** One step, with the defaults filled (downstream, toxicity 1, no attributes). */
const faultStepSchema = faultStepInputSchema.transform((s): FaultStep => ({
  at: s.at,
  duration: s.duration,
  proxy: s.proxy,
  type: s.type,
  stream: s.stream ?? ('downstream' as FaultStream),
  toxicity: s.toxicity ?? 1,
  attributes: s.attributes ?? {},
}));
const faultScheduleSchema = z.array(faultStepSchema);

function issuePath(where: string, path: readonly PropertyKey[]): string {
  let out = where;
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `.${String(p)}`;
  return out;
}

/** Validates a schedule; the error names each bad field by its path, e.g. `faults[1].attributes.latency`. */
export function parseFaultSchedule(value: unknown, where = 'faults'): FaultStep[] {
  const r = faultScheduleSchema.safeParse(value);
  if (r.success) return r.data;
  const lines = r.error.issues.map((i) => `${issuePath(where, i.path)}: ${i.message}`);
  throw new PaystormError(`invalid fault schedule:\n  ${lines.join('\n  ')}`, EXIT.usage, issuePath(where, r.error.issues[0]?.path ?? []));
}
