/**
 * A short, readable label of a credential for attributing hits in tests: the credential itself
 * up to 8 characters, else its first 4 and last 4 characters around "…". Not a hash, and not
 * the whole secret.
 */
export function credentialLabel(credential: string): string {
  if (credential.length <= 8) return credential;
  return `${credential.slice(0, 4)}…${credential.slice(-4)}`;
}
