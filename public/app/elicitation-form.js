// @ts-check
/**
 * An MCP server's question (event mcpElicitation) as a form: the requested schema is a flat object of
 * string, number, integer, boolean and enum fields (what MCP allows), each shown as its input, with the
 * schema's defaults filled in. Submit answers accept with the values; Decline and Cancel answer so. The
 * server's 400 (a field that breaks the schema) is shown under the form, which stays open. Used by chat-view.js.
 */
import { el } from "./dom.js";

/**
 * @typedef {{ type?: string; title?: string; description?: string; enum?: unknown[]; oneOf?: { const: unknown; title?: string }[]; default?: unknown }} FieldSchema
 * @typedef {{ elicitationId: string; server: string; message: string; requestedSchema: Record<string, unknown> }} Elicitation
 * @typedef {(action: "accept" | "decline" | "cancel", content?: Record<string, unknown>) => Promise<unknown>} Answer
 */

/**
 * @param {Elicitation} elicitation
 * @param {Answer} answer
 * @returns {HTMLElement}
 */
export function elicitationForm(elicitation, answer) {
  const properties = /** @type {Record<string, FieldSchema>} */ (elicitation.requestedSchema.properties ?? {});
  const required = new Set(/** @type {string[]} */ (elicitation.requestedSchema.required ?? []));
  /** @type {Map<string, () => unknown>} */
  const readers = new Map();
  const fields = Object.entries(properties).map(([name, schema]) => {
    const { input, read } = inputFor(name, schema);
    readers.set(name, read);
    return el(
      "label",
      { class: "elicitation-field" },
      el("span", { text: `${schema.title ?? name}${required.has(name) ? " *" : ""}` }),
      input,
      schema.description ? el("small", { text: schema.description }) : null,
    );
  });
  const status = el("p", { class: "elicitation-status", role: "status" });
  const form = el("form", { class: "elicitation", "aria-label": `Question from ${elicitation.server}` });
  /** @param {"accept" | "decline" | "cancel"} action */
  const send = async (action) => {
    /** @type {Record<string, unknown>} */
    const content = {};
    if (action === "accept") {
      for (const [name, read] of readers) {
        const value = read();
        if (value !== undefined) content[name] = value;
      }
    }
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    try {
      await answer(action, action === "accept" ? content : undefined);
      form.replaceChildren(el("p", { class: "elicitation-done", text: action === "accept" ? "Answer sent." : `You answered ${action}.` }));
    } catch (err) {
      status.textContent = err instanceof Error ? err.message : String(err);
      for (const button of form.querySelectorAll("button")) button.disabled = false;
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void send("accept");
  });
  form.append(
    el("p", { class: "elicitation-message" }, el("strong", { text: `${elicitation.server} asks: ` }), elicitation.message),
    ...fields,
    el(
      "div",
      { class: "elicitation-actions" },
      el("button", { type: "submit", text: "Submit" }),
      el("button", { type: "button", text: "Decline", onclick: () => void send("decline") }),
      el("button", { type: "button", text: "Cancel", onclick: () => void send("cancel") }),
    ),
    status,
  );
  return form;
}

/**
 * One field's input and how to read its value (undefined: left empty, so the field is left out).
 * @param {string} name
 * @param {FieldSchema} schema
 * @returns {{ input: HTMLElement; read: () => unknown }}
 */
function inputFor(name, schema) {
  const choices =
    schema.oneOf?.map((o) => ({ value: o.const, label: o.title ?? String(o.const) })) ??
    schema.enum?.map((v) => ({ value: v, label: String(v) }));
  if (choices) {
    const select = el(
      "select",
      { name },
      el("option", { value: "", text: "—" }),
      ...choices.map((c, i) => el("option", { value: String(i), text: c.label, selected: c.value === schema.default })),
    );
    return { input: select, read: () => (select.value === "" ? undefined : choices[Number(select.value)]?.value) };
  }
  if (schema.type === "boolean") {
    const box = el("input", { type: "checkbox", name, checked: schema.default === true });
    return { input: box, read: () => box.checked };
  }
  if (schema.type === "number" || schema.type === "integer") {
    const num = el("input", {
      type: "number",
      name,
      step: schema.type === "integer" ? "1" : "any",
      value: typeof schema.default === "number" ? String(schema.default) : undefined,
    });
    return { input: num, read: () => (num.value === "" ? undefined : Number(num.value)) };
  }
  const text = el("input", { type: "text", name, value: typeof schema.default === "string" ? schema.default : undefined });
  return { input: text, read: () => (text.value === "" ? undefined : text.value) };
}
