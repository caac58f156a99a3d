/**
 * Written in a scripted reply (`body`, `text` or a stream chunk), this marker is replaced by the
 * credential the request carried (the bare token of `authorization`, or `x-api-key`), so a test
 * can play an upstream that repeats back what it received (`…you sent authorization=Bearer
 * {{credential}}`). Replaced by "" when the request carried none.
 */
export const ECHO_CREDENTIAL = "{{credential}}";

/** `text` with every {@link ECHO_CREDENTIAL} replaced by `credential`. */
export function echoCredential(text: string, credential: string | null): string {
  if (!text.includes(ECHO_CREDENTIAL)) return text;
  return text.split(ECHO_CREDENTIAL).join(credential ?? "");
}

/**
 * Where to cut `frame` in two writes: inside the first occurrence of `credential` (at its middle)
 * when the frame carries it, else at the frame's middle. Always within `1..length-1`.
 */
export function splitPoint(frame: string, credential: string | null): number {
  const at = credential && credential.length > 1 ? frame.indexOf(credential) : -1;
  if (at !== -1) return at + Math.floor(credential!.length / 2);
  return Math.max(1, Math.floor(frame.length / 2));
}
