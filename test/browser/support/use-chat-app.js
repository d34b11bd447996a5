// A user's React chat app on @ai-sdk/react's useChat, as docs/integrations.md shows it (resume: true, and
// stop() that also aborts the run), bundled by use-chat-page.ts with esbuild and served from another
// origin than the Worker. Plain JS (React ships no types here). The page's state is in data- attributes.
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport } from "ai";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

const params = new URLSearchParams(location.search);
const WORKER = params.get("worker");
const sessionId = params.get("session");
const sessionKey = params.get("key");
const auth = { Authorization: `Bearer ${sessionKey}` };
window.notices = [];

function Chat() {
  const { messages, sendMessage, stop, status, error } = useChat({
    id: sessionId,
    resume: true,
    transport: new DefaultChatTransport({ api: `${WORKER}/v1/sessions/${sessionId}/chat`, headers: auth }),
    onData: (part) => window.notices.push(part),
  });
  const [input, setInput] = useState("");
  const stopRun = () => {
    void stop();
    void fetch(`${WORKER}/v1/sessions/${sessionId}/abort`, { method: "POST", headers: auth });
  };
  return h(
    "main",
    { id: "chat", "data-status": status },
    messages.map((m) =>
      h(
        "div",
        { key: m.id, className: `msg ${m.role}` },
        m.parts
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join(""),
      ),
    ),
    error ? h("p", { id: "error" }, `Error: ${error.message}`) : null,
    h(
      "form",
      {
        onSubmit: (e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        },
      },
      h("input", { id: "input", value: input, onChange: (e) => setInput(e.target.value) }),
      h("button", { id: "send", type: "submit" }, "Send"),
      h("button", { id: "stop", type: "button", onClick: stopRun }, "Stop"),
    ),
  );
}

createRoot(document.getElementById("root")).render(h(Chat));
