export {
  FRAGMENT_LENGTH,
  FRAGMENT_MIN_SECRET_LENGTH,
  redactFragments,
  strippedRemainders,
} from "./fragments.js";
export { REDACTED, SECRET_SHAPES, type SecretShape } from "./patterns.js";
export {
  dropCutFragment,
  MIN_SECRET_LENGTH,
  redactingWriter,
  redactJson,
  redactSecrets,
  SECRET_NAME,
  secretValuesOf,
  urlPasswords,
} from "./redact.js";
