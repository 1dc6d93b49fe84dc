import { describe, expect, it } from "vitest";
import { accessOf } from "../../identity/auth/access.js";
import { skillDocOf as skillDoc } from "../../../test/support/skill-doc.js";
import { RegistryView } from "../../registry/deployments/snapshot.js";
import { GRANT_CATALOGS_KEPT, catalogFor } from "./catalog.js";

describe("catalogFor", () => {
  const view = RegistryView.of(1, new Map(["a.one", "a.two", "b.one"].map((name) => [name, skillDoc(name)])), new Set());
  const grantsFor = (i: number) => accessOf({ skills: ["a.*", `unused.${i}`], tags: [], groups: [] });

  it("lists the skills the grants allow, and reuses the list for the same grants", () => {
    const first = catalogFor(view, grantsFor(0));
    expect(first.map((s) => s.name)).toEqual(["a.one", "a.two"]);
    expect(catalogFor(view, grantsFor(0))).toBe(first);
  });

  it(`keeps at most ${GRANT_CATALOGS_KEPT} lists per view, forgetting the oldest first`, () => {
    const first = catalogFor(view, grantsFor(1_000));
    for (let i = 1; i <= GRANT_CATALOGS_KEPT; i++) catalogFor(view, grantsFor(1_000 + i));
    const newest = catalogFor(view, grantsFor(1_000 + GRANT_CATALOGS_KEPT));
    expect(catalogFor(view, grantsFor(1_000 + GRANT_CATALOGS_KEPT))).toBe(newest); // still kept
    const again = catalogFor(view, grantsFor(1_000));
    expect(again).not.toBe(first); // forgotten, and built again: the same skills
    expect(again).toEqual(first);
  });
});
