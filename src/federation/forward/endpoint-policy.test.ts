import { describe, expect, it } from "vitest";
import { endpointRefusal } from "./endpoint-policy.js";

const deployed = { allowPrivate: false };
const local = { allowPrivate: true };

describe("endpointRefusal", () => {
  it("takes https URLs of public hosts", () => {
    for (const url of ["https://skill.example.workers.dev/", "https://8.8.8.8/", "https://[2606:4700::1]:8443/x"])
      expect(endpointRefusal(url, deployed), url).toBeUndefined();
  });

  it("refuses plain http, credentials and every non-public address however it is spelled", () => {
    const refused = [
      "http://skill.example.com/",
      "https://user:pass@skill.example.com/",
      "https://127.0.0.1/",
      "https://2130706433/",
      "https://0x7f.1/",
      "https://017700000001/",
      "https://10.0.0.1/",
      "https://172.16.0.1/",
      "https://192.168.1.1/",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://169.254.169.254/",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::ffff:a9fe:a9fe]/",
      "https://[fe80::1]/",
      "https://[fc00::1]/",
      "https://[64:ff9b::7f00:1]/",
      "https://[2002:7f00:1::]/",
      "https://localhost/",
      "https://api.localhost/",
      "https://printer.local/",
      "https://db.internal/",
      "https://metadata/",
      "https://localhost./",
    ];
    for (const url of refused) expect(endpointRefusal(url, deployed), url).toMatch(/./);
  });

  it("allows http and loopback in local development, never credentials", () => {
    expect(endpointRefusal("http://127.0.0.1:8799/", local)).toBeUndefined();
    expect(endpointRefusal("http://user:pw@127.0.0.1:8799/", local)).toMatch(/credentials/);
    expect(endpointRefusal("ftp://127.0.0.1/", local)).toMatch(/https/);
  });
});
