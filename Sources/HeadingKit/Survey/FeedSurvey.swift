// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation
package import NMEA2000

/// What a feed was heard to carry, for `headingd scan`: NMEA 0183 sentences by address, the
/// headings among them by talker and kind, and NMEA 2000 devices with the PGNs they send, their
/// NAME and model where heard. Pure and bounded: fed the pieces the sources' own splitters make
/// and decoded by the sources' own decoders; at most ``maximumAddresses`` sentence addresses and
/// ``maximumPGNs`` PGNs a device are kept apart (the rest counted as others).
package struct FeedSurvey: Sendable {
    /// Where a feed's headings come from: a talker (or a proprietary address) and its kind.
    package struct HeadingOrigin: Sendable, Hashable, Comparable {
        /// The talker ID (`HE`), or `nil` for a proprietary sentence.
        package var talker: String?
        /// The sentence address for a proprietary sentence (`PASHR`), else `nil`.
        package var proprietary: String?
        /// The sentence type (`HDT`; a proprietary sentence's whole address).
        package var type: String
        /// The kind the decoder gives (gyro: `inertial`; `gnssCompass`; `compass`; `courseOverGround`).
        package var kind: Heading.Kind
        /// Whether the heading is measured against true north (a magnetic one made true by a
        /// variation given beside it is not).
        package var isTrue: Bool

        package static func < (lhs: HeadingOrigin, rhs: HeadingOrigin) -> Bool {
            (lhs.talker ?? lhs.proprietary ?? "", lhs.type, lhs.kind.rawValue) < (rhs.talker ?? rhs.proprietary ?? "", rhs.type, rhs.kind.rawValue)
        }
    }

    /// One NMEA 2000 device as heard.
    package struct Device: Sendable, Hashable {
        /// Its source address.
        package var address: UInt8
        /// Its NAME, from an address claim heard (a device claims at power-up, or when asked).
        package var name: DeviceName?
        /// Its model, from a Product Information (126996) heard.
        package var model: String?
        /// Messages heard, by PGN.
        package var pgns: [UInt32: Int] = [:]
        /// Messages of PGNs beyond ``FeedSurvey/maximumPGNs``.
        package var otherMessages = 0
        /// Vessel Heading (127250) messages by reference.
        package var trueHeadings = 0
        /// Vessel Heading messages with a magnetic reference.
        package var magneticHeadings = 0
        /// Course over ground (129026) messages with a course.
        package var courses = 0
    }

    /// The most sentence addresses kept apart.
    package static let maximumAddresses = 64
    /// The most PGNs a device kept apart.
    package static let maximumPGNs = 64

    /// Sentences heard, by address (`HEHDT`, `PASHR`).
    package private(set) var sentences: [String: Int] = [:]
    /// Sentences of addresses beyond ``maximumAddresses``.
    package private(set) var otherSentences = 0
    /// Sentences with a right checksum.
    package private(set) var checksummed = 0
    /// Headings (or courses) decoded, by origin.
    package private(set) var headings: [HeadingOrigin: Int] = [:]
    /// Lines that are neither a sentence nor a CAN frame (noise at a wrong rate, a bad checksum).
    package private(set) var unreadable = 0
    /// Lines in a gateway's CAN text (YD RAW, candump) read as frames.
    package private(set) var textFrames = 0
    /// The form of the last such line.
    package private(set) var textFormat: CANTextFormat?
    /// CAN frames heard (SocketCAN, or a gateway's text).
    package private(set) var frames = 0
    /// Whole NMEA 2000 messages (after fast-packet assembly, or from an Actisense gateway).
    package private(set) var messages = 0
    /// NMEA 2000 devices, by address.
    package private(set) var devices: [UInt8: Device] = [:]

    private var assembler = FastPacketAssembler()
    private var textDecoder = CANTextLineDecoder()

    /// An empty survey.
    package init() {}

    /// Whether anything recognisable was heard.
    package var heardAnything: Bool { !sentences.isEmpty || otherSentences > 0 || messages > 0 || frames > 0 }

    /// Takes one piece a feed's splitter made.
    package mutating func take(_ piece: FeedPiece) {
        switch piece {
        case .stream(.line(let line)): take(line: line)
        case .stream(.overlong), .stream(.fragment), .stream(.badFrame), .badFrame: unreadable &+= 1
        case .stream(.ubxFrame): break
        case .canFrame(let frame, _): take(frame: frame)
        case .nmea2000Message(let message): take(message: message)
        }
    }

    /// Takes one line: an NMEA 0183 sentence, or a CAN frame in a gateway's text (YD RAW, candump).
    package mutating func take(line: UnsafeBufferPointer<UInt8>) {
        guard let first = line.first else { return }
        if first == UInt8(ascii: "$") || first == UInt8(ascii: "!") {
            take(sentenceLine: line)
        } else if let format = CANTextFormat.of(line), let decoded = try? textDecoder.decode(line, format: format) {
            textFrames &+= 1
            textFormat = format
            switch decoded.content {
            case .frame(let frame): take(frame: frame)
            case .message(let priority, let pgn, let source, let destination, _):
                let decoder = textDecoder
                decoder.withPayload { payload in
                    take(message: NMEA2000Message(priority: priority, pgn: pgn, source: source, destination: destination, payload: payload))
                }
            }
        } else {
            unreadable &+= 1
        }
    }

    private mutating func take(sentenceLine line: UnsafeBufferPointer<UInt8>) {
        guard let sentence = try? NMEASentence(line) else {
            unreadable &+= 1
            return
        }
        if sentence.hasChecksum { checksummed &+= 1 }
        let address = sentence.address
        if sentences[address] != nil || sentences.count < Self.maximumAddresses {
            sentences[address, default: 0] &+= 1
        } else {
            otherSentences &+= 1
        }
        guard let report = try? NMEADecoder.decode(sentence) else { return }
        let reading: HeadingReading
        switch report.content {
        case .heading(let heading): reading = heading
        case .course(let course, _): reading = course
        case .noHeading, .alarm, .none: return
        }
        let origin = HeadingOrigin(
            talker: sentence.talker, proprietary: sentence.isProprietary ? address : nil, type: sentence.type,
            kind: reading.kind, isTrue: reading.magneticHeading == nil)
        if headings[origin] != nil || headings.count < Self.maximumAddresses { headings[origin, default: 0] &+= 1 }
    }

    /// Takes one CAN frame: assembled into a message when it is part of a fast packet.
    package mutating func take(frame: CANFrame) {
        frames &+= 1
        var messages: [(UInt8, UInt32, UInt8, UInt8, [UInt8])] = []
        _ = assembler.accept(frame) { message in
            messages.append((message.priority, message.pgn, message.source, message.destination, Array(message.payload)))
        }
        for (priority, pgn, source, destination, payload) in messages {
            payload.withUnsafeBufferPointer {
                take(message: NMEA2000Message(priority: priority, pgn: pgn, source: source, destination: destination, payload: $0))
            }
        }
    }

    /// Takes one whole NMEA 2000 message.
    package mutating func take(message: NMEA2000Message) {
        messages &+= 1
        let source = message.source
        guard source < 254 else { return }  // a claim from "no address" names no device yet
        var device = devices[source] ?? Device(address: source)
        if device.pgns[message.pgn] != nil || device.pgns.count < Self.maximumPGNs {
            device.pgns[message.pgn, default: 0] &+= 1
        } else {
            device.otherMessages &+= 1
        }
        switch message.pgn {
        case NMEA2000PGN.addressClaim:
            device.name = DeviceName(message) ?? device.name
        case NMEA2000PGN.productInformation:
            // A peer's text: printable ASCII only, so it can go to a terminal, a log or a file's comment.
            if let model = ProductInformation(message)?.model {
                let printable = String(String.UnicodeScalarView(model.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }.prefix(32)))
                if !printable.isEmpty { device.model = printable }
            }
        case NMEA2000PGN.vesselHeading:
            if let heading = VesselHeading(message), heading.heading.value != nil {
                switch heading.reference {
                case .true: device.trueHeadings &+= 1
                case .magnetic, .notAvailable: device.magneticHeadings &+= 1
                case .error: break
                }
            }
        case 129026:
            device.courses &+= 1
        default:
            break
        }
        devices[source] = device
    }
}
