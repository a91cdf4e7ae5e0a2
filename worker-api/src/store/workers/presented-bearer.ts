/**
 * A worker bearer a request presented, its signature already checked by the caller. An operation given
 * one also checks, in its own statement, that this hash is still stored for the worker it acts as, so
 * the request needs no separate lookup and a revocation committed before the statement began is
 * honoured exactly as a lookup would honour it.
 */
export type PresentedBearer = { readonly tokenHash: string };

/**
 * Thrown by an operation given a {@link PresentedBearer} whose hash is not stored for the acting
 * worker (unknown, revoked, or another worker's): the operation changed nothing. Not an HTTP error:
 * the caller answers it with its own full authentication, which says why.
 */
export class BearerNotStored extends Error {
  constructor() {
    super("the presented bearer is not stored for this worker");
    this.name = "BearerNotStored";
  }
}
