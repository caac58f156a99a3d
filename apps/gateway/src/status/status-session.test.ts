import { describe, expect, it } from "vitest";
import { cookieValue, createStatusSessions, STATUS_COOKIE, sessionCookie } from "./status-session";

const keys = [
  { id: "ops", key: "pf-ops-secret-key-1", connections: null, role: "admin" as const },
  { id: "ci", key: "pf-ci-secret-key-2", connections: new Set(["plan"]), role: "client" as const },
];

describe("status page sessions", () => {
  it("accept the token of each configured key, never the key itself, and name the key's identity", () => {
    const sessions = createStatusSessions(keys);
    const token = sessions.tokenOf("pf-ci-secret-key-2");
    expect(token).not.toContain("pf-ci");
    expect(sessions.verifyCookie(`a=b; ${STATUS_COOKIE}=${token}`)).toMatchObject({
      id: "ci",
      role: "client",
    });
    const ops = sessions.tokenOf("pf-ops-secret-key-1");
    expect(sessions.verifyCookie(`${STATUS_COOKIE}=${ops}`)?.role).toBe("admin");
    expect(sessions.verifyCookie(`${STATUS_COOKIE}=pf-ci-secret-key-2`)).toBeNull();
    expect(sessions.verifyCookie(`${STATUS_COOKIE}=${sessions.tokenOf("pf-other")}`)).toBeNull();
    expect(sessions.verifyCookie(undefined)).toBeNull();
  });

  it("survive a restart: the same key gives the same token", () => {
    expect(createStatusSessions(keys).tokenOf("pf-ops-secret-key-1")).toBe(
      createStatusSessions(keys).tokenOf("pf-ops-secret-key-1"),
    );
  });

  it("set an HttpOnly, SameSite=Strict cookie", () => {
    const cookie = sessionCookie("ab", false);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).not.toContain("Secure");
    expect(sessionCookie("ab", true)).toContain("; Secure");
    expect(cookieValue("x=1; planfirst_status=ab", STATUS_COOKIE)).toBe("ab");
  });
});
