import { field, isRecord, text } from "./normalise";

/** The parts of a provider error body that classify it, all optional. */
interface ErrorBody {
  /** `error.type` (Anthropic, OpenAI, Codex). */
  type?: string;
  /** `error.code` as text (OpenAI, Copilot), or Google's numeric code rendered as text. */
  code?: string;
  /** `error.message`, or a plain text body. */
  message?: string;
  /** Google `error.status` (`RESOURCE_EXHAUSTED`…). */
  status?: string;
  /** The `error` object itself (or the body when it has no `error` member). */
  error?: Record<string, unknown>;
}

/**
 * Reads the common error envelope `{"error":{type,code,message,status}}` (also a top-level
 * `type`/`code`/`message`, a Google array envelope, or a text body). Never throws.
 */
export function readErrorBody(body: unknown): ErrorBody {
  if (typeof body === "string") return body.trim() ? { message: body.slice(0, 4000) } : {};
  const root = Array.isArray(body) ? body[0] : body;
  if (!isRecord(root)) return {};
  const inner = field(root, "error");
  const error = isRecord(inner) ? inner : root;
  const result: ErrorBody = { error };
  const type = text(error.type) ?? (isRecord(inner) ? text(root.type) : undefined);
  if (type !== undefined && type !== "error") result.type = type;
  const code = error.code;
  if (typeof code === "string" && code.trim()) result.code = code.trim();
  if (typeof code === "number" && Number.isFinite(code)) result.code = String(code);
  const message = text(error.message) ?? (typeof inner === "string" ? text(inner) : undefined);
  if (message !== undefined) result.message = message.slice(0, 4000);
  const status = text(error.status);
  if (status !== undefined) result.status = status;
  return result;
}
