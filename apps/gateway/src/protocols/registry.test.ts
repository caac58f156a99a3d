import { describe, expect, it } from "vitest";
import {
  CLIENT_PROTOCOL_NAMES,
  CODECS,
  CONFIG_PROTOCOL_NAMES,
  configNameOf,
  PROTOCOL_NAMES,
  protocolOfConfig,
} from "./registry";

const HELLO: Record<string, Record<string, unknown>> = {
  "openai-chat": { model: "m", messages: [{ role: "user", content: "hi" }] },
  "anthropic-messages": {
    model: "m",
    max_tokens: 8,
    messages: [{ role: "user", content: "hi" }],
  },
  "openai-responses": { model: "m", input: "hi" },
};

describe("the codec registry", () => {
  it("names each codec by its key, and each config name once", () => {
    for (const name of PROTOCOL_NAMES) expect(CODECS[name].protocol).toBe(name);
    expect(new Set(CONFIG_PROTOCOL_NAMES).size).toBe(PROTOCOL_NAMES.length);
  });

  it("keeps the config's public protocol values, each naming its codec", () => {
    // A new codec adds its own config name after these.
    expect(CONFIG_PROTOCOL_NAMES.slice(0, 4)).toEqual([
      "anthropic",
      "openai",
      "openai-responses",
      "gemini",
    ]);
    expect(protocolOfConfig("openai")).toBe("openai-chat");
    expect(protocolOfConfig("anthropic")).toBe("anthropic-messages");
    for (const name of PROTOCOL_NAMES) expect(protocolOfConfig(configNameOf(name))).toBe(name);
  });

  it("serves clients on the protocols whose codec has a client half", () => {
    expect(CLIENT_PROTOCOL_NAMES).toEqual([
      "anthropic-messages",
      "openai-chat",
      "openai-responses",
    ]);
    expect(CODECS.gemini.client).toBeNull();
  });

  it.each(CLIENT_PROTOCOL_NAMES)(
    "%s: a decoded client request names the protocol it came in",
    (name) => {
      expect(CODECS[name].decodeRequest(HELLO[name]).source).toBe(name);
    },
  );
});
