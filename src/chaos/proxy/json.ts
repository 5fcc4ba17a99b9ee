// How Go's encoding/json reads request bodies and writes numbers, where the API's answers depend on it.

/** Go's json.Decoder lookup: exact key first, else a case-insensitive match. */
export function field(obj: Record<string, unknown>, key: string): unknown {
  if (Object.prototype.hasOwnProperty.call(obj, key)) return obj[key];
  const lower = key.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

export function jsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v; // string | number | object
}


/** Shortest decimal that round-trips as float32 (how Go marshals the float32 toxicity). */
export function float32Json(x: number): number {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return f;
  for (let p = 1; p <= 9; p++) {
    const v = Number(f.toPrecision(p));
    if (Math.fround(v) === f) return v;
  }
  return f;
}
