import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { budgetOf, chat, status, useReloadBed } from "./config-reload-helpers";
import type { ConnectionInput } from "./fixtures";
import { chatBody, post, waitFor } from "./harness";

// Reloading the config with requests in flight: a stream finishes on the config it started on,
// a connection's maxConcurrent still counts it, and the status page's event streams end.

const { bed, extraConnection, withConnections, startFromFile } = useReloadBed();

describe("config reload", () => {
  it("lets a stream in flight finish unharmed on the config it started on (openai SDK)", async () => {
    const harness = await startFromFile();
    const chunks = ["one ", "two ", "three ", "four ", "five ", "six"];
    bed.fakes.router.script([{ stream: { chunks, chunkDelayMs: 150 } }]);
    const openai = new OpenAI({ baseURL: `${harness.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const { data: stream, response } = await openai.chat.completions
      .create({
        model: "qwen/qwen3-coder",
        messages: [{ role: "user", content: "count to six" }],
        stream: true,
      })
      .withResponse();
    expect(response.headers.get("x-planfirst-connection")).toBe("openrouter");
    let text = "";
    let finishReason: string | null = null;
    let ended = false;
    let firstChunk: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      firstChunk = resolve;
    });
    const reading = (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
        if (text !== "") firstChunk();
      }
      ended = true;
    })();
    await started;

    // The file now removes the very connection that is streaming.
    harness.writeConfig(
      withConnections((connections) => connections.filter((c) => c.id !== "openrouter")),
    );
    const outcome = await harness.server.reload();
    expect(outcome).toMatchObject({ reloaded: true, connections: { removed: ["openrouter"] } });
    expect(ended).toBe(false);
    const drained = () => harness.logs.some((line) => line.includes("generation drained"));
    expect(drained()).toBe(false);

    await reading;
    expect(text).toBe(chunks.join(""));
    expect(finishReason).toBe("stop");
    // The old configuration is let go once its last request, this stream, has closed.
    await waitFor(drained, { what: "the first configuration to drain" });
    expect((await chat(harness, "qwen/qwen3-coder")).status).toBe(404);
    // Its spend is settled through the old configuration's ledger into the shared store.
    await waitFor(async () => budgetOf(await status(harness), "cheap").spentUsd > 0, {
      what: "the settle of the stream",
    });
  });

  it("keeps a limited connection's requests in flight across a reload: its maxConcurrent still counts them", async () => {
    const limited = (connections: ConnectionInput[]) =>
      connections.map((c) =>
        c.id === "openrouter" ? { ...c, maxConcurrent: 1, maxQueueWaitMs: 0 } : c,
      );
    const harness = await startFromFile(withConnections(limited));
    let release: () => void = () => undefined;
    const holdUntil = new Promise<void>((resolve) => {
      release = resolve;
    });
    bed.fakes.router.script([{ stream: { chunks: ["held", " stream"], holdUntil } }, {}]);
    const held = await post(harness.url, "/v1/chat/completions", {
      ...chatBody("qwen/qwen3-coder"),
      stream: true,
    });
    expect(held.status).toBe(200);

    harness.writeConfig(
      withConnections(limited, { subscriptionLadder: { rungBudgetUsd: { cheap: 6 } } }),
    );
    expect(await harness.server.reload()).toMatchObject({ reloaded: true });
    // The stream still holds the one slot: the new configuration's request is refused at once
    // (no wait in line is configured) instead of making it two in flight.
    const second = await chat(harness, "qwen/qwen3-coder");
    expect(second.status).toBe(503);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe(
      "local_capacity",
    );
    expect(bed.fakes.router.completionHits()).toHaveLength(1);

    release();
    expect(await held.text()).toContain("held");
    await waitFor(async () => (await chat(harness, "qwen/qwen3-coder")).status === 200, {
      what: "the slot to come back",
    });
  });

  it("ends the status page's event streams, so open pages reconnect to the new config", async () => {
    const harness = await startFromFile();
    const events = await fetch(`${harness.url}/v1/status/events`);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("event: status")) seen += (await reader.read()).value ?? "";
    expect(seen).not.toContain("extra");

    harness.writeConfig(withConnections((connections) => [...connections, extraConnection()]));
    expect((await harness.server.reload()).reloaded).toBe(true);

    // The stream ends (no more reads pending); a new one shows the added connection.
    for (;;) if ((await reader.read()).done) break;
    const again = await fetch(`${harness.url}/v1/status/events`);
    const next = again.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("event: status")) text += (await next.read()).value ?? "";
    expect(text).toContain("extra");
    await next.cancel();
  });
});
