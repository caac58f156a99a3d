import { describe, expect, it } from "vitest";
import { shouldUseColor } from "./context";

describe("shouldUseColor", () => {
  it("colours only a terminal", () => {
    expect(shouldUseColor({ stdout: { write: () => true, isTTY: true }, env: {} })).toBe(true);
    expect(shouldUseColor({ stdout: { write: () => true }, env: {} })).toBe(false);
  });

  it("NO_COLOR turns colour off when set to anything but the empty string", () => {
    const tty = { write: () => true, isTTY: true };
    expect(shouldUseColor({ stdout: tty, env: { NO_COLOR: "1" } })).toBe(false);
    expect(shouldUseColor({ stdout: tty, env: { NO_COLOR: "" } })).toBe(true);
  });
});
