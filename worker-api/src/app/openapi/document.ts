import { componentSchemas, type JsonSchema, ref } from "./components.js";
import { OPERATIONS, type Operation, type OperationAuth } from "./operations.js";

/** The document's `info.version`: the protocol's, not the package's. */
export const PROTOCOL_VERSION = "1";

const PATH_PARAMETER_TEXT: Record<string, string> = {
  workerId: "The worker id `POST /workers/register` returned.",
  taskId: "A task id; unique within its plan. Percent-encode it.",
  planId: "A plan id. Percent-encode it (spaces and non-ASCII text are allowed).",
};

/**
 * Builds the OpenAPI 3.1 document of the control plane from the route table and the wire schemas.
 * Pure and deterministic; the route serves one copy built on first request.
 */
export function buildOpenApiDocument(): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    paths[op.path] ??= {};
    const entry = paths[op.path] as Record<string, unknown>;
    entry[op.method] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "whilly control plane",
      version: PROTOCOL_VERSION,
      description:
        "Worker protocol v1, the read API, plan creation and operator actions. Errors use the envelope `{error_code, detail, task_id}`; see docs/protocol.md.",
    },
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        workerBearer: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "A per-worker token from `POST /workers/register` (a JWT whose `sub` is the worker id), or the deprecated shared WHILLY_WORKER_TOKEN.",
        },
        bootstrapToken: {
          type: "http",
          scheme: "bearer",
          description: "The control plane's WHILLY_WORKER_BOOTSTRAP_TOKEN; accepted by registration only.",
        },
        adminToken: {
          type: "http",
          scheme: "bearer",
          description: "The control plane's WHILLY_ADMIN_TOKEN.",
        },
        githubOidc: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "A GitHub Actions OIDC token (issuer https://token.actions.githubusercontent.com, RS256) whose `aud` is the control plane's WHILLY_OIDC_AUDIENCE and whose `repository` is in its WHILLY_OIDC_REPOSITORIES; only for the issues of that repository.",
        },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "whilly_session",
          description:
            "A browser session from `POST /api/v1/session`: accepted on the read API's GET and HEAD requests that send no Authorization header, never on an action.",
        },
        readToken: {
          type: "http",
          scheme: "bearer",
          description:
            "The control plane's WHILLY_ADMIN_TOKEN, or a read-only token from `whilly token create --read-only`; not needed when the control plane sets WHILLY_PUBLIC_READ=1.",
        },
      },
    },
  };
}

function operationObject(op: Operation): Record<string, unknown> {
  const parameters = [
    ...[...op.path.matchAll(/\{(\w+)\}/g)].map(([, name = ""]) => ({
      name,
      in: "path",
      required: true,
      description: PATH_PARAMETER_TEXT[name] ?? name,
      schema: { type: "string", minLength: 1 },
    })),
    ...(op.query ?? []).map((q) => ({
      name: q.name,
      in: "query",
      required: false,
      description: q.description,
      schema:
        q.pattern === undefined
          ? {
              type: "integer",
              minimum: q.minimum ?? 0,
              ...(q.maximum === undefined ? {} : { maximum: q.maximum }),
            }
          : { type: "string", pattern: q.pattern },
    })),
  ];
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(op.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.stream
        ? { content: { "text/event-stream": { schema: { type: "string" } } } }
        : response.body === undefined
          ? {}
          : { content: { "application/json": { schema: ref(response.body) } } }),
    };
  }
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(op.request === undefined
      ? {}
      : { requestBody: { required: true, content: { "application/json": { schema: ref(op.request) } } } }),
    responses,
    security: [...SECURITY[op.auth], ...(takesSessionCookie(op) ? [{ sessionCookie: [] }] : [])],
  };
}

/** The read API's GET routes also take the browser's session cookie (a read credential only). */
function takesSessionCookie(op: Operation): boolean {
  return op.method === "get" && op.path.startsWith("/api/v1/") && op.auth.startsWith("reader");
}

/** Each credential kind as OpenAPI security requirements (alternatives). */
const SECURITY: Record<OperationAuth, Record<string, string[]>[]> = {
  none: [],
  worker: [{ workerBearer: [] }],
  bootstrap: [{ bootstrapToken: [] }],
  reader: [{ readToken: [] }],
  reader_or_worker: [{ readToken: [] }, { workerBearer: [] }],
  reader_or_oidc: [{ readToken: [] }, { githubOidc: [] }],
  plan_writer: [{ adminToken: [] }, { githubOidc: [] }],
  admin: [{ adminToken: [] }],
  sign_in_code: [],
};
