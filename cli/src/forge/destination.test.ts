import { ConfigurationError, redactSecrets } from "@whilly/core";
import { describe, expect, it } from "vitest";
import { controlPlaneDestination } from "./destination.js";

describe("controlPlaneDestination", () => {
  it("names both credential variables when neither is set, in words the printed error's redaction keeps", () => {
    let thrown: unknown;
    try {
      controlPlaneDestination("http://127.0.0.1:8765", {});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigurationError);
    const printed = redactSecrets((thrown as Error).message);
    expect(printed).toContain("WHILLY_OIDC_TOKEN");
    expect(printed).toContain("WHILLY_ADMIN_TOKEN");
  });
});
