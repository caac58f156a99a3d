import { setTimeout as delay } from "node:timers/promises";
import { ConnectorError } from "../connector-error";
import type { OnboardingPoll } from "../connector-spec";
import {
  CODE_ASSIST_METADATA,
  type CodeAssistEndpoint,
  callCodeAssist,
  onboardOperationSchema,
  projectIdOf,
} from "./code-assist-api";

/**
 * Every 5 s (the Gemini CLI's own interval), at most 12 times: an onboarding not done within
 * about a minute is given up and the connection cooled rather than holding requests longer.
 */
export const DEFAULT_ONBOARDING_POLL: OnboardingPoll = { intervalMs: 5_000, maxPolls: 12 };

/**
 * Sets Code Assist up for a login that never did, as the Gemini CLI does: `POST
 * {baseUrl}:onboardUser` with `{tierId, metadata}` and no project (the free tier gets a managed
 * one; naming a project there is refused), then `GET {baseUrl}/{operation name}` every
 * `poll.intervalMs` until the operation is done, at most `poll.maxPolls` times. Resolves with
 * `response.cloudaicompanionProject.id`. Rejects with ConnectorError `account_setup_failed`
 * naming the connection and what went wrong (the status, the bound, or a result without a
 * project), never the token or a body; an HTTP refusal keeps its status in `upstreamStatus`.
 */
export async function onboardCodeAssist(
  endpoint: CodeAssistEndpoint,
  token: string,
  tierId: string,
  poll: OnboardingPoll,
): Promise<string> {
  const call = (url: string, method: "GET" | "POST", body?: unknown) =>
    callCodeAssist(
      {
        connectionId: endpoint.connectionId,
        url,
        method,
        token,
        headers: endpoint.headers,
        ...(body === undefined ? {} : { body }),
        failureCode: "account_setup_failed",
      },
      onboardOperationSchema,
    );
  const fail = (why: string) =>
    new ConnectorError({
      code: "account_setup_failed",
      message: `connection ${endpoint.connectionId}: Code Assist onboarding (tier ${tierId}) ${why}`,
      connectionId: endpoint.connectionId,
    });

  let operation = await call(`${endpoint.baseUrl}:onboardUser`, "POST", {
    tierId,
    metadata: CODE_ASSIST_METADATA,
  });
  for (let polls = 0; operation.done !== true; polls += 1) {
    if (!operation.name) throw fail("answered an unfinished operation without a name");
    if (polls >= poll.maxPolls) {
      throw fail(`was not done after ${polls} polls ${poll.intervalMs} ms apart`);
    }
    await delay(poll.intervalMs);
    operation = await call(`${endpoint.baseUrl}/${operation.name}`, "GET");
  }
  const project = projectIdOf(operation.response?.cloudaicompanionProject);
  if (project === null) throw fail("finished without a cloudaicompanionProject");
  return project;
}
