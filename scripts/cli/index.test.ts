import { describe, expect, it } from "vitest";
import { optionOf, runCli } from "./index.js";

describe("optionOf", () => {
  it("names a request field by the option it comes from", () => {
    expect(optionOf(["name"])).toBe("--name");
    expect(optionOf(["maxErrorRate"])).toBe("--max-error-rate");
    expect(optionOf(["steps", 1])).toBe("--steps (item 2)");
  });
  it("keeps a field that no option sets, and names the whole request when there is no path", () => {
    expect(optionOf(["routes", "beta"])).toBe("routes.beta");
    expect(optionOf([])).toBe("request");
  });
});

describe("a request the admin API's schema refuses", () => {
  const refusal = (...argv: string[]) =>
    runCli(argv, { env: { SKILLMESH_ADMIN_TOKEN: "x" }, out: () => {}, fetch: () => Promise.reject(new Error("nothing is sent")) }).then(
      () => "sent",
      (error: Error) => error.message,
    );
  it("is named by the option typed, and a missing one says so", async () => {
    expect(await refusal("keys", "create")).toBe("--name: missing");
    expect(await refusal("rollout", "x", "1.0.0", "--steps", "5,500", "--every", "5m", "--max-error-rate", "1%")).toBe(
      "--steps (item 2): Too big: expected number to be <=100",
    );
  });
});
