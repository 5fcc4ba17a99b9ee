import { authProbeInvariant } from '../lib/auth-probe.ts';

export default authProbeInvariant({
  id: 'auth-malformed-header',
  title: 'A missing or malformed Authorization header, or a non-Bearer scheme, gives 401 invalid_api_key',
  rules: ['AUTH-1'],
  variants: ['missing', 'malformed', 'basic', 'basic-raw'],
  what: 'a missing or malformed Authorization header or a non-Bearer scheme',
});
