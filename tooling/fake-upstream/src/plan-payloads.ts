/**
 * Usage payloads in the providers' real shapes (quota-signals.md §4c, §5, §14), built from a
 * few numbers so tests can say what they mean.
 */

/** Codex `GET /backend-api/wham/usage` with a 5 h and a 7 d window. */
export function codexUsagePayload(options: {
  fiveHourUsedPercent: number;
  weeklyUsedPercent: number;
  fiveHourResetAtSec: number;
  weeklyResetAtSec: number;
  nowSec: number;
  hasCredits?: boolean;
  planType?: string;
}): Record<string, unknown> {
  const window = (usedPercent: number, seconds: number, resetAtSec: number) => ({
    used_percent: usedPercent,
    limit_window_seconds: seconds,
    reset_after_seconds: Math.max(0, resetAtSec - options.nowSec),
    reset_at: resetAtSec,
  });
  const reached = options.fiveHourUsedPercent >= 100 || options.weeklyUsedPercent >= 100;
  return {
    plan_type: options.planType ?? "pro",
    rate_limit: {
      allowed: !reached,
      limit_reached: reached,
      primary_window: window(options.fiveHourUsedPercent, 18_000, options.fiveHourResetAtSec),
      secondary_window: window(options.weeklyUsedPercent, 604_800, options.weeklyResetAtSec),
    },
    code_review_rate_limit: null,
    additional_rate_limits: [],
    credits: {
      has_credits: options.hasCredits ?? false,
      unlimited: false,
      balance: options.hasCredits ? "25" : "0",
      approx_local_messages: [0, 0],
      approx_cloud_messages: [0, 0],
    },
  };
}

/** Copilot `GET copilot_internal/user` for a paid seat, `endpoints.api` pointing at `apiBase`. */
export function copilotUserPayload(options: {
  apiBase: string;
  premiumPercentRemaining: number;
  entitlement?: number;
  overagePermitted?: boolean;
  resetDateUtc: string;
}): Record<string, unknown> {
  const entitlement = options.entitlement ?? 300;
  const remaining = Math.round((entitlement * options.premiumPercentRemaining) / 100);
  const unlimited = (quotaId: string) => ({
    entitlement: 0,
    overage_count: 0,
    overage_permitted: false,
    percent_remaining: 100,
    quota_id: quotaId,
    quota_remaining: 0,
    remaining: 0,
    unlimited: true,
  });
  return {
    login: "fake-seat",
    copilot_plan: "individual_pro",
    access_type_sku: "plus_monthly_subscriber_quota",
    chat_enabled: true,
    quota_reset_date: options.resetDateUtc.slice(0, 10),
    quota_reset_date_utc: options.resetDateUtc,
    quota_snapshots: {
      premium_interactions: {
        entitlement,
        overage_count: 0,
        overage_permitted: options.overagePermitted ?? false,
        percent_remaining: options.premiumPercentRemaining,
        quota_id: "premium_interactions",
        quota_remaining: remaining,
        remaining,
        unlimited: false,
      },
      chat: unlimited("chat"),
      completions: unlimited("completions"),
    },
    endpoints: {
      api: options.apiBase,
      proxy: options.apiBase,
      telemetry: options.apiBase,
    },
  };
}

/**
 * Copilot `GET {endpoints.api}/models`: one chat model per id, with the capabilities, policy and
 * supported endpoints the Copilot CLI reads to offer a model.
 */
export function copilotModelsPayload(ids: readonly string[]): Record<string, unknown> {
  return {
    object: "list",
    data: ids.map((id) => ({
      id,
      name: id,
      object: "model",
      vendor: id.startsWith("claude") ? "Anthropic" : "OpenAI",
      version: id,
      preview: false,
      model_picker_enabled: true,
      policy: { state: "enabled", terms: "" },
      supported_endpoints: ["/chat/completions"],
      capabilities: {
        family: id,
        type: "chat",
        object: "model_capabilities",
        tokenizer: "o200k_base",
        limits: {
          max_context_window_tokens: 128_000,
          max_output_tokens: 16_384,
          max_prompt_tokens: 128_000,
        },
        supports: { streaming: true, tool_calls: true, parallel_tool_calls: true },
      },
      billing: { is_premium: false, multiplier: 0 },
    })),
  };
}

/** z.ai `GET /api/monitor/usage/quota/limit`: the 5 h token window and the monthly tool calls. */
export function zaiUsagePayload(options: {
  tokensPercentUsed: number;
  tokensResetAtMs: number;
  toolCallsUsed?: number;
  toolCallsLimit?: number;
  toolCallsResetAtMs?: number;
  level?: string;
}): Record<string, unknown> {
  const limit = options.toolCallsLimit ?? 1000;
  const used = options.toolCallsUsed ?? 0;
  return {
    code: 200,
    msg: "Operation successful",
    data: {
      limits: [
        {
          type: "TIME_LIMIT",
          unit: 5,
          number: 1,
          usage: limit,
          currentValue: used,
          remaining: limit - used,
          percentage: Math.round((100 * used) / limit),
          nextResetTime: options.toolCallsResetAtMs ?? options.tokensResetAtMs,
          usageDetails: [{ modelCode: "search-prime", usage: used }],
        },
        {
          type: "TOKENS_LIMIT",
          unit: 3,
          number: 5,
          percentage: options.tokensPercentUsed,
          nextResetTime: options.tokensResetAtMs,
        },
      ],
      level: options.level ?? "pro",
    },
    success: true,
  };
}

/** Kimi `GET /coding/v1/usages`: weekly usage and the 300-minute window, numbers as strings. */
export function kimiUsagePayload(options: {
  weeklyLimit: number;
  weeklyUsed: number;
  weeklyResetAt: string;
  sessionLimit: number;
  sessionUsed: number;
  sessionResetAt: string;
}): Record<string, unknown> {
  return {
    user: {
      userId: "fake-user",
      region: "REGION_OVERSEA",
      membership: { level: "LEVEL_INTERMEDIATE" },
    },
    usage: {
      limit: String(options.weeklyLimit),
      used: String(options.weeklyUsed),
      remaining: String(options.weeklyLimit - options.weeklyUsed),
      resetTime: options.weeklyResetAt,
    },
    limits: [
      {
        window: { duration: 300, timeUnit: "TIME_UNIT_MINUTE" },
        detail: {
          limit: String(options.sessionLimit),
          used: String(options.sessionUsed),
          remaining: String(options.sessionLimit - options.sessionUsed),
          resetTime: options.sessionResetAt,
        },
      },
    ],
  };
}
