import { InputError, defineSkill, z } from "../../src/skill/index.js";
import { decodeFrame, parseHex } from "./modbus.js";

export default defineSkill({
  name: "modbus.decode",
  version: "1.0.0",
  description:
    "Decode one Modbus RTU frame given as hex (e.g. from a serial sniffer or a meter log): slave address, function, start address/quantity, register or coil values, exception code, and whether the CRC-16 checks out. role=auto infers request vs response.",
  tags: ["protocol.modbus", "grid.modbus", "industrial.decode"],
  input: z.object({
    frame: z
      .string()
      .min(8)
      .max(1_024)
      .refine((s) => parseHex(s) !== undefined, 'frame must be hex bytes, e.g. "01 03 00 00 00 0A C5 CD"')
      .describe("The RTU frame as hex, spaces optional, CRC included"),
    role: z.enum(["auto", "request", "response"]).default("auto").describe("Who sent the frame"),
  }),
  output: z.object({
    slave: z.number().int(),
    functionCode: z.number().int(),
    function: z.string(),
    role: z.enum(["request", "response", "either"]),
    exception: z.object({ code: z.number().int(), name: z.string() }).nullable(),
    fields: z.object({
      startAddress: z.number().int().optional(),
      quantity: z.number().int().optional(),
      byteCount: z.number().int().optional(),
      registers: z.array(z.number().int()).optional(),
      coils: z.array(z.boolean()).optional(),
      address: z.number().int().optional(),
      value: z.number().int().optional(),
      coilOn: z.boolean().optional(),
      raw: z.string().optional(),
    }),
    crc: z.object({ received: z.string(), computed: z.string(), valid: z.boolean() }),
    problems: z.array(z.string()),
    valid: z.boolean(),
  }),
  idempotent: true,
  // Released (1.0.0) before inputs were strict: its contract stays open; the next major may drop this.
  strictInput: false,
  timeoutMs: 2_000,
  handler: ({ frame, role }) => {
    const bytes = parseHex(frame)!;
    if (bytes.length < 4) throw new InputError(`a Modbus RTU frame has at least 4 bytes; got ${bytes.length}`);
    return decodeFrame(bytes, role);
  },
});
