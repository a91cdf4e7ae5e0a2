import { Hono } from "hono";
import { buildOpenApiDocument } from "../openapi/document.js";

/** `GET /openapi.json`: the OpenAPI 3.1 document of every route, body and error. For readers only, as the read API. */
export function openApiRoutes() {
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  return new Hono().get("/", (c) => {
    document ??= buildOpenApiDocument();
    return c.json(document);
  });
}
