/**
 * Who is asking, as a rate-limit key: the address Cloudflare's edge puts in CF-Connecting-IP (clients
 * cannot forge it there), else the first X-Forwarded-For hop (wrangler dev, tests), else one shared
 * bucket. An IPv6 client is keyed by its /64, the block one subscriber gets: within it an address
 * costs nothing to rotate. IPv4 (and IPv4-mapped IPv6) keeps the full address.
 */

export function clientKey(request: Request): string {
  const ip = request.headers.get("cf-connecting-ip")?.trim() || request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
  return ip ? addressBucket(ip) : "unknown-client";
}

/** `2001:db8:1:2::5` → `2001:db8:1:2::/64`; IPv4 and anything unparsable as given (lower-cased). */
export function addressBucket(ip: string): string {
  const address = ip
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  if (!address.includes(":")) return address;
  const mapped = address.match(/^(?:0{0,4}:){0,5}:?ffff:(\d{1,3}(?:\.\d{1,3}){3})$/);
  if (mapped) return mapped[1]!;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : address;
}

/** The eight hextets of an IPv6 address without leading zeros, or undefined when it is not one. */
function expandIpv6(address: string): string[] | undefined {
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => g.replace(/^0+(?=.)/, ""));
}
