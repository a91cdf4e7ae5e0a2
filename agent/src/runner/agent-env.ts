/**
 * whilly's own credentials, named: the agent never needs them, and whatever it prints may end up in an
 * event that the read API serves, so they are kept out of its environment. {@link isWhillySecret} also
 * drops any other `WHILLY_` variable named like a credential, so a new one cannot be forgotten here.
 */
export const WHILLY_SECRETS: readonly string[] = [
  "WHILLY_DATABASE_URL",
  "WHILLY_WORKER_TOKEN",
  "WHILLY_WORKER_BOOTSTRAP_TOKEN",
  "WHILLY_ADMIN_TOKEN",
  "WHILLY_TOKEN_SECRET",
  "WHILLY_TEST_DATABASE_URL",
];

const WHILLY_CREDENTIAL_NAME = /^WHILLY_(?:\w*_)?(?:TOKEN|SECRET|PASSWORD|KEY|DATABASE_URL)(?:_\w*)?$/i;

/**
 * True for an environment variable that is one of whilly's credentials: listed in {@link WHILLY_SECRETS},
 * or a `WHILLY_` name holding TOKEN, SECRET, PASSWORD, KEY or DATABASE_URL as a word (e.g.
 * `WHILLY_ADMIN_TOKEN`, `WHILLY_READ_TOKEN_FILE`). The agent and whilly's checks never see these.
 */
export function isWhillySecret(name: string): boolean {
  return WHILLY_SECRETS.includes(name) || WHILLY_CREDENTIAL_NAME.test(name);
}

/**
 * git's credentials and the ways they reach git: an SSH agent, askpass programs, SSH commands, config
 * given in the environment (`http.extraHeader`, credential helpers), GitHub tokens. The worker's own
 * git fetches and pushes with them; the agent never needs to, so it never gets them. `GIT_TERMINAL_PROMPT`
 * and config files (`GIT_CONFIG_GLOBAL`) stay.
 */
export const GIT_CREDENTIAL_VARIABLES: readonly string[] = [
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SSH_AUTH_SOCK",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_PARAMETERS",
  "GH_TOKEN",
  "GITHUB_TOKEN",
  "GH_ENTERPRISE_TOKEN",
  "GITHUB_ENTERPRISE_TOKEN",
];

const GIT_CREDENTIAL_NAME = /^(?:GIT_CONFIG_(?:KEY|VALUE)_\d+|GIT_CREDENTIAL_\w*)$/;

/** True for a variable that hands git credentials over (see {@link GIT_CREDENTIAL_VARIABLES}). */
export function isGitCredential(name: string): boolean {
  return GIT_CREDENTIAL_VARIABLES.includes(name) || GIT_CREDENTIAL_NAME.test(name);
}

/**
 * True for a variable the agent, the setup command and the checks never see: whilly's own credentials
 * ({@link isWhillySecret}) and git's ({@link isGitCredential}).
 */
export function isKeptFromAgent(name: string): boolean {
  return isWhillySecret(name) || isGitCredential(name);
}

/** `env` without what {@link isKeptFromAgent} keeps from the agent; the input is not changed. */
export function agentEnvOf(
  env: Readonly<Record<string, string | undefined>>,
): Readonly<Record<string, string | undefined>> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isKeptFromAgent(name)));
}
