// headingd — HeadingKitGPSD tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import HeadingKitGPSD
import Testing

struct GPSDEndpointTests {
    @Test(arguments: [
        ("gpsd://127.0.0.1:2947", GPSDEndpoint(host: "127.0.0.1", port: 2947)),
        ("gpsd://boat.local", GPSDEndpoint(host: "boat.local", port: 2947)),
        ("gpsd://:3000", GPSDEndpoint(host: "127.0.0.1", port: 3000)),
        ("gpsd://10.0.0.2:2948/dev/ttyUSB0", GPSDEndpoint(host: "10.0.0.2", port: 2948, device: "/dev/ttyUSB0")),
        ("gpsd://[::1]:2947/dev/gps0", GPSDEndpoint(host: "::1", port: 2947, device: "/dev/gps0")),
        ("gpsd://[fe80::1]", GPSDEndpoint(host: "fe80::1", port: 2947)),
    ])
    func parsesHostPortAndDevice(text: String, expected: GPSDEndpoint) {
        #expect(GPSDEndpoint(text) == expected)
    }

    @Test(arguments: ["gpsd:/127.0.0.1", "tcp://127.0.0.1:2947", "gpsd://host:0", "gpsd://host:65536", "gpsd://host:port",
        "gpsd://[::1", "gpsd://[::1]x", "gpsd://bad host", "gpsd://host:", "gpsd:///run/gpsd.sock", "gpsd:///"])
    func refusesAnythingElse(text: String) {
        #expect(GPSDEndpoint(text) == nil)
    }

    @Test func aSocketPathIsRefusedWithTheReason() {
        #expect(throws: GPSDEndpoint.ParseError.self) { try GPSDEndpoint(parsing: "gpsd:///run/gpsd.sock") }
        do {
            _ = try GPSDEndpoint(parsing: "gpsd:///run/gpsd.sock")
        } catch {
            #expect(error.reason.contains("gpsd's is its control socket, not for clients"))
        }
    }

    @Test func descriptionIsTheURL() {
        #expect(GPSDEndpoint.default.description == "gpsd://127.0.0.1:2947")
        #expect(GPSDEndpoint(host: "::1", port: 2948, device: "/dev/ttyS0").description == "gpsd://[::1]:2948/dev/ttyS0")
    }
}

struct ReconnectBackoffTests {
    @Test func doublesFromAQuarterSecondToFiveSeconds() {
        var backoff = ReconnectBackoff(jitter: 0)
        var generator = SystemRandomNumberGenerator()
        let delays = (0..<8).map { _ in backoff.nextDelay(using: &generator) }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 5, 5, 5])
        backoff.reset()
        #expect(backoff.nextDelay(using: &generator) == 0.25)
    }

    @Test func jitterStaysWithinItsFractionAndTheCap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var backoff = ReconnectBackoff()
            let first = backoff.nextDelay(using: &generator)
            #expect(first >= 0.2 && first <= 0.3)
            for _ in 0..<10 { #expect(backoff.nextDelay(using: &generator) <= 5) }
        }
    }

    @Test func jitterSpreadsClientsApart() {
        var generator = SystemRandomNumberGenerator()
        let firsts = Set((0..<50).map { _ in
            var backoff = ReconnectBackoff()
            return backoff.nextDelay(using: &generator)
        })
        #expect(firsts.count > 40)
    }
}
