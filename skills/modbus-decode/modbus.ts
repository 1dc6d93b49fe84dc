/**
 * Modbus RTU frame decoding (Modbus Application Protocol v1.1b3 and Modbus over Serial Line
 * v1.02): slave address, function, the function's fields for requests and responses, exception
 * responses, and the CRC-16/MODBUS check.
 */

export type Role = "request" | "response";

export interface DecodedFrame {
  slave: number;
  functionCode: number;
  function: string;
  /** What the frame was decoded as; `either` for the write-single functions (the response echoes the request). */
  role: Role | "either";
  exception: { code: number; name: string } | null;
  fields: {
    startAddress?: number;
    quantity?: number;
    byteCount?: number;
    registers?: number[];
    coils?: boolean[];
    address?: number;
    value?: number;
    coilOn?: boolean;
    raw?: string;
  };
  crc: { received: string; computed: string; valid: boolean };
  /** Structural problems (wrong lengths, counts that do not match); empty for a good frame. */
  problems: string[];
  valid: boolean;
}

export const FUNCTION_NAMES: Record<number, string> = {
  0x01: "Read Coils",
  0x02: "Read Discrete Inputs",
  0x03: "Read Holding Registers",
  0x04: "Read Input Registers",
  0x05: "Write Single Coil",
  0x06: "Write Single Register",
  0x07: "Read Exception Status",
  0x08: "Diagnostics",
  0x0f: "Write Multiple Coils",
  0x10: "Write Multiple Registers",
  0x11: "Report Server ID",
  0x16: "Mask Write Register",
  0x17: "Read/Write Multiple Registers",
};

export const EXCEPTION_NAMES: Record<number, string> = {
  0x01: "Illegal Function",
  0x02: "Illegal Data Address",
  0x03: "Illegal Data Value",
  0x04: "Server Device Failure",
  0x05: "Acknowledge",
  0x06: "Server Device Busy",
  0x08: "Memory Parity Error",
  0x0a: "Gateway Path Unavailable",
  0x0b: "Gateway Target Device Failed to Respond",
};

/**
 * CRC-16/MODBUS (poly 0xA001 reflected, init 0xFFFF) of the bytes.
 * @example crc16Modbus(Uint8Array.of(0x01, 0x03, 0x00, 0x00, 0x00, 0x0a)) // 0xcdc5 (sent as C5 CD)
 */
export function crc16Modbus(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/**
 * Parses hex text ("01 03 00 00", "0x01,0x03", "010300") into bytes; undefined if it is not hex.
 * @example parseHex("01 03") // Uint8Array [1, 3]
 */
export function parseHex(text: string): Uint8Array | undefined {
  const compact = text.replace(/0x/gi, "").replace(/[\s,:-]/g, "");
  if (!/^(?:[0-9a-f]{2})*$/i.test(compact)) return undefined;
  return Uint8Array.from(compact.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

const hex16 = (n: number) => `0x${n.toString(16).padStart(4, "0")}`;
const hexBytes = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join(" ");
const u16 = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;

function bits(bytes: Uint8Array): boolean[] {
  return [...bytes].flatMap((byte) => Array.from({ length: 8 }, (_, i) => ((byte >> i) & 1) === 1));
}

/**
 * Decodes one RTU frame (address, PDU, CRC low byte first). `role` says which side sent it;
 * `auto` infers it from the lengths (a read request is always 4 data bytes).
 * Throws on a frame shorter than 4 bytes (nothing to decode).
 * @example decodeFrame(parseHex("01 03 00 00 00 0a c5 cd")!).fields // { startAddress: 0, quantity: 10 }
 */
export function decodeFrame(frame: Uint8Array, role: Role | "auto" = "auto"): DecodedFrame {
  if (frame.length < 4) throw new RangeError(`a Modbus RTU frame has at least 4 bytes (address, function, CRC); got ${frame.length}`);
  const slave = frame[0]!;
  const functionCode = frame[1]!;
  const data = frame.subarray(2, frame.length - 2);
  const received = frame[frame.length - 2]! | (frame[frame.length - 1]! << 8);
  const computed = crc16Modbus(frame.subarray(0, frame.length - 2));
  const problems: string[] = [];
  const out: DecodedFrame = {
    slave,
    functionCode,
    function: FUNCTION_NAMES[functionCode & 0x7f] ?? `Function 0x${(functionCode & 0x7f).toString(16)}`,
    role: role === "auto" ? "request" : role,
    exception: null,
    fields: {},
    crc: { received: hex16(received), computed: hex16(computed), valid: received === computed },
    problems,
    valid: false,
  };
  if (!out.crc.valid) problems.push(`CRC mismatch: frame carries ${hex16(received)}, bytes give ${hex16(computed)}`);

  if (functionCode & 0x80) {
    out.role = "response";
    const code = data[0];
    if (data.length !== 1 || code === undefined) problems.push(`an exception response has 1 data byte; got ${data.length}`);
    else out.exception = { code, name: EXCEPTION_NAMES[code] ?? `Exception 0x${code.toString(16)}` };
  } else {
    decodeFields(out, data, role, problems);
  }
  out.valid = problems.length === 0;
  return out;
}

function decodeFields(out: DecodedFrame, data: Uint8Array, role: Role | "auto", problems: string[]): void {
  const fc = out.functionCode;
  const needs = (n: number) => {
    if (data.length !== n) problems.push(`${out.function} ${out.role} has ${n} data bytes; got ${data.length}`);
    return data.length >= n;
  };
  if (fc >= 0x01 && fc <= 0x04) {
    const isResponse = role === "response" || (role === "auto" && data.length !== 4);
    out.role = isResponse ? "response" : "request";
    if (!isResponse) {
      if (needs(4)) Object.assign(out.fields, { startAddress: u16(data, 0), quantity: u16(data, 2) });
      return;
    }
    const byteCount = data[0] ?? 0;
    const payload = data.subarray(1);
    out.fields.byteCount = byteCount;
    if (payload.length !== byteCount) problems.push(`byte count says ${byteCount} bytes; ${payload.length} follow`);
    if (fc <= 0x02) out.fields.coils = bits(payload);
    else {
      if (payload.length % 2) problems.push("register data has an odd number of bytes");
      out.fields.registers = Array.from({ length: payload.length >> 1 }, (_, i) => u16(payload, i * 2));
    }
    return;
  }
  if (fc === 0x05 || fc === 0x06) {
    out.role = role === "auto" ? "either" : role;
    if (!needs(4)) return;
    out.fields.address = u16(data, 0);
    out.fields.value = u16(data, 2);
    if (fc === 0x05) {
      if (out.fields.value !== 0xff00 && out.fields.value !== 0x0000) problems.push("a coil value must be 0xFF00 (on) or 0x0000 (off)");
      out.fields.coilOn = out.fields.value === 0xff00;
    }
    return;
  }
  if (fc === 0x0f || fc === 0x10) {
    const isRequest = role === "request" || (role === "auto" && data.length !== 4);
    out.role = isRequest ? "request" : "response";
    if (!isRequest) {
      if (needs(4)) Object.assign(out.fields, { startAddress: u16(data, 0), quantity: u16(data, 2) });
      return;
    }
    if (data.length < 5) return void problems.push(`${out.function} request needs at least 5 data bytes; got ${data.length}`);
    const quantity = u16(data, 2);
    const byteCount = data[4]!;
    const payload = data.subarray(5);
    Object.assign(out.fields, { startAddress: u16(data, 0), quantity, byteCount });
    if (payload.length !== byteCount) problems.push(`byte count says ${byteCount} bytes; ${payload.length} follow`);
    if (fc === 0x0f) out.fields.coils = bits(payload).slice(0, quantity);
    else {
      out.fields.registers = Array.from({ length: payload.length >> 1 }, (_, i) => u16(payload, i * 2));
      if (out.fields.registers.length !== quantity) problems.push(`quantity says ${quantity} registers; ${out.fields.registers.length} follow`);
    }
    return;
  }
  out.fields.raw = hexBytes(data);
}
