import { ProtocolError } from "./protocol-error";

/** The ProtocolError `run` throws; fails when it throws another error or none. Test support only. */
export function refusal(run: () => unknown): ProtocolError {
  try {
    run();
  } catch (error) {
    if (ProtocolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ProtocolError");
}
