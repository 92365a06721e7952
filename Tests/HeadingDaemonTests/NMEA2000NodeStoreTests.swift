// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import HeadingDaemon

/// The NMEA 2000 node's NAME and address, kept across restarts (issue 39).
struct NMEA2000NodeStoreTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("n2k-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func madeOnceKeptAndTheAddressFollowsAMove() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = NMEA2000NodeStore(directory: StateDirectory(path: directory.path), defaultAddress: 35, uniqueNumber: { 0x1234 })
        #expect(first.state == .init(uniqueNumber: 0x1234, address: 35))
        #expect(first.note?.contains("unique number is 4660, kept in") == true && first.damage == nil)
        try first.keep(address: 36)
        let second = NMEA2000NodeStore(directory: StateDirectory(path: directory.path + ":/elsewhere"), defaultAddress: 35, uniqueNumber: { Issue.record("made again"); return 1 })
        #expect(second.state == .init(uniqueNumber: 0x1234, address: 36))
        #expect(second.note == nil && second.damage == nil)
    }

    @Test("A damaged file is set aside and a new state made", arguments: [
        "", "{", "{\"uniqueNumber\": 2097151, \"address\": 3}", "{\"uniqueNumber\": 5, \"address\": 252}", "{\"uniqueNumber\": -1, \"address\": 3}",
        String(repeating: " ", count: 5000) + "{\"uniqueNumber\": 5, \"address\": 3}",
    ])
    func aDamagedFileIsSetAside(content: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(NMEA2000NodeStore.fileName)
        try Data(content.utf8).write(to: file)
        let store = NMEA2000NodeStore(directory: StateDirectory(path: directory.path), defaultAddress: 35, uniqueNumber: { 77 })
        #expect(store.state == .init(uniqueNumber: 77, address: 35))
        #expect(store.damage?.contains("moved aside to \(file.path).damaged-") == true, "\(store.damage ?? "")")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix(NMEA2000NodeStore.fileName + ".damaged-") })
        #expect(NMEA2000NodeStore(directory: StateDirectory(path: directory.path), defaultAddress: 0, uniqueNumber: { 1 }).state.uniqueNumber == 77, "the new one kept")
    }

    @Test func withoutAStateDirectoryItSaysSo() throws {
        let store = NMEA2000NodeStore(directory: StateDirectory(path: nil), defaultAddress: 35, uniqueNumber: { 9 })
        #expect(store.state == .init(uniqueNumber: 9, address: 35) && store.path == nil)
        #expect(store.note?.contains("not kept") == true)
        try store.keep(address: 40)  // nothing to write: no error
        let unwritable = NMEA2000NodeStore(directory: StateDirectory(path: "/proc/headingd-no-such"), defaultAddress: 35, uniqueNumber: { 9 })
        #expect(unwritable.note?.contains("cannot keep the node's state") == true)
    }
}
