/**
 * MCP tool results ↔ the core's tool results. Every MCP content kind (text, image, audio, resource links,
 * embedded resources) has a core block of the same shape, so results pass through both ways unchanged;
 * a model that cannot take a kind reads a description (src/core/content-text.ts). Used by the MCP tool
 * adapter (a server's results in) and by the /mcp server (our results out). Pure.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentToolResult, ToolResultContent } from "../core/index.ts";

/** A remote server's result as a core result; structuredContent travels in details. */
export function toAgentToolResult(result: CallToolResult): AgentToolResult {
  const content: ToolResultContent[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image":
      case "audio":
        content.push({ type: block.type, data: block.data, mimeType: block.mimeType });
        break;
      case "resource_link":
        content.push({
          type: "resource_link",
          uri: block.uri,
          name: block.name,
          ...(block.mimeType ? { mimeType: block.mimeType } : {}),
          ...(block.description ? { description: block.description } : {}),
        });
        break;
      case "resource": {
        const r = block.resource;
        const body =
          "text" in r && typeof r.text === "string" ? { text: r.text } : "blob" in r && typeof r.blob === "string" ? { blob: r.blob } : {};
        content.push({ type: "resource", resource: { uri: r.uri, ...(r.mimeType ? { mimeType: r.mimeType } : {}), ...body } });
        break;
      }
      default:
        assertNever(block);
    }
  }
  const details: Record<string, unknown> = {};
  if (result.structuredContent !== undefined) details.structuredContent = result.structuredContent;
  if (content.length === 0 && result.structuredContent !== undefined) {
    content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  }
  return { content, details, terminate: false };
}

/**
 * A core result as an MCP result. With an output schema declared, `details` is the structured content
 * (the tool promised its shape); otherwise details are for programs and travel in _meta.
 */
export function toCallToolResult(result: AgentToolResult, isError: boolean, structured: boolean): CallToolResult {
  const content = result.content.map((b): CallToolResult["content"][number] => {
    switch (b.type) {
      case "resource": {
        const { uri, mimeType, text, blob } = b.resource;
        const meta = mimeType ? { mimeType } : {};
        return { type: "resource", resource: typeof text === "string" ? { uri, ...meta, text } : { uri, ...meta, blob: blob ?? "" } };
      }
      default:
        return { ...b };
    }
  });
  const out: CallToolResult = { content, isError };
  if (structured && !isError) out.structuredContent = result.details;
  else if (Object.keys(result.details).length > 0) out._meta = { "edge-agent/details": result.details };
  return out;
}

function assertNever(block: never): never {
  throw new Error(`Unknown MCP content block ${JSON.stringify(block)}`);
}
