// Toxics as configured on a proxy (Toxiproxy's ToxicWrapper): what the API adds, updates and lists,
// and how a request's attributes are decoded against the toxic's definition.

import { Errors } from './errors.ts';
import { field, float32Json, jsonKind } from './json.ts';
import type { Attributes, ToxicDefinition } from './toxics/toxic.ts';

export type Direction = 'upstream' | 'downstream';

export interface ToxicJson {
  attributes: Attributes;
  name: string;
  type: string;
  stream: string;
  toxicity: number;
}

export class Toxic {
  constructor(
    readonly name: string,
    readonly type: string,
    readonly stream: string,
    readonly direction: Direction,
    public toxicity: number,
    public attributes: Attributes,
    readonly def: ToxicDefinition,
  ) {}

  toJSON(): ToxicJson {
    return {
      attributes: { ...this.attributes },
      name: this.name,
      type: this.type,
      stream: this.stream,
      toxicity: float32Json(this.toxicity),
    };
  }
}

export interface ToxicInput {
  name?: string;
  type?: string;
  stream?: string;
  toxicity?: number;
  /** Raw attribute values, checked against the toxic's definition. */
  attributes?: Record<string, unknown>;
}

/** Decode `raw` attributes over `base`, as Go's json.Unmarshal into the toxic's struct would. */
export function decodeAttributes(def: ToxicDefinition, base: Attributes, raw: unknown): Attributes {
  const out: Attributes = { ...base };
  if (raw === undefined || raw === null) return out;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw Errors.badRequestBody(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field .attributes of type toxics.${def.type}`);
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(def.defaults)) {
    const v = field(obj, key);
    if (v === undefined || v === null) continue;
    const goType = (def.goTypes as Record<string, string> | undefined)?.[key] ?? 'int64';
    if (typeof v !== 'number' || !Number.isInteger(v)) {
      const what = typeof v === 'number' ? `number ${v}` : jsonKind(v);
      throw Errors.badRequestBody(`json: cannot unmarshal ${what} into Go struct field .attributes.${key} of type ${goType}`);
    }
    out[key] = v;
  }
  return out;
}

export function validateAttributes(def: ToxicDefinition, attrs: Attributes): void {
  const msg = def.validate?.(attrs);
  if (msg) throw Errors.badRequestBody(msg);
}

export function parseDirection(stream: string): Direction | undefined {
  const s = stream.toLowerCase();
  return s === 'upstream' || s === 'downstream' ? s : undefined;
}
