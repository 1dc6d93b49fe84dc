import { describe, expect, it } from "vitest";
import { RpcError } from "../jsonrpc/index.js";
import { cursorAfter, pageOf, startAfter } from "./index.js";

const items = ["a", "b", "c", "d", "e"].map((name) => ({ name }));

describe("pageOf", () => {
  it("pages from the start, with a cursor while more remain and none after the last page", () => {
    const first = pageOf(items, 2);
    expect(first).toEqual({ items: [{ name: "a" }, { name: "b" }], nextCursor: cursorAfter("b") });
    const second = pageOf(items, 2, first.nextCursor);
    expect(second.items.map((i) => i.name)).toEqual(["c", "d"]);
    expect(pageOf(items, 2, second.nextCursor)).toEqual({ items: [{ name: "e" }] });
    // A page that ends exactly at the end has no cursor either.
    expect(pageOf(items, 5)).toEqual({ items });
  });

  it("goes on after the cursor's name even when that item has gone meanwhile", () => {
    const withoutC = items.filter((i) => i.name !== "c");
    expect(pageOf(withoutC, 10, cursorAfter("c")).items.map((i) => i.name)).toEqual(["d", "e"]);
    expect(pageOf(items, 10, cursorAfter("z"))).toEqual({ items: [] });
  });
});

describe("startAfter", () => {
  it("refuses a cursor it did not give with -32602", () => {
    for (const cursor of ["not-a-cursor", btoa("[1]"), btoa(JSON.stringify({ after: 3 }))]) {
      expect(() => startAfter(items, cursor)).toThrow(RpcError);
      try {
        startAfter(items, cursor);
      } catch (thrown) {
        expect((thrown as RpcError).code).toBe(-32602);
      }
    }
  });
});
