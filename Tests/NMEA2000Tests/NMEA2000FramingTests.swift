// headingd — NMEA2000 tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import NMEA2000
import PropertyBased
import Testing

@Suite("NMEA 2000 framings: fast packets, Actisense frames, CAN text")
struct NMEA2000FramingTests {
    /// canboat's Product Information from the Dirona's bus (a GSC400 remote): 134 bytes.
    static let productInformation: [UInt8] = {
        let line = try! N2KFixtures.lines("dirona-two-compasses.csv").first { $0.contains(",126996,0,") }!
        return line.split(separator: ",").dropFirst(6).map { UInt8($0, radix: 16)! }
    }()

    /// A message as the frames of a fast-packet series.
    static func frames(pgn: UInt32, source: UInt8, counter: UInt8 = 0, _ payload: [UInt8]) -> [CANFrame] {
        let identifier = CANIdentifier(priority: 6, pgn: pgn, source: source)
        var frames = [CANFrame(identifier: identifier, bytes: [counter << 5, UInt8(payload.count)] + payload.prefix(6))!]
        var rest = payload.dropFirst(6)
        var index: UInt8 = 1
        while !rest.isEmpty {
            frames.append(CANFrame(identifier: identifier, bytes: [counter << 5 | index] + rest.prefix(7))!)
            rest = rest.dropFirst(7)
            index += 1
        }
        return frames
    }

    @Test("a fast packet is joined whole: Product Information, as canboat's analyzer reads it (GSC400 REMOTE, 1.01, 4.25, 0003065)")
    func productInformationJoined() throws {
        #expect(Self.productInformation.count == 134)
        var assembler = FastPacketAssembler()
        var joined: [[UInt8]] = []
        var model: ProductInformation?
        for frame in Self.frames(pgn: 126_996, source: 0, Self.productInformation) {
            #expect(assembler.accept(frame) { joined.append(Array($0.payload)); model = ProductInformation($0) } == nil)
        }
        #expect(joined == [Self.productInformation])
        #expect(model?.model == "GSC400 REMOTE")
        #expect(model?.softwareVersion == "1.01")
        #expect(model?.modelVersion == "4.25")
        #expect(model?.serialCode == "0003065")
        #expect(model?.databaseVersion == 1.0)
    }

    @Test("two senders' series interleaved frame by frame are each joined")
    func interleaved() {
        var assembler = FastPacketAssembler()
        let a = Self.frames(pgn: 126_996, source: 3, Self.productInformation)
        var other = Self.productInformation
        other[4] = UInt8(ascii: "X")
        let b = Self.frames(pgn: 126_996, source: 9, counter: 5, other)
        var joined: [UInt8: [UInt8]] = [:]
        for (x, y) in zip(a, b) {
            assembler.accept(x) { joined[$0.source] = Array($0.payload) }
            assembler.accept(y) { joined[$0.source] = Array($0.payload) }
        }
        #expect(joined[3] == Self.productInformation)
        #expect(joined[9] == other)
    }

    @Test("a lost frame drops the series, never joins the wrong bytes; a frame without its start and a length over 223 are refused")
    func lostFrames() {
        var assembler = FastPacketAssembler()
        var frames = Self.frames(pgn: 126_996, source: 3, Self.productInformation)
        frames.remove(at: 5)
        var joined = 0
        var drops: [FastPacketAssembler.Drop] = []
        for frame in frames { if let drop = assembler.accept(frame, { _ in joined += 1 }) { drops.append(drop) } }
        #expect(joined == 0)
        #expect(drops.first == .incomplete(pgn: 126_996, source: 3, received: 34, length: 134))
        // The rest of the series after the loss are orphans.
        #expect(drops.dropFirst().allSatisfy { $0 == .orphan(pgn: 126_996, source: 3) })
        let identifier = CANIdentifier(priority: 6, pgn: 126_996, source: 4)
        #expect(assembler.accept(CANFrame(identifier: identifier, bytes: [0x00, 224, 1, 2, 3, 4, 5, 6])!) { _ in } == .tooLong(pgn: 126_996, source: 4, length: 224))
        // The series after a loss is joined again from its own start.
        for frame in Self.frames(pgn: 126_996, source: 3, counter: 1, Self.productInformation) { assembler.accept(frame) { _ in joined += 1 } }
        #expect(joined == 1)
    }

    @Test("a flood of senders starting series keeps the assembler at its bound, and a later series still joins")
    func bounded() {
        var assembler = FastPacketAssembler(maximumSeries: 8)
        for source in 0..<250 {
            let first = Self.frames(pgn: 126_996, source: UInt8(source), Self.productInformation)[0]
            assembler.accept(first) { _ in }
        }
        var joined = 0
        for frame in Self.frames(pgn: 126_996, source: 251, Self.productInformation) { assembler.accept(frame) { _ in joined += 1 } }
        #expect(joined == 1)
        #expect(assembler.maximumSeries == 8)
    }

    @Test("canboat's candump-fast sample: five Engine Parameters fast packets joined, as canboat's analyzer counts them")
    func candumpFast() throws {
        var decoder = CANTextLineDecoder()
        var assembler = FastPacketAssembler()
        var lengths: [Int] = []
        for line in try N2KFixtures.lines("candump-fast.log") {
            let bytes = Array(line.utf8)
            let decoded = try bytes.withUnsafeBufferPointer { try decoder.decode($0, format: .candumpLog) }
            guard case .frame(let frame) = decoded.content else { continue }
            assembler.accept(frame) { if $0.pgn == 127_489 { lengths.append($0.payload.count) } }
        }
        #expect(lengths == [26, 26, 26, 26, 26])
    }

    @Test("Actisense: a message with DLE bytes in it survives stuffing, split anywhere; bad checksums and garbage are refused, not traps")
    func actisense() {
        let payload: [UInt8] = [0x10, 0x16, 0x3A, 0x10, 0x10, 0xFF, 0x7F, 0xFD]
        let frame = ActisenseFrameSplitter.encodeMessage(priority: 2, pgn: 127_250, source: 0x10, timestamp: 0x1010, payload: payload)
        var stream: [UInt8] = [0x00, 0x10, 0x10, 0x03, 0x41] + frame + [0x10, 0x02, 0x93] + frame  // garbage, a frame cut short, a frame
        var bad = frame
        bad[bad.count - 3] ^= 0x01
        stream += bad + ActisenseFrameSplitter.startupMessage
        for split in [1, 2, 3, 7, stream.count] {
            var splitter = ActisenseFrameSplitter()
            defer { _ = splitter.discard() }
            var messages: [[UInt8]] = []
            var refused: [String] = []
            var others: [UInt8] = []
            var start = 0
            while start < stream.count {
                let chunk = Array(stream[start..<min(stream.count, start + split)])
                chunk.withUnsafeBufferPointer { bytes in
                    splitter.append(bytes) { piece in
                        switch piece {
                        case .message(let message, let timestamp):
                            #expect(message.pgn == 127_250 && message.source == 0x10 && message.priority == 2 && timestamp == 0x1010)
                            messages.append(Array(message.payload))
                        case .bad(let reason): refused.append(reason)
                        case .other(let command): others.append(command)
                        }
                    }
                }
                start += split
            }
            #expect(messages == [payload, payload], "split \(split)")
            #expect(refused.count == 2, "split \(split): \(refused)")  // the frame cut short, the checksum
            #expect(others == [ActisenseFrameSplitter.gatewaySend])
        }
        // The start-up message is canboat's: NGT_MSG_SEND 11 02 00.
        #expect(ActisenseFrameSplitter.startupMessage == [0x10, 0x02, 0xA1, 0x03, 0x11, 0x02, 0x00, 0x49, 0x10, 0x03])
    }

    @Test("CAN text: each form found from its first bytes and read; malformed lines say why")
    func textFormats() throws {
        let lines: [(String, CANTextFormat?)] = [
            ("(1745600961.335462) can0 09F11213#00163AFF7FFF7FFD", .candumpLog),
            ("can0  09F11213   [8]  00 16 3A FF 7F FF 7F FD", .candump),
            ("(1745600961.335462)  vcan0  09F11213   [8]  00 16 3A FF 7F FF 7F FD", .candump),
            ("<0x09f11213> [8] 00 16 3a ff 7f ff 7f fd", .candump),
            ("00:29:58.627 R 09F11213 00 16 3A FF 7F FF 7F FD", .yachtDevicesRaw),
            ("2020-03-04T00:29:58.627Z,2,127250,19,255,8,00,16,3a,ff,7f,ff,7f,fd", .canboat),
            ("$HEHDT,85.2,T*2C", nil),
            ("{\"class\":\"ATT\"}", nil),
        ]
        for (line, format) in lines {
            let bytes = Array(line.utf8)
            #expect(CANTextFormat.of(bytes) == format, "\(line)")
            guard let format else { continue }
            var decoder = CANTextLineDecoder()
            let decoded = try bytes.withUnsafeBufferPointer { try decoder.decode($0, format: format) }
            switch decoded.content {
            case .frame(let frame): #expect(frame.description == "09F11213#00163AFF7FFF7FFD")
            case .message(_, let pgn, let source, _, let length):
                #expect(pgn == 127_250 && source == 19 && length == 8)
                decoder.withPayload { #expect(Array($0) == [0x00, 0x16, 0x3A, 0xFF, 0x7F, 0xFF, 0x7F, 0xFD]) }
            }
        }
        let bad: [(String, CANTextFormat)] = [
            ("(1745600961.335462) can0 09F11213#00163AFF7FFF7FFD00", .candumpLog),
            ("can0  09F11213   [8]  00 16 3A", .candump),
            ("00:29:58.627 R 09F11213 00 16 3A FF 7F FF 7F FD 00", .yachtDevicesRaw),
            ("99:29:58.627 R 09F11213 00", .yachtDevicesRaw),
            ("2020-03-04T00:29:58.627Z,2,127250,19,255,8,00,16", .canboat),
            ("2020-03-04T00:29:58.627Z,2,127250,19,255,99999,00", .canboat),
        ]
        for (line, format) in bad {
            var decoder = CANTextLineDecoder()
            #expect(throws: CANTextLineDecoder.LineError.self, "\(line)") { try Array(line.utf8).withUnsafeBufferPointer { try decoder.decode($0, format: format) } }
        }
    }

    @Test("hostile bytes never trap: any line in any form, any bytes to the Actisense splitter, any frames to the assembler")
    func hostile() async {
        await propertyCheck(count: 400, input: Gen.uint8().array(of: 0...120)) { bytes in
            var decoder = CANTextLineDecoder()
            for format in CANTextFormat.allCases { _ = try? bytes.withUnsafeBufferPointer { try decoder.decode($0, format: format) } }
            var splitter = ActisenseFrameSplitter()
            defer { _ = splitter.discard() }
            bytes.withUnsafeBufferPointer { splitter.append($0) { _ in } }
            var assembler = FastPacketAssembler(maximumSeries: 4)
            var index = 0
            while index + 9 <= bytes.count {
                // Product Information from a hostile source, or any identifier at all.
                let id: UInt32 = bytes[index] & 1 == 0 ? (0x19F0_1400 | UInt32(bytes[index + 2])) : (UInt32(bytes[index + 1]) << 20 | UInt32(bytes[index + 2]))
                var data: UInt64 = 0
                for offset in 0..<5 { data |= UInt64(bytes[index + 4 + offset]) << (8 * UInt64(offset)) }
                let frame = CANFrame(identifier: CANIdentifier(id), count: Int(bytes[index + 3] % 9), data: data)
                var longest = 0
                assembler.accept(frame) { longest = max(longest, $0.payload.count) }
                #expect(longest <= FastPacketAssembler.maximumLength)
                index += 9
            }
        }
    }
}
