import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlanAllowances } from "./plan-allowance";
import { readTrace } from "./read-trace";
import { simulate } from "./simulation";
import { fixtureSetup, SIMULATE_FIXTURES } from "./simulation-test-support";
import { renderSvgChart } from "./svg-chart";

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * A strict little XML reader for the chart: every tag must close in order, attributes must be
 * quoted, and only the five predefined entities may appear. Throws on anything else.
 */
function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: "#root", attributes: {}, children: [], text: "" };
  const stack = [root];
  const token = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let match: RegExpExecArray | null;
  let position = 0;
  while (position < source.length) {
    token.lastIndex = position;
    match = token.exec(source);
    if (!match)
      throw new Error(`not well-formed at ${position}: ${source.slice(position, position + 40)}`);
    position = token.lastIndex;
    const [, closing, name, attributeText, selfClosing, text] = match;
    const top = stack[stack.length - 1]!;
    if (text !== undefined) {
      if (/&(?!amp;|lt;|gt;|quot;|apos;)/.test(text)) throw new Error("bad entity");
      top.text += text;
      continue;
    }
    if (closing) {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([\w:-]+)="([^"]*)"/g)) {
      if (key! in attributes) throw new Error(`duplicate attribute ${key}`);
      attributes[key!] = value!;
    }
    const element: XmlElement = { name: name!, attributes, children: [], text: "" };
    top.children.push(element);
    if (!selfClosing) stack.push(element);
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]!.name}>`);
  if (root.children.length !== 1) throw new Error("one root element expected");
  return root.children[0]!;
}

function all(element: XmlElement): XmlElement[] {
  return [element, ...element.children.flatMap(all)];
}

const byClass = (root: XmlElement, name: string) =>
  all(root).filter((element) => (element.attributes.class ?? "").split(" ").includes(name));

describe("renderSvgChart", () => {
  it("draws the requests per rung, the window's remaining line and its reset, with title, axes and legend", async () => {
    const { config, table } = fixtureSetup("claude");
    const trace = await readTrace([
      join(
        SIMULATE_FIXTURES,
        "claude/projects/-home-dev-shop/5f0c2a7e-1111-4c2b-9d1e-0a0b0c0d0e0f.jsonl",
      ),
    ]);
    const parsed = parsePlanAllowances("claude-max=1.35usd/5h");
    if (!parsed.ok) throw new Error("bad plan");
    const result = await simulate({
      config,
      table,
      trace,
      ids: ["auto/thrifty"],
      allowances: parsed.allowances,
      scenarios: [{ label: "config" }],
      bucketMs: 3_600_000,
    });
    const replay = result.scenarios[0]!.replays[0]!;
    const svg = parseXml(renderSvgChart(replay, "auto/thrifty <test> & chart"));

    expect(svg.name).toBe("svg");
    expect(svg.attributes.xmlns).toBe("http://www.w3.org/2000/svg");
    expect(svg.children.find((child) => child.name === "title")?.text).toBe(
      "auto/thrifty &lt;test&gt; &amp; chart",
    );
    expect(byClass(svg, "x-axis")).toHaveLength(1);
    expect(byClass(svg, "y-axis")).toHaveLength(1);
    expect(byClass(svg, "y2-axis")).toHaveLength(1);

    // Hourly bars from 09:00 to 14:00: 09:00 holds 3 plan + 2 cheap requests, 14:00 one plan.
    const bars = byClass(svg, "bar");
    const sum = (name: string) => byClass(svg, name).length;
    expect(sum("rung-subscription")).toBe(2);
    expect(sum("rung-cheap")).toBe(1);
    expect(bars).toHaveLength(3);
    const height = (element: XmlElement) => Number(element.attributes.height);
    const [planFirst, cheap, planLater] = [
      byClass(svg, "rung-subscription")[0]!,
      byClass(svg, "rung-cheap")[0]!,
      byClass(svg, "rung-subscription")[1]!,
    ];
    // Heights are proportional to the counts: 3 : 2 : 1.
    expect(height(planFirst) / height(planLater)).toBeCloseTo(3, 1);
    expect(height(cheap) / height(planLater)).toBeCloseTo(2, 1);

    const lines = byClass(svg, "remaining");
    expect(lines.map((line) => line.attributes["data-window"])).toEqual(["claude-max 5h"]);
    // Start at 100 %, one point per bucket end: 0 % (09:00–14:00, exhausted) then back up after the reset.
    const points = lines[0]!.attributes
      .points!.split(" ")
      .map((point) => Number(point.split(",")[1]));
    expect(points).toHaveLength(1 + 6);
    const top = Math.min(...points);
    const bottom = Math.max(...points);
    // 100 % at the start; 0 % at the ends of 09:00–13:00 (exhausted at 09:20, resets at 14:00);
    // 66.7 % after the 14:30 request took $0.45 of the fresh $1.35.
    expect(points.slice(0, 5)).toEqual([top, bottom, bottom, bottom, bottom]);
    expect((bottom - points[6]!) / (bottom - top)).toBeCloseTo(2 / 3, 2);
    expect(byClass(svg, "reset")).toHaveLength(1);

    const legend = byClass(svg, "legend-item").map(
      (item) => item.children.find((child) => child.name === "text")?.text,
    );
    expect(legend).toEqual(["subscription", "cheap", "claude-max 5h remaining", "reset"]);
  });
});
