import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, extname, join } from "node:path";

/**
 * The headers every page of the dashboard is served with, on Node here and on Workers through
 * `web/headers` (copied to `web/dist/_headers` by the build; a test keeps the two the same). The
 * policy allows only this origin's own script, styles and API, and no framing (docs/web-dashboard.md).
 */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** A file's name carries its content hash (`app.0123abcdef.js`): it never changes, so caches keep it. */
const HASHED = /\.[0-9a-f]{8,}\.[a-z0-9]+$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
};

type StaticFile = { readonly body: Uint8Array; readonly headers: Readonly<Record<string, string>> };

/**
 * The built dashboard (`web/dist`), read into memory once: `index.html` and the files of `assets/`.
 * `files` is empty when the directory or its `index.html` is missing; the site then answers 503.
 */
export type StaticSite = {
  /** The directory read, absolute; `undefined` when `@whilly/web` is not installed. */
  readonly dir: string | undefined;
  /** By URL path: `/index.html`, `/assets/app.<hash>.js`. */
  readonly files: ReadonlyMap<string, StaticFile>;
};

/**
 * Reads the dashboard from `dir`, else from `@whilly/web`'s `dist` (`WHILLY_WEB_DIR` overrides it).
 * Files are read here, never per request, so a URL can only name a file that was listed at start: no
 * path a client sends reaches the file system.
 */
export function loadStaticSite(dir: string | undefined = defaultWebDir()): StaticSite {
  const files = new Map<string, StaticFile>();
  if (dir === undefined || !isFile(join(dir, "index.html"))) return { dir, files };
  files.set("/index.html", fileOf(join(dir, "index.html"), "no-cache"));
  const assets = join(dir, "assets");
  const names = isDirectory(assets) ? readdirSync(assets) : [];
  for (const name of names) {
    const path = join(assets, name);
    if (!isFile(path)) continue;
    const cache = HASHED.test(name) ? "public, max-age=31536000, immutable" : "no-cache";
    files.set(`/assets/${name}`, fileOf(path, cache));
  }
  return { dir, files };
}

/**
 * Answers a request for the dashboard: `GET`/`HEAD` of `/`, `/index.html` and `/assets/*`. Those paths
 * are no control-plane route, so the Node host asks here first and hands everything else to the app.
 * @returns `undefined` for a request that is not the dashboard's.
 */
export function serveStaticSite(site: StaticSite, request: Request): Response | undefined {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined;
  const path = new URL(request.url).pathname;
  if (path !== "/" && path !== "/index.html" && !path.startsWith("/assets/")) return undefined;
  if (site.files.size === 0) return missingSite(site.dir);
  const file = site.files.get(path === "/" ? "/index.html" : path);
  const headers = file?.headers ?? { ...WEB_SECURITY_HEADERS, "content-type": "text/plain; charset=utf-8" };
  const body = file?.body ?? new TextEncoder().encode("not found\n");
  return new Response(request.method === "HEAD" ? null : body, { status: file ? 200 : 404, headers });
}

function missingSite(dir: string | undefined): Response {
  const where = dir === undefined ? "the @whilly/web package is not installed" : `${dir} has no index.html`;
  const text = `The web dashboard is not built: ${where}. Build it with \`npm run build -w @whilly/web\` (or point WHILLY_WEB_DIR at a built web/dist), then restart.\n`;
  return new Response(text, {
    status: 503,
    headers: {
      ...WEB_SECURITY_HEADERS,
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-cache",
    },
  });
}

/** `@whilly/web`'s `dist`, found the way Node finds the package; `undefined` when it is not installed. */
function defaultWebDir(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@whilly/web/package.json")), "dist");
  } catch {
    return undefined;
  }
}

function fileOf(path: string, cacheControl: string): StaticFile {
  const type = CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
  const body = new Uint8Array(readFileSync(path));
  return { body, headers: { ...WEB_SECURITY_HEADERS, "content-type": type, "cache-control": cacheControl } };
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}
