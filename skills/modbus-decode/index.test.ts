import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";
import { crc16Modbus, decodeFrame, parseHex } from "./modbus.js";

/** Appends the CRC (low byte first) to a frame body given as hex. */
function withCrc(hex: string): string {
  const body = parseHex(hex)!;
  const crc = crc16Modbus(body);
  return `${hex} ${(crc & 0xff).toString(16).padStart(2, "0")} ${(crc >> 8).toString(16).padStart(2, "0")}`;
}

describe("crc16Modbus", () => {
  it("matches the reference frames of the Modbus specification", () => {
    expect(crc16Modbus(parseHex("11 03 00 6B 00 03")!)).toBe(0x8776);
    expect(crc16Modbus(parseHex("01 03 00 00 00 0A")!)).toBe(0xcdc5);
  });
});

describe("decodeFrame", () => {
  it("decodes a read-holding-registers request", () => {
    const frame = decodeFrame(parseHex("11 03 00 6B 00 03 76 87")!);
    expect(frame).toMatchObject({ slave: 17, functionCode: 3, function: "Read Holding Registers", role: "request", valid: true });
    expect(frame.fields).toEqual({ startAddress: 0x6b, quantity: 3 });
  });

  it("decodes the matching response's register values", () => {
    const frame = decodeFrame(parseHex(withCrc("11 03 06 02 2B 00 00 00 64"))!);
    expect(frame.role).toBe("response");
    expect(frame.fields).toEqual({ byteCount: 6, registers: [555, 0, 100] });
    expect(frame.valid).toBe(true);
  });

  it("flags a corrupted CRC but still decodes the fields", () => {
    const frame = decodeFrame(parseHex("11 03 00 6B 00 03 76 88")!);
    expect(frame.crc).toEqual({ received: "0x8876", computed: "0x8776", valid: false });
    expect(frame.valid).toBe(false);
    expect(frame.fields.quantity).toBe(3);
  });

  it("decodes exception responses", () => {
    const frame = decodeFrame(parseHex(withCrc("0A 83 02"))!);
    expect(frame).toMatchObject({ role: "response", exception: { code: 2, name: "Illegal Data Address" }, valid: true });
  });

  it("decodes coils LSB first, and write-multiple requests and responses", () => {
    expect(decodeFrame(parseHex(withCrc("01 01 01 05"))!).fields.coils?.slice(0, 4)).toEqual([true, false, true, false]);
    const write = decodeFrame(parseHex(withCrc("01 10 00 01 00 02 04 00 0A 01 02"))!);
    expect(write).toMatchObject({ role: "request", fields: { startAddress: 1, quantity: 2, byteCount: 4, registers: [10, 258] }, valid: true });
    expect(decodeFrame(parseHex(withCrc("01 10 00 01 00 02"))!)).toMatchObject({ role: "response", fields: { startAddress: 1, quantity: 2 } });
  });

  it("reports a byte count that does not match the data", () => {
    const frame = decodeFrame(parseHex(withCrc("01 03 04 00 01"))!);
    expect(frame.valid).toBe(false);
    expect(frame.problems).toContain("byte count says 4 bytes; 2 follow");
  });

  it("refuses frames too short to hold an address, a function and a CRC", () => {
    expect(() => decodeFrame(Uint8Array.of(1, 3, 0))).toThrow(RangeError);
  });
});

describe("modbus.decode Worker (workerd)", () => {
  let skill: RunningSkill;
  beforeAll(async () => (skill = await startSkill("skills/modbus-decode")));
  afterAll(() => skill?.dispose());

  it("decodes a frame sent by name or by position", async () => {
    const byName = await skill.call({ frame: "11 03 00 6B 00 03 76 87" });
    const byPosition = await skill.call(["11 03 00 6B 00 03 76 87", "request"]);
    expect(byName.result).toMatchObject({ slave: 17, fields: { startAddress: 107, quantity: 3 }, crc: { valid: true } });
    expect(byPosition.result).toEqual(byName.result);
  });

  it("answers -32602 with the issue for text that is not hex", async () => {
    const answer = await skill.call({ frame: "hello world!" });
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.data.issues[0]).toMatchObject({ path: "frame" });
    expect(answer.error.data.issues[0].message).toMatch(/hex/);
  });
});
