/**
 * A value derived from an object that never changes (a stored message, its wire form, a tool), kept on
 * that object itself under a non-enumerable symbol: it lives and dies with the object, is never stored,
 * sent, spread or cloned, and no module keeps a table of objects. Used by format-messages.ts (a message's
 * wire form), context-budget.ts (its token estimate) and src/llm/request-json.ts (a wire object's JSON bytes).
 */
export function keptWith<T>(owner: object, key: symbol, derive: () => T): T {
  const holder = owner as Record<symbol, T | undefined>;
  if (key in holder) return holder[key] as T;
  const value = derive();
  // A frozen owner (a deployer's tool may be one) just derives it again each time.
  if (!Object.isExtensible(owner)) return value;
  Object.defineProperty(owner, key, { value, enumerable: false, configurable: true });
  return value;
}
