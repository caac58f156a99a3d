import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeGeminiCodeAssist, startFakeGeminiCodeAssist } from "./index";

// The Code Assist fake's onboarding, checked as the Gemini CLI drives it (the CLI itself runs
// against this fake in apps/gateway/test/gemini-cli.test.ts); refusals in Google's shapes.

let fake: FakeGeminiCodeAssist;
let bearer: string;

beforeAll(async () => {
  fake = await startFakeGeminiCodeAssist({ setUp: false });
  bearer = fake.issueAccessToken().accessToken;
});
afterAll(() => fake.close());
beforeEach(() => fake.account.reset());

const metadata = {
  ideType: "IDE_UNSPECIFIED",
  platform: "PLATFORM_UNSPECIFIED",
  pluginType: "GEMINI",
};

/** The fields of the fake's answers these tests read. */
interface Answer {
  name?: string;
  done?: boolean;
  error?: unknown;
  currentTier?: unknown;
  allowedTiers?: unknown;
  ineligibleTiers?: unknown;
  cloudaicompanionProject?: unknown;
}

async function call(method: "GET" | "POST", path: string, body?: unknown) {
  const response = await fetch(`${fake.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer };
}

const generate = (project: unknown) =>
  call("POST", ":generateContent", {
    model: "gemini-2.5-pro",
    ...(project === undefined ? {} : { project }),
    request: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  });

describe("fake Code Assist: a login that never set Code Assist up", () => {
  it("offers tiers but no project, onboards the free tier through a polled operation, then serves", async () => {
    const load = await call("POST", ":loadCodeAssist", { metadata });
    expect(load.body.currentTier).toBeUndefined();
    expect(load.body.cloudaicompanionProject).toBeUndefined();
    expect(load.body.allowedTiers).toEqual([
      expect.objectContaining({
        id: "free-tier",
        isDefault: true,
        userDefinedCloudaicompanionProject: false,
      }),
      expect.objectContaining({ id: "standard-tier", userDefinedCloudaicompanionProject: true }),
    ]);
    expect((await generate(fake.project)).status).toBe(403);

    const started = await call("POST", ":onboardUser", { tierId: "free-tier", metadata });
    expect(started.status).toBe(200);
    // proto JSON leaves `done: false` out.
    expect(started.body).toEqual({ name: expect.stringMatching(/^operations\/\S+$/) });
    const name = String(started.body.name);
    expect((await call("GET", `/${name}`)).body).toEqual({ name });
    const done = await call("GET", `/${name}`);
    expect(done.body).toEqual({
      name,
      done: true,
      response: {
        "@type": "type.googleapis.com/google.internal.cloud.code.v1internal.OnboardUserResponse",
        cloudaicompanionProject: { id: fake.project, name: fake.project },
      },
    });

    const after = await call("POST", ":loadCodeAssist", { metadata });
    expect(after.body.currentTier).toMatchObject({ id: "free-tier" });
    expect(after.body.cloudaicompanionProject).toBe(fake.project);
    expect((await generate(fake.project)).status).toBe(200);
  });

  it("answers an onboardUser called again with the same operation, done in its turn", async () => {
    fake.account.onboardingPendingAnswers = 1;
    const first = await call("POST", ":onboardUser", { tierId: "free-tier", metadata });
    const again = await call("POST", ":onboardUser", { tierId: "free-tier", metadata });
    expect(again.body).toMatchObject({ name: first.body.name, done: true });
  });

  it("refuses what Google refuses: a project on the free tier, an unknown tier, an unknown operation", async () => {
    const withProject = await call("POST", ":onboardUser", {
      tierId: "free-tier",
      cloudaicompanionProject: "my-project",
      metadata,
    });
    expect(withProject.status).toBe(400);
    expect(withProject.body.error).toMatchObject({ code: 400, status: "FAILED_PRECONDITION" });
    const standard = await call("POST", ":onboardUser", { tierId: "standard-tier", metadata });
    expect(standard.body.error).toMatchObject({ status: "FAILED_PRECONDITION" });
    const unknown = await call("POST", ":onboardUser", { tierId: "gold-tier", metadata });
    expect(unknown.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    const lost = await call("GET", "/operations/nope");
    expect(lost.body.error).toMatchObject({ code: 404, status: "NOT_FOUND" });
    fake.account.refuseOnboarding = true;
    const refused = await call("POST", ":onboardUser", { tierId: "free-tier", metadata });
    expect(refused.body.error).toMatchObject({ code: 403, status: "PERMISSION_DENIED" });
    expect(fake.account.setUp).toBe(false);
  });

  it("lists the free tier as ineligible for a Workspace account, with only a tier needing a project", async () => {
    fake.account.freeTierEligible = false;
    const load = await call("POST", ":loadCodeAssist", { metadata });
    expect(load.body.allowedTiers).toEqual([
      expect.objectContaining({
        id: "standard-tier",
        isDefault: true,
        userDefinedCloudaicompanionProject: true,
      }),
    ]);
    expect(load.body.ineligibleTiers).toEqual([
      expect.objectContaining({ reasonCode: "DASHER_USER", tierId: "free-tier" }),
    ]);
    const free = await call("POST", ":onboardUser", { tierId: "free-tier", metadata });
    expect(free.body.error).toMatchObject({ status: "INVALID_ARGUMENT" });
  });
});

describe("fake Code Assist generation", () => {
  it("refuses a body without the project as an empty resource name, and another project as IAM", async () => {
    fake.account.setUp = true;
    const missing = await generate(undefined);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({
      code: 400,
      status: "INVALID_ARGUMENT",
      message: "Invalid project resource name projects/",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field: "name", description: "Invalid project resource name" }],
        },
      ],
    });
    const other = await generate("someone-elses-project");
    expect(other.status).toBe(403);
    expect(other.body.error).toMatchObject({
      status: "PERMISSION_DENIED",
      details: [
        expect.objectContaining({
          reason: "IAM_PERMISSION_DENIED",
          domain: "cloudaicompanion.googleapis.com",
          metadata: {
            resource: "projects/someone-elses-project/locations/global",
            permission: "cloudaicompanion.companions.generateChat",
          },
        }),
      ],
    });
    expect((await generate(fake.project)).status).toBe(200);
  });
});
