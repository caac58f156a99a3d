import type { IncomingMessage, ServerResponse } from "node:http";
import { getRequestListener } from "@hono/node-server";
import { authenticate } from "../app";
import { errorReply } from "../app/on-error";
import type { AppContext } from "../app-context";
import type { WireProtocol } from "../protocols";
import { answerCompletion } from "../routes/completions";
import { nodeClientSignal } from "./node-env";
import { writeNodeReply } from "./node-reply";
import { readNodeJsonBody } from "./request-body";

/** A Node `request` listener. */
export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => void;

/**
 * The gateway's Node listener: `POST /v1/chat/completions` and `POST /v1/messages` are answered
 * here, with no web `Request` or router in between, through the same auth, body limit, dispatch
 * and error answers as the Hono routes; every other request goes to the Hono app (`fetch`).
 */
export function createNodeListener(
  context: AppContext,
  fetch: Parameters<typeof getRequestListener>[0],
): NodeListener {
  const fallback = getRequestListener(fetch);
  const limit = context.deps.config.server.bodyLimitBytes;

  async function serve(
    protocol: WireProtocol,
    path: string,
    incoming: IncomingMessage,
    outgoing: ServerResponse,
  ): Promise<void> {
    try {
      const headers = incoming.headers;
      const client = authenticate(
        context,
        first(headers.authorization),
        first(headers["x-api-key"]),
      );
      const body = await readNodeJsonBody(incoming, limit);
      const reply = await answerCompletion(
        context,
        protocol,
        body,
        client,
        nodeClientSignal(outgoing),
      );
      writeNodeReply(outgoing, reply);
    } catch (error) {
      if (outgoing.headersSent || outgoing.destroyed) return;
      writeNodeReply(outgoing, errorReply(context.deps.logger, error, protocol));
    }
  }

  return (incoming, outgoing) => {
    const protocol = incoming.method === "POST" ? completionProtocol(incoming.url) : undefined;
    if (protocol === undefined) {
      void fallback(incoming, outgoing);
      return;
    }
    void serve(protocol, protocol === "openai" ? CHAT_PATH : MESSAGES_PATH, incoming, outgoing);
  };
}

const CHAT_PATH = "/v1/chat/completions";
const MESSAGES_PATH = "/v1/messages";

/** The completion route a request URL names exactly (query string aside), else undefined. */
function completionProtocol(url: string | undefined): WireProtocol | undefined {
  if (url === undefined) return undefined;
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  if (path === CHAT_PATH) return "openai";
  if (path === MESSAGES_PATH) return "anthropic";
  return undefined;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
