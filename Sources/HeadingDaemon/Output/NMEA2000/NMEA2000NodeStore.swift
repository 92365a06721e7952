// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// What the NMEA 2000 node keeps across restarts, in the service's state directory
/// (`$STATE_DIRECTORY/nmea2000-node.json`): the unique number of its NAME, made once at random, and
/// the address it last held, claimed first at the next start. A plotter keeps its list of sources
/// by NAME, so a node whose NAME changed at each start would be a new, unknown device each time.
struct NMEA2000NodeStore {
    /// What is kept.
    struct State: Codable, Equatable {
        /// The NAME's unique number: 21 bits, never all ones (some analyzers hide that as a factory default).
        var uniqueNumber: UInt32
        /// The address last held, 0–251.
        var address: UInt8

        /// Whether a file's values may be used.
        var isValid: Bool { uniqueNumber < 0x1F_FFFF && address <= 251 }
    }

    /// The file in the state directory.
    static let fileName = "nmea2000-node.json"

    /// The state: read from the file, or made (and written there) when there is none.
    let state: State
    /// The file, when there is a state directory; `nil` when the state lasts this run only.
    let path: String?
    /// A sentence for the log when the state was made or cannot be kept.
    let note: String?
    /// A sentence for an error when the file was damaged (it is moved aside, never overwritten).
    let damage: String?

    /// Reads or makes the state.
    /// - Parameters:
    ///   - directory: The state directory; nothing is kept when it names none.
    ///   - defaultAddress: The address to claim first when none was kept.
    ///   - uniqueNumber: Makes a new unique number (random; a test's is fixed).
    init(directory: StateDirectory, defaultAddress: UInt8, uniqueNumber: () -> UInt32 = { UInt32.random(in: 1..<0x1F_FFFF) }) {
        guard let file = directory.file(Self.fileName) else {
            state = State(uniqueNumber: uniqueNumber(), address: defaultAddress)
            path = nil
            note = "NMEA 2000: no state directory ($STATE_DIRECTORY): this run's NAME and address are not kept; plotters will see a new device at each start"
            damage = nil
            return
        }
        path = file
        var damaged: String?
        if let handle = FileHandle(forReadingAtPath: file) {
            // Bounded: the file is some 40 bytes; a larger one is no state of ours.
            let data = (try? handle.read(upToCount: 4096)) ?? Data()
            try? handle.close()
            if let kept = try? JSONDecoder().decode(State.self, from: data), kept.isValid {
                state = kept
                note = nil
                damage = nil
                return
            }
            damaged = DamagedFile.setAside(file, found: "NMEA 2000: \(file) holds no node state (damaged?)", then: "a new NAME is made")
        }
        let made = State(uniqueNumber: uniqueNumber(), address: defaultAddress)
        state = made
        damage = damaged
        do {
            try Self.write(made, to: file)
            note = "NMEA 2000: this node's unique number is \(made.uniqueNumber), kept in \(file)"
        } catch {
            note = "NMEA 2000: cannot keep the node's state in \(file) (\(error.localizedDescription)): plotters will see a new device at each start"
        }
    }

    /// Keeps a new address (after a contest moved the node), atomically.
    /// - Parameter address: The address now held.
    /// - Throws: When the file cannot be written.
    func keep(address: UInt8) throws {
        guard let path, address <= 251 else { return }
        try Self.write(State(uniqueNumber: state.uniqueNumber, address: address), to: path)
    }

    private static func write(_ state: State, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try (encoder.encode(state) + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
