import { parse } from "./errors.js";
import type { Role } from "./types.js";

/** The signed-in state: the role the server granted and when the session cookie expires. */
export interface SessionState {
  role: Role;
  expiresAt: string;
}

const KEY = "whilly.token";
/** The last session the server granted this tab (role and expiry; no secret), to resume it on a reload. */
const STATE_KEY = "whilly.session";
let state: SessionState | null = null;
let renewing: Promise<boolean> | null = null;
const listeners = new Set<() => void>();
/**
 * The browser's other tabs of this origin: they share the session cookie, so a sign-out in one tab
 * signs them all out (else another tab would open a new session with its own stored token at once).
 */
const tabs = typeof BroadcastChannel === "function" ? new BroadcastChannel("whilly.session") : undefined;
const SIGNED_OUT = "signed-out";

function set(next: SessionState | null): void {
  state = next;
  if (next) sessionStorage.setItem(STATE_KEY, JSON.stringify(next));
  else sessionStorage.removeItem(STATE_KEY);
  for (const fn of listeners) fn();
}

/**
 * Who is signed in. The token lives in sessionStorage only (this tab, gone when it closes): it is the
 * bearer of operator actions and signs in again after a 401; reads and streams use the HttpOnly cookie
 * `POST /api/v1/session` sets.
 */
export const session = {
  get: (): SessionState | null => state,
  token: (): string | null => sessionStorage.getItem(KEY),
  subscribe(fn: () => void): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },

  /**
   * Takes up the session this tab last had (after a reload) without waiting for the server, so the
   * page's reads start at once with the cookie; call {@link session.renew} too, which signs out when
   * the token is no longer valid. A read that meets an expired cookie renews and retries (`api`).
   * @returns whether a session was resumed (a token and its session are stored).
   */
  resume(): boolean {
    const token = sessionStorage.getItem(KEY);
    const saved = sessionStorage.getItem(STATE_KEY);
    if (!token || !saved) return false;
    try {
      const parsed = JSON.parse(saved) as Partial<SessionState>;
      if ((parsed.role !== "admin" && parsed.role !== "read") || typeof parsed.expiresAt !== "string")
        return false;
      set({ role: parsed.role, expiresAt: parsed.expiresAt });
      return true;
    } catch {
      return false;
    }
  },

  /** Opens a session with `token` (admin or read-only). @throws {ApiError} when refused. */
  async signIn(token: string): Promise<SessionState> {
    const res = await fetch("/api/v1/session", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      credentials: "same-origin",
    });
    const body = await parse<{ role: Role; expires_at: string }>(res);
    sessionStorage.setItem(KEY, token);
    const next = { role: body.role, expiresAt: body.expires_at };
    set(next);
    return next;
  },

  /** Redeems a one-time code of `whilly run --ui` for an admin session and its token. */
  async redeem(code: string): Promise<SessionState> {
    const res = await fetch("/api/v1/session/redeem", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ code }),
    });
    const body = await parse<{ role: Role; token: string; expires_at: string }>(res);
    sessionStorage.setItem(KEY, body.token);
    const next = { role: body.role, expiresAt: body.expires_at };
    set(next);
    return next;
  },

  /**
   * Opens the session again with the stored token (the cookie expired or the server restarted);
   * concurrent callers share one request. Signs out when the token is refused.
   * @returns whether a session is open again.
   */
  renew(): Promise<boolean> {
    const token = sessionStorage.getItem(KEY);
    if (!token) return Promise.resolve(false);
    renewing ??= session
      .signIn(token)
      .then(
        () => true,
        (err: { status?: number }) => {
          if (err.status === 401 || err.status === 403) session.forget();
          return false;
        },
      )
      .finally(() => {
        renewing = null;
      });
    return renewing;
  },

  /** Drops the token and the state here, without telling the server. */
  forget(): void {
    sessionStorage.removeItem(KEY);
    set(null);
  },

  /** Ends the session: the server clears its cookie, this tab and the browser's others forget the token. */
  async signOut(): Promise<void> {
    session.forget();
    tabs?.postMessage(SIGNED_OUT);
    await fetch("/api/v1/session", { method: "DELETE", credentials: "same-origin" }).catch(() => undefined);
  },
};

tabs?.addEventListener("message", (message: MessageEvent<unknown>) => {
  if (message.data === SIGNED_OUT) session.forget();
});
