/**
 * Tool result blocks a Chat Completions model cannot take (audio, resource links, embedded resources, and
 * images in a tool message) described in text, and each block's size for the result limit. Called by
 * format-messages (what the model reads), the context budget and limitToolResult. Pure.
 */
import type { ToolResultContent } from "./types.ts";

/** The text a model reads for a block: text as is, an embedded text resource's text, others named. */
export function describeContentBlock(block: ToolResultContent): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      return `[image: ${block.mimeType}]`;
    case "audio":
      return `[audio: ${block.mimeType}, ${block.data.length} characters of base64 data]`;
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.mimeType ? ` (${block.mimeType})` : ""}${block.description ? ` — ${block.description}` : ""}]`;
    case "resource": {
      const r = block.resource;
      if (typeof r.text === "string") return `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}`;
      return `[resource ${r.uri}: ${r.mimeType ?? "binary"}, ${r.blob?.length ?? 0} characters of base64 data]`;
    }
    default: {
      const unknown: never = block;
      return JSON.stringify(unknown) ?? "";
    }
  }
}

/** Characters a block weighs against the result limit: its text or data. */
export function contentBlockSize(block: ToolResultContent): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "image":
    case "audio":
      return block.data.length;
    case "resource_link":
      return block.uri.length + block.name.length + (block.description?.length ?? 0);
    case "resource":
      return block.resource.uri.length + (block.resource.text?.length ?? 0) + (block.resource.blob?.length ?? 0);
    default: {
      const unknown: never = block;
      return JSON.stringify(unknown)?.length ?? 0;
    }
  }
}
