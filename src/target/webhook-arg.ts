/**
 * `--webhook-url [merchant:mode=]URL`: `acme:test=URL` (merchant and mode),
 * `acme=URL` (merchant, both modes), `test=URL` or `:live=URL` (mode, every
 * merchant), `URL` (everything). `*` or an empty part means any.
 */
import type { WebhookEndpoint } from './options.ts';

export function parseWebhookUrlArg(arg: string): WebhookEndpoint {
  const m = /^([^=]*?)=(https?:\/\/.+)$/.exec(arg.trim());
  const spec = m && !m[1].includes('/') ? m[1] : null;
  const url = spec !== null ? m![2] : arg.trim();
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new Error(`--webhook-url: "${arg}" is not [merchant:mode=]URL with an http(s) URL. Example: --webhook-url acme:test=http://127.0.0.1:9000/hooks`);
  try {
    new URL(url);
  } catch {
    throw new Error(`--webhook-url: "${url}" is not a valid URL.`);
  }
  const out: WebhookEndpoint = { url };
  if (spec === null || spec === '') return out;
  const colon = spec.indexOf(':');
  let merchant: string | undefined;
  let mode: string | undefined;
  if (colon >= 0) {
    merchant = spec.slice(0, colon);
    mode = spec.slice(colon + 1);
  } else if (spec === 'test' || spec === 'live') mode = spec;
  else merchant = spec;
  if (merchant && merchant !== '*') {
    if (!/^[A-Za-z0-9_.-]+$/.test(merchant)) throw new Error(`--webhook-url: merchant "${merchant}" may use only letters, digits, ".", "_" and "-".`);
    out.merchant = merchant;
  }
  if (mode && mode !== '*') {
    if (mode !== 'test' && mode !== 'live') throw new Error(`--webhook-url: mode "${mode}" must be test or live.`);
    out.mode = mode;
  }
  return out;
}
