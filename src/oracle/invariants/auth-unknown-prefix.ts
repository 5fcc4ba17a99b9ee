import { authProbeInvariant } from '../lib/auth-probe.ts';

export default authProbeInvariant({
  id: 'auth-unknown-prefix',
  title: 'A key with no known test or live prefix gives 401 invalid_api_key',
  rules: ['AUTH-2'],
  variants: ['bad-prefix'],
  what: 'a key that starts with no known test or live prefix',
});
