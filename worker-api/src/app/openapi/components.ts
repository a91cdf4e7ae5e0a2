import {
  claimRequestSchema,
  claimResponseSchema,
  completeRequestSchema,
  createPlanResponseSchema,
  errorEnvelopeSchema,
  failRequestSchema,
  healthResponseSchema,
  heartbeatRequestSchema,
  heartbeatResponseSchema,
  planDetailResponseSchema,
  planEventsResponseSchema,
  planFileSchema,
  planListResponseSchema,
  planTasksResponseSchema,
  redeemRequestSchema,
  redeemResponseSchema,
  registerRequestSchema,
  registerResponseSchema,
  releaseRequestSchema,
  sessionResponseSchema,
  startRequestSchema,
  taskDetailResponseSchema,
  taskEventRequestSchema,
  taskEventResponseSchema,
  taskResponseSchema,
  workerListResponseSchema,
  workersPauseResponseSchema,
} from "@whilly/core";

/** A JSON Schema (draft 2020-12) object, as OpenAPI 3.1 embeds it. */
export type JsonSchema = { [key: string]: unknown };

/** The zod schemas the document names, by component name. The wire schemas stay the single source. */
const SCHEMAS = {
  ErrorEnvelope: errorEnvelopeSchema,
  HealthResponse: healthResponseSchema,
  RegisterRequest: registerRequestSchema,
  RegisterResponse: registerResponseSchema,
  HeartbeatRequest: heartbeatRequestSchema,
  HeartbeatResponse: heartbeatResponseSchema,
  ClaimRequest: claimRequestSchema,
  ClaimResponse: claimResponseSchema,
  StartRequest: startRequestSchema,
  CompleteRequest: completeRequestSchema,
  FailRequest: failRequestSchema,
  ReleaseRequest: releaseRequestSchema,
  TaskResponse: taskResponseSchema,
  TaskEventRequest: taskEventRequestSchema,
  TaskEventResponse: taskEventResponseSchema,
  PlanListResponse: planListResponseSchema,
  PlanDetailResponse: planDetailResponseSchema,
  PlanTasksResponse: planTasksResponseSchema,
  PlanEventsResponse: planEventsResponseSchema,
  PlanFile: planFileSchema,
  CreatePlanResponse: createPlanResponseSchema,
  WorkersPauseResponse: workersPauseResponseSchema,
  WorkerListResponse: workerListResponseSchema,
  TaskDetailResponse: taskDetailResponseSchema,
  SessionResponse: sessionResponseSchema,
  RedeemRequest: redeemRequestSchema,
  RedeemResponse: redeemResponseSchema,
} as const;

/** A component name of {@link componentSchemas}. */
export type ComponentName = keyof typeof SCHEMAS;

/** `{ $ref }` to a component schema. */
export function ref(name: ComponentName): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * Every component schema, converted with zod's own JSON Schema output. Shared sub-schemas zod puts in a
 * schema's local `$defs` (the recursive JSON value of `detail`, for one) are lifted to components named
 * `<Component>_<def>` and their `$ref`s rewritten, because a `#/$defs/...` pointer inside an OpenAPI
 * document would resolve against the document's root, not the schema.
 * Input mode: request schemas keep `additionalProperties: false` (they are strict), while response
 * objects stay open so a client tolerates fields added later.
 */
export function componentSchemas(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    const {
      $schema: _dialect,
      $defs,
      ...body
    } = schema.toJSONSchema({
      target: "draft-2020-12",
      io: "input",
      unrepresentable: "any",
    }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    const rename = (def: string) => `#/components/schemas/${name}_${def}`;
    out[name] = rewriteRefs(body, rename) as JsonSchema;
    for (const [def, defSchema] of Object.entries($defs ?? {})) {
      out[`${name}_${def}`] = rewriteRefs(defSchema, rename) as JsonSchema;
    }
  }
  return out;
}

function rewriteRefs(value: unknown, rename: (def: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rename));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const local = key === "$ref" && typeof item === "string" ? /^#\/\$defs\/(.+)$/.exec(item) : null;
    out[key] = local?.[1] !== undefined ? rename(local[1]) : rewriteRefs(item, rename);
  }
  return out;
}
