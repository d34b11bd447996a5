/**
 * The core's unions as their readers see them once the host features have merged theirs in: every event
 * name clients depend on, each host event's fields, the tool capabilities with the context fields they
 * grant, and an exhaustive switch that misses a host event failing to compile. tsc does the checking
 * (npx tsc --noEmit); the tests only run the few lines around it.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type { CoreEvents, HostEvents, ToolCapabilities, ToolCapability, ToolExecutionContext, UserMessage } from "../../src/core/index.ts";
import type { AgentEvent, AgentEventType, StampedEvent, WireEventType } from "../../src/wire/events.ts";

type HostEventType = "mcpElicitation" | "mcpAuthRequired" | "mcpToolsChanged" | "scheduleFired" | "scheduleRefused" | "modelFallback";

describe("the merged event union", () => {
  it("carries the core's events and every host feature's, by the names on the wire", () => {
    expectTypeOf<keyof HostEvents>().toEqualTypeOf<HostEventType>();
    expectTypeOf<AgentEventType>().toEqualTypeOf<
      | "runStart"
      | "messageStart"
      | "messageDelta"
      | "messageEnd"
      | "toolExecStart"
      | "toolExecUpdate"
      | "toolExecEnd"
      | "toolApprovalRequired"
      | "runEnd"
      | "llmRetry"
      | "error"
      | "contextTrimmed"
      | "contextCompacted"
      | "messageAbandoned"
      | "budgetExceeded"
      | "guardrailTripped"
      | HostEventType
    >();
    expectTypeOf<WireEventType>().toEqualTypeOf<AgentEventType | "eventsDropped">();
  });

  it("keeps each host event's fields as the wire carries them", () => {
    expectTypeOf<Extract<AgentEvent, { type: "scheduleFired" }>>().toEqualTypeOf<{
      type: "scheduleFired";
      scheduleId: string;
      messageId: string;
    }>();
    expectTypeOf<Extract<AgentEvent, { type: "mcpElicitation" }>>().toEqualTypeOf<{
      type: "mcpElicitation";
      elicitationId: string;
      server: string;
      message: string;
      requestedSchema: Record<string, unknown>;
    }>();
    expectTypeOf<Extract<AgentEvent, { type: "mcpAuthRequired" }>>().toEqualTypeOf<{
      type: "mcpAuthRequired";
      server: string;
      authorizationUrl: string;
    }>();
    expectTypeOf<Extract<AgentEvent, { type: "mcpToolsChanged" }>>().toEqualTypeOf<{
      type: "mcpToolsChanged";
      server: string;
      added: string[];
      removed: string[];
      changed: string[];
    }>();
    expectTypeOf<Extract<StampedEvent, { type: "scheduleFired" }>>().toHaveProperty("seq");
    expectTypeOf<UserMessage>().toHaveProperty("scheduleId").toEqualTypeOf<string | undefined>();
  });

  it("makes a switch that misses a host event a type error", () => {
    const hostOnly = (event: Exclude<AgentEvent, { type: keyof CoreEvents }>): string => {
      switch (event.type) {
        case "mcpElicitation":
        case "mcpAuthRequired":
        case "mcpToolsChanged":
          return event.server;
        default:
          // @ts-expect-error scheduleFired has no case above: the merged union keeps the switch honest.
          return event satisfies never;
      }
    };
    expect(hostOnly({ type: "mcpAuthRequired", server: "docs", authorizationUrl: "https://auth.example/authorize" })).toBe("docs");
  });
});

describe("the merged tool capabilities", () => {
  it("names the core's and every host feature's, each granting fields of the tool's context", () => {
    expectTypeOf<ToolCapability>().toEqualTypeOf<"registerDraft" | "toolCalls" | "subAgent" | "schedules" | "memory">();
    expectTypeOf<ToolExecutionContext>().toHaveProperty("memory");
    expectTypeOf<ToolCapabilities[ToolCapability]>().toExtend<keyof ToolExecutionContext>();
    expectTypeOf<ToolExecutionContext>().toHaveProperty("runSubAgent");
    expectTypeOf<ToolExecutionContext>().toHaveProperty("schedules");
    expectTypeOf<ToolExecutionContext>().toHaveProperty("elicit");
    expectTypeOf<ToolExecutionContext>().toHaveProperty("sample");
    expectTypeOf<ToolExecutionContext>().toHaveProperty("log");
  });
});
