import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api/errors.js";
import { session } from "./api/session.js";
import { PlanPage } from "./pages/Plan.js";
import { PlansPage } from "./pages/Plans.js";
import { SignInPage } from "./pages/SignIn.js";
import { TaskPage } from "./pages/Task.js";
import { WorkersPage } from "./pages/Workers.js";
import { parseSignInLink, type Route, useRoute } from "./router.js";
import { useStore } from "./store.js";
import { Header } from "./ui/Header.js";

/**
 * Signs in from a link's code or the tab's stored token, then shows the page of the hash. Until a
 * session is open only the sign-in form is shown and nothing is fetched; after a reload the tab's
 * session is resumed at once (no wait for the server) and renewed alongside the page's first reads.
 */
export function App() {
  // A reload resumes the tab's session at once (its reads start with the cookie) and renews it
  // alongside; first, so that `who` below sees it.
  const [starting, setStarting] = useState(
    () => parseSignInLink(location.hash) !== undefined || !session.resume(),
  );
  const who = useStore(session);
  const route = useRoute();
  const [notice, setNotice] = useState<string | undefined>(undefined);
  useEffect(() => {
    const redeem = ({ code, next }: { code: string; next: string }) => {
      // The code is spent on first use: take it out of the URL and the history before anything else
      // (a replacing navigation to the run's plan, whose hashchange the route follows).
      location.replace(`${location.pathname}${location.search}${next}`);
      setStarting(true);
      setNotice(undefined);
      return session
        .redeem(code)
        .catch((err) => setNotice(`The sign-in link did not work: ${messageOf(err)}`))
        .finally(() => setStarting(false));
    };
    const link = parseSignInLink(location.hash);
    if (link !== undefined) redeem(link);
    else session.renew().finally(() => setStarting(false));
    // A link pasted into a tab that is already open arrives as a hash change.
    const onHash = () => {
      const next = parseSignInLink(location.hash);
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
