import { authProbeInvariant } from '../lib/auth-probe.ts';

export default authProbeInvariant({
  id: 'auth-unknown-key',
  title: 'A well-formed but unknown or revoked key gives 401 invalid_api_key',
  rules: ['AUTH-3'],
  variants: ['unknown-key'],
  what: 'a well-formed but unknown key',
});
