import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../api/errors.js";
import { session } from "../api/session.js";

/** The token form: nothing is fetched before a session is open. */
export function SignInPage({ notice }: { notice?: string | undefined }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | undefined>(notice);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  // The form is the whole page: start in its one field, so a keyboard user can paste and press Enter.
  useEffect(() => input.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (!token.trim()) return setError("Enter a token.");
    setBusy(true);
    setError(undefined);
    try {
      await session.signIn(token.trim());
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} data-testid="signin-form" class="card">
        <h1>Sign in to whilly</h1>
        <label for="token">Admin or read-only token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autocomplete="current-password"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          data-testid="signin-token"
        />
        <p class="muted small">
          A read-only token comes from <code>whilly token create --read-only</code>; the token stays in this
          tab only.
        </p>
        {error && (
          <p class="error" role="alert" data-testid="signin-error">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy} data-testid="signin-submit">
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
