import { z } from "zod";

/** A secret reference: `env:NAME` names an environment variable; secrets are never literal. */
export const envRefSchema = z
  .string()
  .regex(
    /^env:[A-Za-z_][A-Za-z0-9_]*$/,
    "must be an env:NAME reference (secrets are never literal)",
  );
