/**
 * One sample of every secret shape whilly redacts, for tests of every place that keeps or shows agent
 * output. Each is built from pieces, so no secret scanner mistakes the repository for a leak.
 */
export const SAMPLE_SECRETS: Record<string, string> = {
  github: `ghp_${"A1b2C3d4E5".repeat(3)}abcdef`,
  githubOauth: `gho_${"Z9y8X7w6V5".repeat(3)}uvwxyz`,
  githubServer: `ghs_${"q".repeat(36)}`,
  githubFineGrained: `github_pat_11ABCDEFG0${"x".repeat(40)}`,
  gitlab: `glpat-${"Ab3dEf6hIj".repeat(2)}`,
  aws: `AKIA${"IOSFODNN7EXAMPLE".slice(0, 16)}`,
  slack: `xoxb-123456789012-${"abcdefABCDEF".repeat(2)}`,
  openai: `sk-${"T3BlbkFJ".repeat(4)}`,
  openaiProject: `sk-proj-${"aB_c-".repeat(8)}`,
  anthropic: `sk-ant-api03-${"abcXYZ09".repeat(4)}`,
  jwt: `eyJhbGciOiJIUzI1NiJ9.${"eyJzdWIiOiJ3LTEifQ"}.${"s1gNatUr3-_x".repeat(2)}`,
  privateKey: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${"q".repeat(60)}\n${"Z".repeat(64)}\n-----END RSA PRIVATE KEY-----`,
  urlPassword: "postgres://whilly:Sup3r-s3cret-pw@db.internal:5432/whilly",
};

/** What must never survive redaction of each sample (the secret part). */
export function secretPart(name: string, sample: string): string {
  if (name === "urlPassword") return "Sup3r-s3cret-pw";
  if (name === "privateKey") return "MIIEowIBAAKCAQEA";
  return sample.slice(-12);
}

/** Every sample, one per line (or `separator`), as an agent might print them; the private key last. */
export function allSecretsText(separator = "\n"): string {
  const { privateKey, ...others } = SAMPLE_SECRETS;
  return [...Object.values(others), privateKey].join(separator);
}

/** The names of the samples whose secret part occurs in `text` (none, when redaction held). */
export function leakedSecrets(text: string): string[] {
  return Object.entries(SAMPLE_SECRETS)
    .filter(([name, sample]) => text.includes(secretPart(name, sample)))
    .map(([name]) => name);
}
