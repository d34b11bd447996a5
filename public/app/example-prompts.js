// @ts-check
/**
 * Example prompts shown on an empty conversation, one per tool the session has (and a general one), so
 * a first visitor sees what to ask. main.js shows them after loading a session with no messages and
 * hides them once anything is sent or arrives; picking one sends it like a typed message.
 */
import { el } from "./dom.js";

/** A prompt for each bundled tool the offline demo model understands too, in the order shown. */
const EXAMPLES = [
  { tool: "getTime", text: "What time is it in Lima?" },
  { tool: "getWeather", text: "What's the weather in Tokyo?" },
  { tool: "rollDice", text: "Roll 3 dice" },
  { tool: "listTools", text: "What tools do you have?" },
];
const AT_MOST = 4;

/**
 * Fills `container` with the examples that fit `tools` (the session's tool names) and shows it.
 * @param {HTMLElement} container
 * @param {readonly string[]} tools
 * @param {(text: string) => void} onPick
 */
export function showExamples(container, tools, onPick) {
  const fitting = EXAMPLES.filter((e) => tools.includes(e.tool)).slice(0, AT_MOST);
  if (fitting.length === 0) return hideExamples(container);
  const buttons = fitting.map(({ text }) => el("button", { type: "button", class: "example", text, onclick: () => onPick(text) }));
  container.replaceChildren(el("p", { class: "muted", text: "Try one:" }), ...buttons);
  container.hidden = false;
}

/** @param {HTMLElement} container */
export function hideExamples(container) {
  container.hidden = true;
  container.replaceChildren();
}
