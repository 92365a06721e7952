// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// Which sentences of a feed a source takes: its instrument on a multiplexer that carries several.
///
/// `talkers` are two-letter talker IDs (`HE` a gyrocompass, `HC` a magnetic compass, `GP`/`GN` a
/// GNSS); `sentences` are sentence types (`HDT`, `THS`), proprietary addresses (`PASHR`, `PSSN`)
/// or Unicore logs (`UNIHEADINGA`). Either may be empty, which takes every one. A proprietary
/// sentence or a Unicore log has no talker: a selection that names talkers leaves them out.
///
/// Sentences a source does not take still give it their context when they carry one — the date,
/// the time and the position of an `RMC` or `ZDA` — so a gyro selected by talker still gets the
/// position the World Magnetic Model needs; they never give it a heading or a fault.
///
/// On an NMEA 2000 bus (CAN frames, a gateway's text, a CAN recording), `device` chooses the
/// device whose headings are taken; the bus's position, variation and time are context from any.
public struct NMEASentenceSelection: Sendable, Hashable, CustomStringConvertible {
    /// Talker IDs taken, upper case; empty for every talker.
    public let talkers: [String]
    /// Sentence types taken, upper case; empty for every type.
    public let sentences: [String]
    /// The NMEA 2000 device whose headings are taken. Default: the first heard.
    public let device: NMEA2000DeviceSelection
    private let talkerBytes: [UInt16]
    private let sentenceBytes: [[UInt8]]

    /// Every sentence.
    public static let all = NMEASentenceSelection()

    /// Creates a selection.
    /// - Parameters:
    ///   - talkers: Two-letter talker IDs; empty for all.
    ///   - sentences: Sentence types or proprietary addresses; empty for all.
    ///   - device: On an NMEA 2000 bus, the device whose headings are taken. Default: the first heard.
    public init(talkers: [String] = [], sentences: [String] = [], device: NMEA2000DeviceSelection = .firstHeard) {
        self.device = device
        self.talkers = talkers.map { $0.uppercased() }
        self.sentences = sentences.map { $0.uppercased() }
        talkerBytes = self.talkers.compactMap { talker in
            let bytes = Array(talker.utf8)
            return bytes.count == 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil
        }
        sentenceBytes = self.sentences.map { Array($0.utf8) }
    }

    /// Whether it takes every sentence.
    public var isAll: Bool { talkers.isEmpty && sentences.isEmpty }

    /// `talker=HE&sentences=HDT,THS`, or empty for every sentence.
    public var description: String {
        var parts: [String] = []
        if !talkers.isEmpty { parts.append("talker=\(talkers.joined(separator: ","))") }
        if !sentences.isEmpty { parts.append("sentences=\(sentences.joined(separator: ","))") }
        if device != .firstHeard { parts.append(device.description) }
        return parts.joined(separator: "&")
    }

    /// What a line is to a source: taken, context only, or not its own.
    package enum Match {
        case taken, context, other
    }

    /// The address of a line: its talker (0 when it has none) and type.
    package struct Address {
        /// The two talker bytes, first byte high; 0 for proprietary sentences and other lines.
        package var talker: UInt16 = 0
        /// Where the type lies in the line.
        package var type: Range<Int> = 0..<0
    }

    /// Reads a line's talker and type without copying it.
    /// - Parameter line: The line: `$GPHDT,…`, `!…`, `$PSSN,…` or `#UNIHEADINGA,…`.
    /// - Returns: The address; an empty type for a line that has none.
    package static func address(of line: UnsafeBufferPointer<UInt8>) -> Address {
        guard let first = line.first, first == 0x24 || first == 0x21 || first == 0x23 else { return Address() }
        var end = 1
        while end < line.count, end < 24, line[end] != 0x2C, line[end] != 0x2A, line[end] != 0x3B { end += 1 }
        guard end > 1 else { return Address() }
        if first != 0x23, end - 1 >= 5, line[1] != 0x50 {  // not proprietary ('P'): a talker, then the type
            return Address(talker: UInt16(line[1]) << 8 | UInt16(line[2]), type: 3..<end)
        }
        return Address(talker: 0, type: 1..<end)
    }

    /// Whether this selection takes a line.
    /// - Parameters:
    ///   - line: The line.
    ///   - address: Its address (``address(of:)``).
    /// - Returns: ``Match/taken``, ``Match/context`` (an unselected `RMC` or `ZDA`) or ``Match/other``.
    package func match(_ line: UnsafeBufferPointer<UInt8>, address: Address) -> Match {
        if isAll { return .taken }
        let type = UnsafeBufferPointer(rebasing: line[address.type])
        let talkerTaken = talkerBytes.isEmpty || (address.talker != 0 && talkerBytes.contains(address.talker))
        let typeTaken = sentenceBytes.isEmpty || sentenceBytes.contains { $0.elementsEqual(type) }
        if talkerTaken && typeTaken { return .taken }
        let isContext = type.count == 3 && (type.elementsEqual("RMC".utf8) || type.elementsEqual("ZDA".utf8))
        return isContext ? .context : .other
    }
}
