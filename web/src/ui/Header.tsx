import { type SessionState, session } from "../api/session.js";
import { streamState } from "../live/stream.js";
import type { Route } from "../router.js";
import { useStore } from "../store.js";

const STREAM_LABEL = {
  off: "",
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  offline: "server unreachable",
};

/** Why the stream is offline and what still happens, for the state's tooltip. */
const OFFLINE_TITLE =
  "The server has not answered for a while: it stopped, or the run of `whilly run --ui` that served this page ended. What is shown is as it last was; the page keeps trying and is live again once the server is back.";

/** The top bar: navigation, the stream's state, the role and sign-out. */
export function Header({ route, who }: { route: Route; who: SessionState }) {
  const stream = useStore(streamState);
  return (
    <header class="top">
      <a class="brand" href="#/">
        whilly
      </a>
      <nav aria-label="main">
        <a href="#/" aria-current={route.page === "workers" ? undefined : "page"} data-testid="nav-plans">
          Plans
        </a>
        <a
          href="#/workers"
          aria-current={route.page === "workers" ? "page" : undefined}
          data-testid="nav-workers"
        >
          Workers
        </a>
      </nav>
      <span class="spacer" />
      {stream !== "off" && (
        <span
          class={`stream ${stream}`}
          data-testid="stream-state"
          data-state={stream}
          role="status"
          title={stream === "offline" ? OFFLINE_TITLE : undefined}
        >
          <span class="dot" aria-hidden="true" />
          {STREAM_LABEL[stream]}
        </span>
      )}
      <span class="role" data-testid="role" data-role={who.role} title={`session until ${who.expiresAt}`}>
        {who.role === "admin" ? "admin" : "read-only"}
      </span>
      <button type="button" class="link" onClick={() => session.signOut()} data-testid="signout">
        Sign out
      </button>
    </header>
  );
}
