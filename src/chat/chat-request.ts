/**
 * What a `useChat` request (DefaultChatTransport) asks of a session: its body carries the whole chat as
 * UI messages, and only the last one is new. A user message becomes the content to enqueue; an assistant
 * message whose tool parts carry approval answers becomes those decisions. Pure; called by the /chat route
 * after the body passed its zod schema. History before the last message is the session's, never the client's.
 */
import type { UserContent } from "../core/index.ts";

export type UiPart = { type: string; [key: string]: unknown };
export type UiMessage = { role: "system" | "user" | "assistant"; parts: UiPart[] };

export type ApprovalAnswer = { toolCallId: string; approve: boolean; reason?: string };

export type ChatRequest =
  | { kind: "message"; content: UserContent[] }
  /** `knownToolCallIds`: tool parts the client's message already has, which the answer only updates. */
  | { kind: "approvals"; answers: ApprovalAnswer[]; knownToolCallIds: string[] }
  | { kind: "invalid"; message: string };

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/]*={0,2})$/i;

export function readChatRequest(messages: readonly UiMessage[]): ChatRequest {
  const last = messages.at(-1);
  if (!last) return { kind: "invalid", message: "messages must not be empty" };
  if (last.role === "user") return readUserMessage(last);
  if (last.role === "assistant") {
    const answers = last.parts.flatMap((part): ApprovalAnswer[] => {
      const approval = part.approval as { approved?: unknown; reason?: unknown } | undefined;
      if (part.state !== "approval-responded" || typeof part.toolCallId !== "string" || typeof approval?.approved !== "boolean") return [];
      return [
        {
          toolCallId: part.toolCallId,
          approve: approval.approved,
          ...(typeof approval.reason === "string" ? { reason: approval.reason } : {}),
        },
      ];
    });
    const knownToolCallIds = last.parts.flatMap((p) => (typeof p.toolCallId === "string" ? [p.toolCallId] : []));
    if (answers.length > 0) return { kind: "approvals", answers, knownToolCallIds };
  }
  return { kind: "invalid", message: "the last message must be a user message, or an assistant message answering tool approvals" };
}

function readUserMessage(message: UiMessage): ChatRequest {
  const content: UserContent[] = [];
  for (const part of message.parts) {
    if (part.type === "text" && typeof part.text === "string") {
      if (part.text !== "") content.push({ type: "text", text: part.text });
    } else if (part.type === "file" && typeof part.url === "string") {
      const image = DATA_URL.exec(part.url);
      if (!image) return { kind: "invalid", message: "file parts must be images given as base64 data: URLs" };
      content.push({ type: "image", mimeType: image[1]!, data: image[2]! });
    }
    // Other parts (step markers, data parts, sources) carry nothing for the model.
  }
  if (content.length === 0) return { kind: "invalid", message: "the last user message has no text or image" };
  return { kind: "message", content };
}
