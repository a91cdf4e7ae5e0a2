/** A control-plane URL as given, checked: the base URL to use, or why it cannot be used. */
export type ControlUrlCheck =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly problem: string; readonly hint: string };

/** WHATWG URL, in every runtime whilly runs on; core's compiler settings name no runtime's types. */
declare const URL: {
  canParse(input: string): boolean;
  new (input: string): { protocol: string; username: string; password: string; search: string; hash: string };
};

const EXAMPLE = "e.g. --connect http://127.0.0.1:8000 (a path prefix is kept)";

/**
 * Checks a control plane's base URL (`--connect`, `WHILLY_CONTROL_URL`): `http://` or `https://`, no
 * user name or password (the control plane takes a bearer token, and undici would retry such a URL
 * as unreachable for ever), no query or fragment (request paths are appended to the URL's text).
 * A problem quotes the value with any `user:password@` masked, so a password never reaches a log.
 * @returns the URL without trailing slashes, or a problem (`must ...; got '...'`) and a hint; the caller
 *   names its flag or variable before the problem.
 */
export function checkControlUrl(value: string): ControlUrlCheck {
  const shown = `got '${maskCredentials(value)}'`;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return { ok: false, problem: `must be an http(s) URL; ${shown}`, hint: EXAMPLE };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      ok: false,
      problem: `must not carry a user name or password; ${shown}`,
      hint: "drop the user:password@ part: workers authenticate with a bearer token (--token, --bootstrap-token)",
    };
  }
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(value)) {
    return {
      ok: false,
      problem: `must not have a query (?...) or fragment (#...); ${shown}`,
      hint: `give the control plane's base URL only, ${EXAMPLE}`,
    };
  }
  return { ok: true, url: value.replace(/\/+$/, "") };
}

/** `value` with the user and password of a URL-like text replaced by `***`. */
function maskCredentials(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1***@");
}
