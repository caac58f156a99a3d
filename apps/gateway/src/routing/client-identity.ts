/** The identity of one authenticated client key: what routing may use on its behalf. */
export interface ClientIdentity {
  /** Key id (configured id or env variable name); `anonymous` when no keys are configured. */
  id: string;
  /** Connection ids the key may use; null = all. */
  connections: ReadonlySet<string> | null;
}
