import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../api/errors.js";

interface Props {
  /** The button's text, e.g. "Reset". */
  label: string;
  testid: string;
  /** What the dialog asks, naming what is acted on. */
  question: string;
  /** What happens, in a sentence. */
  effect: string;
  /** Why the action is not offered (read-only session, wrong status), or undefined when it is. */
  disabledReason?: string | undefined;
  danger?: boolean;
  /** Performs the action. @throws {ApiError} whose detail and hint are shown. */
  run(): Promise<unknown>;
}

/**
 * An operator action: a button, a confirmation dialog that names what happens, then the server's
 * answer: its error (detail and hint) in the page, or a short note on success (the change itself
 * arrives on the live stream).
 */
export function Action({ label, testid, question, effect, disabledReason, danger, run }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  // Only the open action's dialog is in the page, so `confirm-yes` names one button.
  useEffect(() => {
    if (open) dialog.current?.showModal();
  }, [open]);
  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const confirm = async () => {
    setBusy(true);
    try {
      await run();
      setResult({ ok: true, text: `${label}: done.` });
    } catch (err) {
      setResult({ ok: false, text: `${label} failed: ${messageOf(err)}` });
    } finally {
      setBusy(false);
      close();
    }
  };
  return (
    <span class="action">
      <button
        ref={button}
        type="button"
        class={danger ? "danger" : ""}
        disabled={disabledReason !== undefined || busy}
        title={disabledReason}
        aria-describedby={disabledReason ? `${testid}-why` : undefined}
        onClick={() => {
          setResult(undefined);
          setOpen(true);
        }}
        data-testid={testid}
      >
        {busy ? `${label}…` : label}
      </button>
      {disabledReason && (
        <span id={`${testid}-why`} class="muted small" data-testid={`${testid}-disabled`}>
          {disabledReason}
        </span>
      )}
      {result && (
        <span
          class={result.ok ? "ok small" : "error small"}
          role={result.ok ? "status" : "alert"}
          data-testid={result.ok ? "action-done" : "action-error"}
        >
          {result.text}
        </span>
      )}
      {open && (
        <dialog ref={dialog} onClose={close} data-testid="confirm-dialog" aria-labelledby={`${testid}-q`}>
          <h2 id={`${testid}-q`}>{question}</h2>
          <p>{effect}</p>
          <div class="buttons">
            <button type="button" class="secondary" onClick={close} data-testid="confirm-no">
              Cancel
            </button>
            <button
              type="button"
              class={danger ? "danger" : ""}
              disabled={busy}
              onClick={confirm}
              data-testid="confirm-yes"
            >
              {label}
            </button>
          </div>
        </dialog>
      )}
    </span>
  );
}

/** Why a read-only session cannot act, or undefined for an admin. */
export const readOnlyReason = (admin: boolean) =>
  admin ? undefined : "read-only session: sign in with the admin token to act";
