/**
 * Conforming variants of the reference service: one for each choice the spec leaves open
 * ("not shown", two forms). Every variant keeps every rule; `paystorm selftest --variants`
 * runs the default suite on each and requires zero failed invariants, which proves the
 * oracle judges what the service did, not how the reference service happens to do it.
 * docs/variant-matrix.md carries the table and the last run's results.
 */
import type { ServiceOptions } from './options.ts';

/** The service options a variant may set (never bugs). */
export type VariantOptions = Partial<Omit<ServiceOptions, 'bugs' | 'port' | 'host'>>;

export interface ServiceVariant {
  name: string;
  /** The open choice of the spec it takes, in the spec's words where possible. */
  choice: string;
  options: VariantOptions;
}

const variant = (name: string, choice: string, options: VariantOptions): ServiceVariant => ({ name, choice, options });

export const VARIANTS: readonly ServiceVariant[] = Object.freeze([
  variant('presentation-a', 'Which Payment presentation a deployment returns: not shown (presentation A).', { presentation: 'A' }),
  variant('presentation-b', 'Which Payment presentation a deployment returns: not shown (presentation B).', { presentation: 'B' }),
  variant(
    'reused-key-in-use',
    'Same key, different body: 409 idempotency_key_reused (idempotency description) or idempotency_key_in_use (error reference); this variant answers idempotency_key_in_use.',
    { differentBodyCode: 'idempotency_key_in_use' },
  ),
]);

export const VARIANT_NAMES: readonly string[] = VARIANTS.map((v) => v.name);

export function variantByName(name: string): ServiceVariant | undefined {
  return VARIANTS.find((v) => v.name === name);
}
