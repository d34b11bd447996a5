// @ts-check
/**
 * The conversations panel, for a signed-in user (README "Users"): their sessions, most recently active
 * first, each a button that opens it and a Delete button. Shown only when the page holds a user's token
 * and the Worker has sign-in configured; main.js fills it from GET /v1/sessions and passes the handlers.
 */
import { el } from "./dom.js";

/** @import { SessionListing } from "../client.js" */

/**
 * @param {HTMLElement} container
 * @param {SessionListing[]} sessions
 * @param {string | undefined} currentId
 * @param {{ onOpen: (id: string) => unknown; onDelete: (id: string) => Promise<unknown> }} handlers
 */
export function renderConversations(container, sessions, currentId, handlers) {
  if (sessions.length === 0) {
    container.replaceChildren(el("p", { class: "muted", text: "No conversations yet." }));
    return;
  }
  const items = sessions.map((listing) => {
    const title = listing.title ?? "New conversation";
    const when = new Date(listing.lastActiveAt);
    const open = el("button", {
      type: "button",
      class: "conversation-open",
      "aria-current": listing.id === currentId ? "true" : undefined,
      text: title,
    });
    open.addEventListener("click", () => void handlers.onOpen(listing.id));
    const remove = el("button", { type: "button", class: "small", "aria-label": `Delete conversation ${title}`, text: "Delete" });
    remove.addEventListener("click", async () => {
      remove.disabled = true;
      try {
        await handlers.onDelete(listing.id);
      } finally {
        remove.disabled = false;
      }
    });
    return el(
      "li",
      { class: "conversation-entry", dataset: { sessionId: listing.id, status: listing.status } },
      open,
      el("time", { class: "muted", datetime: when.toISOString(), title: when.toISOString(), text: when.toLocaleString() }),
      remove,
    );
  });
  container.replaceChildren(el("ul", { class: "conversation-list" }, items));
}
