import type { z } from "zod";
import { bodyObject } from "../connector";
import { ConnectorError } from "../connector-error";
import type { OnboardingPoll } from "../connector-spec";
import {
  CODE_ASSIST_METADATA,
  type CodeAssistEndpoint,
  callCodeAssist,
  isEnumName,
  loadCodeAssistResponseSchema,
  projectIdOf,
} from "./code-assist-api";
import { onboardCodeAssist } from "./code-assist-onboarding";

/** The body of `:loadCodeAssist`: the metadata alone, no project (the login's own is asked for). */
const LOAD_CODE_ASSIST_BODY = { metadata: CODE_ASSIST_METADATA } as const;

/** What `:loadCodeAssist` says about a login: its project and tier, or what it could set up. */
interface CodeAssistSetup {
  /** `cloudaicompanionProject`; null for a login that never set Code Assist up. */
  project: string | null;
  /** `currentTier.id` (`free-tier`, `standard-tier`, `legacy-tier`…); null when not set up. */
  tierId: string | null;
  /** The `allowedTiers` entry marked `isDefault`: what onboarding sets up; null when none is. */
  defaultTier: { id: string; needsUserProject: boolean } | null;
  /** `ineligibleTiers[].reasonCode` (`DASHER_USER`, `VALIDATION_REQUIRED`…): why tiers are not offered. */
  ineligibleReasons: string[];
}

/**
 * Reads a `:loadCodeAssist` answer (an object or its JSON text); null when it is not one. A login
 * that never set Code Assist up has no `currentTier` and no project, only `allowedTiers`.
 */
export function readLoadCodeAssist(payload: unknown): CodeAssistSetup | null {
  const parsed = loadCodeAssistResponseSchema.safeParse(bodyObject(payload));
  return parsed.success ? setupOf(parsed.data) : null;
}

function setupOf(answer: z.infer<typeof loadCodeAssistResponseSchema>): CodeAssistSetup {
  const preferred = answer.allowedTiers?.find((tier) => tier.isDefault === true);
  return {
    project: projectIdOf(answer.cloudaicompanionProject),
    tierId: answer.currentTier?.id ?? null,
    defaultTier: preferred?.id
      ? {
          id: preferred.id,
          needsUserProject: preferred.userDefinedCloudaicompanionProject === true,
        }
      : null,
    ineligibleReasons: (answer.ineligibleTiers ?? []).flatMap((tier) =>
      isEnumName(tier.reasonCode) ? [tier.reasonCode] : [],
    ),
  };
}

/**
 * Asks `{baseUrl}:loadCodeAssist` what the login is set up with. Rejects with ConnectorError
 * `endpoint_discovery_failed` naming the connection and the status, never the token or body.
 */
async function loadCodeAssist(
  endpoint: CodeAssistEndpoint,
  token: string,
): Promise<CodeAssistSetup> {
  const answer = await callCodeAssist(
    {
      connectionId: endpoint.connectionId,
      url: `${endpoint.baseUrl}:loadCodeAssist`,
      method: "POST",
      token,
      headers: endpoint.headers,
      body: LOAD_CODE_ASSIST_BODY,
      failureCode: "endpoint_discovery_failed",
    },
    loadCodeAssistResponseSchema,
  );
  return setupOf(answer);
}

/**
 * The project a login serves from: the one `:loadCodeAssist` names, else the managed project of
 * the default tier after onboarding it (`onboardCodeAssist`). A tier that needs a Google Cloud
 * project of the user's own is never onboarded here: planfirst has none to give, and such a
 * licence is set up (and paid for) by its owner, so the error says so. Rejects with
 * ConnectorError (`endpoint_discovery_failed`, `account_setup_failed`) naming the connection.
 */
export async function codeAssistProject(
  endpoint: CodeAssistEndpoint,
  token: string,
  poll: OnboardingPoll,
): Promise<string> {
  const setup = await loadCodeAssist(endpoint, token);
  if (setup.project !== null) return setup.project;
  const refuse = (why: string) =>
    new ConnectorError({
      code: "account_setup_failed",
      message: `connection ${endpoint.connectionId}: ${why}`,
      connectionId: endpoint.connectionId,
    });
  const ineligible =
    setup.ineligibleReasons.length > 0
      ? ` (ineligible: ${setup.ineligibleReasons.join(", ")})`
      : "";
  if (setup.tierId !== null) {
    throw refuse(
      `the login's Code Assist tier ${setup.tierId} names no project; it needs a Google Cloud project of its own, set up with the Gemini CLI (GOOGLE_CLOUD_PROJECT)${ineligible}`,
    );
  }
  const tier = setup.defaultTier;
  if (tier === null || tier.needsUserProject) {
    const offered = tier
      ? `its default tier ${tier.id} needs a Google Cloud project of its own`
      : "it is offered no default tier";
    throw refuse(
      `the login never set Code Assist up and ${offered}; set it up with the Gemini CLI (GOOGLE_CLOUD_PROJECT)${ineligible}`,
    );
  }
  return onboardCodeAssist(endpoint, token, tier.id, poll);
}
