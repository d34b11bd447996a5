/**
 * The tests' one way to read the text of a message or tool result: its text blocks joined by newlines
 * (other blocks, e.g. images, are left out). Used by core, tool, session and end-to-end tests.
 */
export function textOf(message: { content?: readonly { type: string; text?: string }[] } | undefined): string {
  return (message?.content ?? [])
    .flatMap((block) => (block.type === "text" && typeof block.text === "string" ? [block.text] : []))
    .join("\n");
}
