import { describe, expect, it } from "vitest";
import { type WranglerConfig, dispatchedBindingsRefusal } from "./wrangler-config.js";

/** A configuration as wrangler normalizes it: absent bindings are empty lists and objects. */
const normalized = (extra: Record<string, unknown> = {}) =>
  ({
    name: "skill-x",
    vars: { A: "1" },
    services: [],
    durable_objects: { bindings: [] },
    mtls_certificates: [],
    queues: { producers: [], consumers: [] },
    ...extra,
  }) as WranglerConfig;

describe("dispatchedBindingsRefusal", () => {
  it("lets a dispatched skill bind its vars and the gateway, nothing else", () => {
    expect(dispatchedBindingsRefusal(normalized({ services: [{ binding: "GATEWAY", service: "gw" }] }), "gw")).toBeUndefined();
  });

  it("refuses what the outbound Worker cannot see (Durable Objects, mTLS certificates) and every other way out", () => {
    expect(dispatchedBindingsRefusal(normalized({ durable_objects: { bindings: [{ name: "D", class_name: "D" }] } }), "gw")).toMatch(
      /^it declares durable_objects/,
    );
    expect(dispatchedBindingsRefusal(normalized({ mtls_certificates: [{ binding: "C", certificate_id: "x" }] }), "gw")).toMatch(/mtls_certificates/);
    expect(dispatchedBindingsRefusal(normalized({ browser: { binding: "B" } }), "gw")).toMatch(/browser/);
    expect(dispatchedBindingsRefusal(normalized({ services: [{ binding: "S", service: "other" }] }), "gw")).toMatch(/a service binding to other/);
    expect(dispatchedBindingsRefusal(normalized({ worker_loaders: [{ binding: "L" }] }), "gw")).toMatch(/worker_loaders/);
  });
});
