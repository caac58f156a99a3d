import { describe, expect, it } from "vitest";
import { TemplateError } from "./template-error";
import { windowLabel } from "./window-label";

describe("windowLabel", () => {
  it("names the windows providers use by their length", () => {
    expect(windowLabel(18_000)).toBe("5h");
    expect(windowLabel(604_800)).toBe("7d");
    expect(windowLabel(120)).toBe("2m");
    expect(windowLabel(90)).toBe("90s");
  });

  it("refuses a length that is not a positive whole number, naming the argument", () => {
    for (const bad of [0, -60, 1.5, Number.NaN]) {
      let thrown: unknown;
      try {
        windowLabel(bad);
      } catch (error) {
        thrown = error;
      }
      expect(TemplateError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: "invalid_argument", path: "windowSeconds" });
    }
  });
});
