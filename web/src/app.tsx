import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api/errors.js";
import { session } from "./api/session.js";
import { PlanPage } from "./pages/Plan.js";
import { PlansPage } from "./pages/Plans.js";
import { SignInPage } from "./pages/SignIn.js";
import { TaskPage } from "./pages/Task.js";
import { WorkersPage } from "./pages/Workers.js";
import { type Route, useRoute } from "./router.js";
import { useStore } from "./store.js";
import { Header } from "./ui/Header.js";

/**
 * The one-time code of a `whilly run --ui` link (`#signin=<code>`), if the URL has one. A mangled
 * percent-encoding is kept as it came: the server then refuses the code and the page says so.
 */
function signInCode(): string | undefined {
  const match = /^#signin=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}

/**
 * Signs in from a link's code or the tab's stored token, then shows the page of the hash. Until a
 * session is open only the sign-in form is shown and nothing is fetched.
 */
export function App() {
  const who = useStore(session);
  const route = useRoute();
  const [starting, setStarting] = useState(true);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  useEffect(() => {
    const redeem = (code: string) => {
      // The code is spent on first use: take it out of the URL and the history before anything else.
      history.replaceState(null, "", `${location.pathname}${location.search}#/`);
      setStarting(true);
      setNotice(undefined);
      return session
        .redeem(code)
        .catch((err) => setNotice(`The sign-in link did not work: ${messageOf(err)}`))
        .finally(() => setStarting(false));
    };
    const code = signInCode();
    if (code !== undefined) redeem(code);
    else session.renew().finally(() => setStarting(false));
    // A link pasted into a tab that is already open arrives as a hash change.
    const onHash = () => {
      const next = signInCode();
      if (next !== undefined) redeem(next);
    };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  if (starting) return <p class="muted pad">Signing in…</p>;
  if (!who) return <SignInPage notice={notice} />;
  return (
    <>
      <Header route={route} who={who} />
      <main class="page">{page(route, who.role === "admin")}</main>
    </>
  );
}

function page(route: Route, admin: boolean) {
  switch (route.page) {
    case "plan":
      return <PlanPage key={route.planId} planId={route.planId} />;
    case "task":
      return <TaskPage key={`${route.planId}/${route.taskId}`} {...route} admin={admin} />;
    case "workers":
      return <WorkersPage admin={admin} />;
    default:
      return <PlansPage />;
  }
}
