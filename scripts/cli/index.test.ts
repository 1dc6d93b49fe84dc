import { describe, expect, it } from "vitest";
import { optionOf } from "./index.js";

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
