/**
 * The repository's documentation points only at what a clone has. No file cites a design document or a
 * spec kept outside the repository; every cited section (`README "Title"`, `docs/x.md "Title"`, `the
 * README's Title section`) is a heading of that file; every relative markdown link reaches a file, and its
 * `#anchor` a heading there, by GitHub's slug rules; docs/api.md lists each route the Worker serves once.
 * Reads the files git tracks (and new ones it does not ignore), so a moved heading fails here rather than
 * in a reader's hands.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { servedRoutes } from "./support/served-routes.ts";

const ROOT = path.resolve(import.meta.dirname, "..");
const SELF = path
  .relative(ROOT, import.meta.filename)
  .split(path.sep)
  .join("/");
const TEXT_FILE = /\.(?:[cm]?[jt]s|jsonc?|md|toml|ya?ml|html|css|example|txt)$|(?:^|\/)(?:\.gitignore|\.assetsignore|run)$/;
/** Generated or vendored text: not written by this project's authors. */
const NOT_AUTHORED = /(?:^|\/)package-lock\.json$|^worker-configuration\.d\.ts$|\.generated\.ts$/;

/** Tracked files plus new ones git does not ignore, as repository paths with forward slashes. */
function repositoryFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" });
  return [...new Set(out.split("\0").filter(Boolean))].filter((file) => existsSync(path.join(ROOT, file))).sort();
}

const files = repositoryFiles().filter((file) => TEXT_FILE.test(file) && !NOT_AUTHORED.test(file) && file !== SELF);
const read = (file: string): string => readFileSync(path.join(ROOT, file), "utf8");

/** Headings of a markdown file as written (fenced code blocks skipped), inline code marks removed. */
function headingsOf(file: string): string[] {
  const headings: string[] = [];
  let fence: string | undefined;
  for (const line of read(file).split("\n")) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line)?.[1];
    if (heading) headings.push(heading);
  }
  return headings;
}

/** What a heading reads as: links as their text, without inline code or emphasis marks. */
const plain = (heading: string): string =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim();

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, each space a hyphen. */
const slugOf = (heading: string): string =>
  plain(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");

/** The anchors of a file's headings; a repeated heading's anchor is numbered (-1, -2, …), as on GitHub. */
function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const heading of headingsOf(file)) {
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

describe("documentation inside the repository", () => {
  it("lists the files it checks, docs and README among them", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/api.md");
    expect(files.length).toBeGreaterThan(100);
  });

  it("cites no document a clone does not have (a design doc, a shared spec folder)", () => {
    // Built from parts, so these lines do not cite what they forbid.
    const outside = [new RegExp(["DESIGN", "\\.md"].join(""), "i"), /\bDESIGN ["§]/, new RegExp(["\\.\\.", "/shared\\b"].join(""))];
    const found = files.flatMap((file) => {
      const text = read(file);
      return outside.flatMap((pattern) =>
        [...text.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))].map((m) => `${file}:${lineOf(text, m.index)}: ${m[0]}`),
      );
    });
    expect(found).toEqual([]);
  });

  it("cites only sections that are headings of the cited file", () => {
    const citations = [
      // README "Title", README's "Title", docs/x.md "Title"
      /\b(README|docs\/[\w-]+\.md)(?:\.md)?(?:'s)? "([^"\n]+)"/g,
      // the README's Title section
      /\b(README|docs\/[\w-]+\.md)'s ([A-Z][\w-]*(?: [\w-]+)*?) section\b/g,
    ];
    const broken = files.flatMap((file) => {
      const text = read(file);
      return citations.flatMap((pattern) =>
        [...text.matchAll(pattern)].flatMap((m) => {
          const target = m[1] === "README" ? "README.md" : m[1]!;
          const title = plain(m[2]!);
          const where = `${file}:${lineOf(text, m.index)}: ${m[0]}`;
          if (!existsSync(path.join(ROOT, target))) return [`${where} (no ${target})`];
          return headingsOf(target).map(plain).includes(title) ? [] : [`${where} (no such heading in ${target})`];
        }),
      );
    });
    expect(broken).toEqual([]);
  });

  it("names only docs/ files that exist", () => {
    const missing = files.flatMap((file) => {
      const text = read(file);
      return [...text.matchAll(/\bdocs\/[\w-]+\.md\b/g)]
        .filter((m) => !existsSync(path.join(ROOT, m[0])))
        .map((m) => `${file}:${lineOf(text, m.index)}: ${m[0]}`);
    });
    expect(missing).toEqual([]);
  });

  it("links in markdown to files that exist and to anchors that are headings there", () => {
    const broken = files
      .filter((file) => file.endsWith(".md"))
      .flatMap((file) => {
        const text = read(file);
        return [...text.matchAll(/\]\(([^)\s]+)\)/g)].flatMap((m) => {
          const link = m[1]!;
          if (/^[a-z][a-z+.-]*:/i.test(link)) return []; // https:, mailto: …
          const [target = "", anchor] = link.split("#", 2);
          const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
          const where = `${file}:${lineOf(text, m.index)}: ${link}`;
          if (!existsSync(path.join(ROOT, resolved))) return [`${where} (no ${resolved})`];
          if (anchor === undefined || !resolved.endsWith(".md") || statSync(path.join(ROOT, resolved)).isDirectory()) return [];
          return anchorsOf(resolved).has(anchor) ? [] : [`${where} (no heading #${anchor} in ${resolved})`];
        });
      });
    expect(broken).toEqual([]);
  });

  it("makes anchors by GitHub's rules", () => {
    // Headings this repository has: inline code, a colon, a comma, parentheses, a slash.
    expect(slugOf("LLM endpoints: plain fetch, not the `openai` SDK")).toBe("llm-endpoints-plain-fetch-not-the-openai-sdk");
    expect(slugOf("Pointing an MCP client at `/mcp`")).toBe("pointing-an-mcp-client-at-mcp");
    expect(slugOf("Tools the agent writes (writeTool)")).toBe("tools-the-agent-writes-writetool");
    expect(slugOf("Cost model: what keeps a session awake, and what grows with its age")).toBe(
      "cost-model-what-keeps-a-session-awake-and-what-grows-with-its-age",
    );
  });
});

describe("docs/api.md, the route reference", () => {
  /** `METHOD /path` of each row whose first cell is a route, its query left out (`GET /v1/sessions?limit=` is `GET /v1/sessions`). */
  const documented = read("docs/api.md")
    .split("\n")
    .flatMap((line) => {
      const route = /^\| `((?:GET|POST|PUT|PATCH|DELETE) \/[^`?\s]*)[^`]*` \|/.exec(line)?.[1];
      return route ? [route] : [];
    });

  it("lists each route once", () => {
    expect(documented.length).toBeGreaterThan(25);
    expect(documented.filter((route, i) => documented.indexOf(route) !== i)).toEqual([]);
  });

  it("lists every route the Worker serves, and none it does not", () => {
    const routes = servedRoutes();
    expect(routes.length).toBeGreaterThan(25);
    expect({ undocumented: routes.filter((r) => !documented.includes(r)), stale: documented.filter((r) => !routes.includes(r)) }).toEqual({
      undocumented: [],
      stale: [],
    });
  });
});
