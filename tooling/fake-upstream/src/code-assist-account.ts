import { randomBytes } from "node:crypto";
import { type JsonReply, rpcReply } from "./google-rpc";

/** A Code Assist tier as `:loadCodeAssist` lists it (`GeminiUserTier`). */
interface Tier {
  id: string;
  name: string;
  description: string;
  /** True when the user must name a Google Cloud project of their own for this tier. */
  userDefinedCloudaicompanionProject: boolean;
  isDefault?: boolean;
}

const FREE_TIER: Tier = {
  id: "free-tier",
  name: "Gemini Code Assist for individuals",
  description: "A managed project, no Google Cloud setup.",
  userDefinedCloudaicompanionProject: false,
};

const STANDARD_TIER: Tier = {
  id: "standard-tier",
  name: "Gemini Code Assist",
  description: "A licence on a Google Cloud project of your own.",
  userDefinedCloudaicompanionProject: true,
};

/** The type URL of the onboarding operation's result, as Google writes it. */
const ONBOARD_RESPONSE_TYPE =
  "type.googleapis.com/google.internal.cloud.code.v1internal.OnboardUserResponse";

/** An onboarding operation: the tier it sets up, answers left before done. */
interface Operation {
  tierId: string;
  pendingLeft: number;
  done: boolean;
}

/** Options of {@link createCodeAssistAccount}. */
interface CodeAssistAccountOptions {
  /** False for a login that never set Code Assist up; default true. */
  setUp?: boolean;
  /** The project the account has (or gets from onboarding). */
  project: string;
}

/** One Google account's Code Assist state, as `:loadCodeAssist` and `:onboardUser` show it. */
export interface CodeAssistAccount {
  /** Whether Code Assist is set up: a tier and a project. */
  setUp: boolean;
  /** The account's project once set up (a managed one for the free tier). */
  project: string;
  /** `currentTier.id` once set up: `standard-tier` for an account set up before, else the onboarded tier. */
  tierId: string;
  /** False: the free tier is listed in `ineligibleTiers` (a Workspace account) and not offered. */
  freeTierEligible: boolean;
  /**
   * Answers about an onboarding operation that are not done: `:onboardUser` itself, then each
   * poll, until one answers done. 0 = onboardUser answers done at once; Infinity = never done.
   * Default 2.
   */
  onboardingPendingAnswers: number;
  /** True: `:onboardUser` answers 403 `PERMISSION_DENIED`. */
  refuseOnboarding: boolean;
  /** Back to how it started (set up or not, defaults above), every operation forgotten. */
  reset(): void;
  /** The `:loadCodeAssist` answer. */
  loadCodeAssist(): Record<string, unknown>;
  /** `POST :onboardUser` with its JSON body: a long-running operation, or a refusal. */
  onboardUser(body: Record<string, unknown>): JsonReply;
  /** `GET {base}/operations/…`: the operation's state now. */
  operation(name: string): JsonReply;
  /**
   * Why a generation naming `project` is refused, or null when it may go ahead: no project is
   * 400 `INVALID_ARGUMENT` (an empty resource name), a project not the account's is 403
   * `IAM_PERMISSION_DENIED`, both with the details Google sends.
   */
  generationRefusal(project: unknown): JsonReply | null;
}

/**
 * A Code Assist account for the fake. Set up: `:loadCodeAssist` names its `currentTier` and
 * `cloudaicompanionProject`. Never set up: no current tier and no project, only `allowedTiers`
 * (free tier as the default, standard tier needing the user's own project; the free tier moves
 * to `ineligibleTiers` when `freeTierEligible` is false). `:onboardUser` with an allowed tier
 * starts an operation (`{name}`, `done` omitted while false, as proto JSON does) that answers
 * done with `response.cloudaicompanionProject {id, name}` after `onboardingPendingAnswers`,
 * whether it is polled by `GET {base}/operations/…` or by calling `:onboardUser` again. A free
 * tier request naming a project is refused `FAILED_PRECONDITION`, as Google does; so is a tier
 * that needs the user's project without one (Google's exact wording there is not known).
 */
export function createCodeAssistAccount(options: CodeAssistAccountOptions): CodeAssistAccount {
  const operations = new Map<string, Operation>();

  const allowedTiers = (): Tier[] =>
    account.freeTierEligible
      ? [{ ...FREE_TIER, isDefault: true }, STANDARD_TIER]
      : [{ ...STANDARD_TIER, isDefault: true }];

  const operationState = (name: string, op: Operation): JsonReply => {
    if (!op.done && op.pendingLeft > 0) {
      op.pendingLeft -= 1;
      return { status: 200, body: { name } };
    }
    if (!op.done) {
      op.done = true;
      account.setUp = true;
      account.tierId = op.tierId;
    }
    return {
      status: 200,
      body: {
        name,
        done: true,
        response: {
          "@type": ONBOARD_RESPONSE_TYPE,
          cloudaicompanionProject: { id: account.project, name: account.project },
        },
      },
    };
  };

  const account: CodeAssistAccount = {
    setUp: options.setUp ?? true,
    project: options.project,
    tierId: STANDARD_TIER.id,
    freeTierEligible: true,
    onboardingPendingAnswers: 2,
    refuseOnboarding: false,
    reset() {
      operations.clear();
      account.setUp = options.setUp ?? true;
      account.tierId = STANDARD_TIER.id;
      account.freeTierEligible = true;
      account.onboardingPendingAnswers = 2;
      account.refuseOnboarding = false;
    },
    loadCodeAssist() {
      if (account.setUp) {
        const current = account.tierId === FREE_TIER.id ? FREE_TIER : STANDARD_TIER;
        return {
          currentTier: { id: current.id, name: current.name, description: current.description },
          allowedTiers: allowedTiers(),
          cloudaicompanionProject: account.project,
        };
      }
      return {
        allowedTiers: allowedTiers(),
        ...(account.freeTierEligible
          ? {}
          : {
              ineligibleTiers: [
                {
                  reasonCode: "DASHER_USER",
                  reasonMessage:
                    "Your account is managed by an organisation: Gemini Code Assist for individuals is not available to it.",
                  tierId: FREE_TIER.id,
                  tierName: FREE_TIER.name,
                },
              ],
            }),
      };
    },
    onboardUser(body) {
      if (account.refuseOnboarding) {
        return rpcReply(403, "PERMISSION_DENIED", "The caller does not have permission");
      }
      const tier = allowedTiers().find((candidate) => candidate.id === body.tierId);
      if (!tier) return rpcReply(400, "INVALID_ARGUMENT", "Request contains an invalid argument.");
      const project = body.cloudaicompanionProject;
      const named = typeof project === "string" && project !== "";
      if (named !== tier.userDefinedCloudaicompanionProject) {
        return rpcReply(400, "FAILED_PRECONDITION", "Precondition check failed.");
      }
      // A client that polls by calling onboardUser again sees the operation it started.
      const pending = [...operations].find(([, op]) => !op.done && op.tierId === tier.id);
      if (pending) return operationState(pending[0], pending[1]);
      const name = `operations/${randomBytes(9).toString("base64url")}`;
      const op: Operation = {
        tierId: tier.id,
        pendingLeft: account.setUp ? 0 : account.onboardingPendingAnswers,
        done: false,
      };
      operations.set(name, op);
      return operationState(name, op);
    },
    operation(name) {
      const op = operations.get(name);
      if (!op) return rpcReply(404, "NOT_FOUND", "Requested entity was not found.");
      return operationState(name, op);
    },
    generationRefusal(project) {
      if (typeof project !== "string" || project === "") {
        return rpcReply(400, "INVALID_ARGUMENT", "Invalid project resource name projects/", [
          {
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            fieldViolations: [{ field: "name", description: "Invalid project resource name" }],
          },
        ]);
      }
      if (account.setUp && project === account.project) return null;
      const resource = `projects/${project}/locations/global`;
      const permission = "cloudaicompanion.companions.generateChat";
      return rpcReply(
        403,
        "PERMISSION_DENIED",
        `Permission '${permission}' denied on resource '//cloudaicompanion.googleapis.com/${resource}' (or it may not exist).`,
        [
          {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            reason: "IAM_PERMISSION_DENIED",
            domain: "cloudaicompanion.googleapis.com",
            metadata: { resource, permission },
          },
        ],
      );
    },
  };
  return account;
}
