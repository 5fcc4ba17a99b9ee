/**
 * A quick, exact parse of a value by a zod schema, compiled from the schema itself (no rule is
 * written twice): it gives what zod's `safeParse` gives for the value (`data`: the same values,
 * objects and arrays rebuilt, keys in the schema's order), or NOT_SURE, and then the caller asks
 * zod, which refuses the value with its issue or parses what this does not know. Reading a million k6 exchange records, zod's full parse costs more than judging them;
 * nearly all are plain, and this walk is a fraction of it.
 *
 * Known exactly: object (zod's default mode: a key must be there unless its schema is optional,
 * a key the schema does not know is dropped),
 * string and number without refinements (zod's number is finite), boolean, literal, enum,
 * nullable, optional, array, record of string keys, any, unknown, and a union when one of its
 * options parses. Anything else (refinements such as `.int()` or `.min()`, transforms, pipes,
 * defaults), and any value zod would refuse, is NOT_SURE.
 */
import type { z } from 'zod';

/** The answer when zod must decide. */
export const NOT_SURE: unique symbol = Symbol('not sure');
export type FastParse = (value: unknown) => unknown;

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: unknown;
  checks?: unknown[];
  innerType?: z.ZodType;
  element?: z.ZodType;
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  entries?: Record<string, unknown>;
  values?: unknown[];
}

const notSure: FastParse = () => NOT_SURE;
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

/** Compiles the parse of `schema` (once; it is then called per value). */
export function compileFastParse(schema: z.ZodType): FastParse {
  const def = defOf(schema);
  const refined = def.checks !== undefined && def.checks.length > 0;
  switch (def.type) {
    case 'string':
      return refined ? notSure : (v) => (typeof v === 'string' ? v : NOT_SURE);
    case 'number':
      return refined ? notSure : (v) => (typeof v === 'number' && Number.isFinite(v) ? v : NOT_SURE);
    case 'boolean':
      return refined ? notSure : (v) => (typeof v === 'boolean' ? v : NOT_SURE);
    case 'any':
    case 'unknown':
      return (v) => v;
    case 'literal': {
      const values = def.values ?? [];
      return (v) => (values.includes(v) ? v : NOT_SURE);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (v) => ((typeof v === 'string' || typeof v === 'number') && values.has(v) ? v : NOT_SURE);
    }
    case 'nullable': {
      const inner = compileFastParse(def.innerType!);
      return (v) => (v === null ? null : inner(v));
    }
    case 'optional': {
      const inner = compileFastParse(def.innerType!);
      return (v) => (v === undefined ? undefined : inner(v));
    }
    case 'array': {
      if (refined) return notSure;
      const element = compileFastParse(def.element!);
      return (v) => {
        if (!Array.isArray(v)) return NOT_SURE;
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) if ((out[i] = element(v[i])) === NOT_SURE) return NOT_SURE;
        return out;
      };
    }
    case 'record': {
      const key = defOf(def.keyType!);
      if (key.type !== 'string' || (key.checks !== undefined && key.checks.length > 0)) return notSure;
      const value = compileFastParse(def.valueType!);
      return (v) => {
        if (!isPlainObject(v)) return NOT_SURE;
        const out: Record<string, unknown> = {};
        for (const k in v) if ((out[k] = value(v[k])) === NOT_SURE) return NOT_SURE;
        return out;
      };
    }
    case 'union': {
      const options = (def.options ?? []).map(compileFastParse);
      return (v) => {
        for (const o of options) {
          const r = o(v);
          if (r !== NOT_SURE) return r;
        }
        return NOT_SURE;
      };
    }
    case 'object':
      return def.catchall !== undefined ? notSure : compileObject(def.shape ?? {});
    default:
      return notSure;
  }
}

/**
 * An object's parse as generated code (as zod itself compiles its objects): each key read and
 * written by name, so V8 keeps both objects' shapes and inline caches; simple fields are checked
 * inline, others by their compiled parse.
 */
function compileObject(shape: Record<string, z.ZodType>): FastParse {
  const keys = Object.keys(shape);
  const parses = keys.map((k) => compileFastParse(shape[k]));
  const lines: string[] = ['if (v === null || typeof v !== "object" || Array.isArray(v)) return NS;', 'const out = {};', 'let x;'];
  keys.forEach((k, i) => {
    const key = JSON.stringify(k);
    let d = defOf(shape[k]);
    const optional = d.type === 'optional';
    if (optional) d = defOf(d.innerType!);
    const nullable = d.type === 'nullable';
    if (nullable) d = defOf(d.innerType!);
    const plain = d.checks === undefined || d.checks.length === 0;
    // A check of x inline, or null when the field's compiled parse must run.
    const inline =
      d.type === 'string' && plain
        ? 'typeof x === "string"'
        : d.type === 'number' && plain
          ? 'typeof x === "number" && x - x === 0'
          : d.type === 'boolean' && plain
            ? 'typeof x === "boolean"'
            : d.type === 'any' || d.type === 'unknown'
              ? 'true'
              : null;
    lines.push(`x = v[${key}];`);
    // zod: a missing key is an issue unless its schema is optional (z.any() too).
    lines.push(`if (x === undefined && !(${key} in v)) { ${optional ? '' : 'return NS;'} } else {`);
    if (inline !== null) {
      const accepts = [optional ? 'x === undefined' : null, nullable ? 'x === null' : null, inline].filter((c) => c !== null).join(' || ');
      lines.push(`if (!(${accepts})) return NS;`, `out[${key}] = x;`);
    } else {
      lines.push(`x = parses[${i}](x);`, 'if (x === NS) return NS;', `out[${key}] = x;`);
    }
    lines.push('}');
  });
  lines.push('return out;');
  // A key the schema does not know is left out, as zod leaves it out.
  return new Function('parses', 'NS', `return function parseObject(v) {\n${lines.join('\n')}\n};`)(parses, NOT_SURE) as FastParse;
}
