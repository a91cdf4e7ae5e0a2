/**
 * One kind of credential recognised by its shape. `pattern` is global; the text it matches is replaced
 * by `keep` (the part of the match that says what kind of secret it was, e.g. `ghp_`) followed by
 * `[redacted]`. The rules follow the providers' published token formats, as the field's secret
 * scanners (gitleaks, secretlint) encode them, loosened where a tail cut or a new length would
 * otherwise let a real token through: over-redacting a log costs little, leaking a token costs a lot.
 */
export type SecretShape = {
  readonly id: string;
  readonly pattern: RegExp;
  /** How many leading characters of the match stay visible, or a function of the match's groups. */
  readonly keep: (match: string, ...groups: string[]) => string;
};

const prefix =
  (re: RegExp) =>
  (match: string): string =>
    re.exec(match)?.[0] ?? "";

/**
 * The shapes, most specific first (an Anthropic key is also an `sk-` key). See docs/agent.md
 * ("Secrets in agent output") for the list in prose.
 */
export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    // PEM blocks: RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP... A block cut before its END line is hidden to the end.
    id: "private-key",
    pattern:
      /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    keep: () => "private key ",
  },
  { id: "anthropic", pattern: /\bsk-ant-[A-Za-z0-9_-]{4,}/g, keep: () => "sk-ant-" },
  {
    id: "openai",
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
    keep: prefix(/^sk-(?:proj-|svcacct-|admin-)?/),
  },
  { id: "github", pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g, keep: prefix(/^gh._/) },
  { id: "github-fine-grained", pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, keep: () => "github_pat_" },
  {
    id: "gitlab",
    pattern: /\bgl(?:pat|ptt|dt|rt|soat|cbt|imt|agent)-[A-Za-z0-9_-]{20,}/g,
    keep: prefix(/^gl[a-z]+-/),
  },
  {
    id: "aws-access-key-id",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g,
    keep: prefix(/^.{4}/),
  },
  { id: "slack", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, keep: prefix(/^xox.-/) },
  { id: "slack-app", pattern: /\bxapp-[A-Za-z0-9-]{10,}/g, keep: () => "xapp-" },
  {
    id: "slack-webhook",
    pattern: /\bhooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9+/_-]{20,}/g,
    keep: () => "hooks.slack.com/",
  },
  // whilly's own read API tokens (`whilly token create --read-only`).
  { id: "whilly-read", pattern: /\bwhilly_read_[A-Za-z0-9_-]{20,}/g, keep: () => "whilly_read_" },
  {
    // header.payload.signature, each base64url; the header of every JWT starts `{"` = `eyJ`.
    id: "jwt",
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    keep: () => "eyJ",
  },
  {
    // scheme://user:password@host: the user name stays, the password goes.
    id: "url-password",
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@'"]{0,256}:)[^\s/'"]{1,256}(?=@)/gi,
    keep: (_match, head = "") => head,
  },
  {
    id: "bearer",
    pattern: /\b(bearer\s+)[A-Za-z0-9._~+/-]{16,}=*/gi,
    keep: (_match, head = "") => head,
  },
  {
    // `api_key = ...`, `"password": "..."`, `SECRET_TOKEN=...`: the value after a name that says it is one.
    id: "assignment",
    pattern:
      /\b([A-Za-z0-9_.-]{0,40}?(?:api[_-]?key|secret|token|passw(?:or)?d|credential)[A-Za-z0-9_.-]{0,40}["']?\s{0,4}[:=]\s{0,4}["']?)(?![0-9]+\b)[^\s"',;]{8,}/gi,
    keep: (_match, head = "") => head,
  },
];

/** What replaces the hidden part of a secret. */
export const REDACTED = "[redacted]";
