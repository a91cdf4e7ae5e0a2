import type { UntrustedPiece } from "@whilly/core";

/** The wizard's questions, asked one at a time, each with the fence kind its answer gets in the prompt. */
export const WIZARD_QUESTIONS: readonly { readonly kind: string; readonly question: string }[] = [
  { kind: "problem", question: "What problem does it solve?" },
  { kind: "users", question: "Who are its users?" },
  { kind: "success_criteria", question: "How will you know it works (success criteria)?" },
  {
    kind: "constraints",
    question: "What constraints does it have (deadlines, platforms, must and must-not)?",
  },
  {
    kind: "technical_needs",
    question: "What technical needs or preferences (language, framework, services)?",
  },
];

/** The questions as the terminal shows them: `(1/5) What problem does it solve?` then a `> ` prompt. */
export function wizardPrompts(): string[] {
  const total = WIZARD_QUESTIONS.length;
  return WIZARD_QUESTIONS.map(({ question }, i) => `\n(${i + 1}/${total}) ${question}\n> `);
}

/**
 * The PRD prompt's input: the idea, then each answer as a piece of its own (an empty answer says so),
 * every one fenced as untrusted data in the prompt.
 */
export function prdInput(idea: string, answers: readonly string[] | undefined): UntrustedPiece[] {
  const pieces: UntrustedPiece[] = [{ kind: "idea", text: idea }];
  if (answers === undefined) return pieces;
  for (const [i, { kind }] of WIZARD_QUESTIONS.entries()) {
    const answer = answers[i]?.trim() ?? "";
    pieces.push({ kind, text: answer === "" ? "(no answer)" : answer, maxBytes: 8 * 1024 });
  }
  return pieces;
}
