import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { renderTable } from "./table";
import { stripAnsi } from "./text-width";

describe("renderTable", () => {
  it("aligns columns, right-aligns numbers and trims line ends", () => {
    const text = renderTable(
      [{ header: "rung" }, { header: "cost", align: "end" }],
      [
        ["subscription", "$0.00"],
        ["cheap", "$12.50"],
      ],
    );
    expect(text).toBe(
      [
        "rung            cost",
        "────────────  ──────",
        "subscription   $0.00",
        "cheap         $12.50",
        "",
      ].join("\n"),
    );
  });

  it("ignores colour codes when measuring widths", () => {
    const colors = pc.createColors(true);
    const text = renderTable([{ header: "a" }, { header: "b" }], [[colors.green("in"), "x"]]);
    const lines = text.split("\n");
    expect(stripAnsi(lines[2]!)).toBe("in  x");
    expect(lines[2]).not.toBe("in  x");
  });
});
