/**
 * src/remote/hosts.ts: every spelling of this machine and of private networks, as `URL` gives the
 * host, is recognized; public hosts and names are not (a name's DNS answer is not checked).
 */
import { describe, expect, it } from "vitest";
import { isLoopback, isPrivateHost } from "../../src/remote/hosts.js";

const host = (url: string) => new URL(url).hostname;

describe("loopback and private hosts by spelling", () => {
  it("knows the Worker's own machine however it is spelled", () => {
    for (const url of ["https://localhost/", "https://LOCALHOST./", "https://foo.localhost./", "https://127.0.0.1/", "https://2130706433/", "https://0x7f.1/", "https://127.1/", "https://[::1]/", "https://[0:0:0:0:0:0:0:1]/", "https://[::ffff:127.0.0.1]/"]) {
      expect([url, isLoopback(host(url)), isPrivateHost(host(url))]).toEqual([url, true, true]);
    }
  });

  it("knows unspecified, private and link-local addresses, also mapped into IPv6", () => {
    for (const url of ["https://0.0.0.0/", "https://0/", "https://[::]/", "https://10.0.0.1/", "https://172.16.0.1/", "https://172.31.255.255/", "https://192.168.1.1/", "https://169.254.169.254/", "https://[fc00::1]/", "https://[fd12:3456::1]/", "https://[fe80::1]/", "https://[febf::1]/", "https://[::ffff:10.0.0.1]/", "https://[::ffff:169.254.169.254]/", "https://100.64.0.1/", "https://100.127.255.254/", "https://[64:ff9b::a9fe:a9fe]/", "https://[2002:c0a8:101::1]/", "https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/"]) {
      expect([url, isPrivateHost(host(url))]).toEqual([url, true]);
    }
  });

  it("calls 127/8 in any IPv6 form but mapped private, not loopback (Linux routes them as IPv6: they cross a network)", () => {
    for (const url of ["https://[64:ff9b::127.0.0.1]/", "https://[64:ff9b:1::7f00:1]/", "https://[2002:7f00:1::]/", "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "https://[::ffff:0:127.0.0.1]/", "https://[::127.0.0.1]/", "https://[::7f00:1]/", "https://[0:0:0:0:ffff:0:7f00:1]/", "https://[::ffff:0:0:7f00:1]/"]) {
      expect([url, isLoopback(host(url)), isPrivateHost(host(url))]).toEqual([url, false, true]);
    }
  });

  it("knows the other ranges IANA marks not globally reachable", () => {
    for (const url of ["https://192.0.2.1/", "https://192.0.0.170/", "https://198.18.0.1/", "https://198.19.255.255/", "https://198.51.100.1/", "https://203.0.113.1/", "https://224.0.0.1/", "https://240.0.0.1/", "https://255.255.255.255/", "https://[fec0::1]/", "https://[100::1]/", "https://[2001:db8::1]/", "https://[2001:2::1]/", "https://[3fff::1]/", "https://[ff02::1]/", "https://[::2]/", "https://[64:ff9b:1::8.8.8.8]/", "https://[64:ff9b:1:a9fe:a9:fe00:808:808]/"]) {
      expect([url, isLoopback(host(url)), isPrivateHost(host(url))]).toEqual([url, false, true]);
    }
  });

  it("knows the special-use names of this machine and local networks", () => {
    for (const url of ["https://ip6-localhost/", "https://ip6-loopback/", "https://localhost.localdomain/", "https://localhost6/", "https://metadata.google.internal/", "https://printer.local/", "https://router.home.arpa/", "https://db.internal/"]) {
      expect([url, isLoopback(host(url)), isPrivateHost(host(url))]).toEqual([url, false, true]);
    }
  });

  it("leaves public addresses and names alone", () => {
    for (const url of ["https://example.com/", "https://8.8.8.8/", "https://172.32.0.1/", "https://172.15.0.1/", "https://192.169.0.1/", "https://[2606:4700::1111]/", "https://1.1.1.1/", "https://192.0.3.1/", "https://198.20.0.1/", "https://223.255.255.255/", "https://[::ffff:8.8.8.8]/", "https://100.63.255.255/", "https://100.128.0.1/", "https://[64:ff9b::8.8.8.8]/", "https://[2002:808:808::1]/", "https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/", "https://[2001:4860::8888]/", "https://localhost.example.com/", "https://127.0.0.1.nip.io/"]) {
      expect([url, isLoopback(host(url)), isPrivateHost(host(url))]).toEqual([url, false, false]);
    }
  });
});
