/** The reference Card Payment Service and its sandbox processor (`paystorm serve`). */
export { startReferenceService, type RunningService } from './service.ts';
export { startProcessor, type ProcessorOptions, type RunningProcessor } from './processor.ts';
export {
  DEFAULT_KEYS,
  DEFAULT_OPTIONS,
  DEFAULT_WEBHOOK_SECRET,
  BASE_DELAYS,
  MAX_PROCESSOR_ERROR_ATTEMPTS,
  SANDBOX_REFUND_FAIL_AMOUNT,
  scaledDelays,
  resolveOptions,
  type KeyConfig,
  type ServiceOptions,
  type WebhookEndpoint,
} from './options.ts';
export { VARIANTS, VARIANT_NAMES, variantByName, type ServiceVariant, type VariantOptions } from './variants.ts';
export { BUGS, BUG_NAMES, isBugName, type BugInfo, type BugName } from './bugs.ts';
export { keysFileSchema } from './auth.ts';
export { parseWebhookUrlArg } from './webhook-arg.ts';
