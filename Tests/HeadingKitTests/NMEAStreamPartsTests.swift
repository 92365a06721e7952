// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import Testing

/// The pure parts of the NMEA 0183 streams: their URLs, the line assembler and the selection.
struct NMEAStreamPartsTests {
    @Test func urlsOfEveryTransportParse() throws {
        #expect(try NMEAStreamEndpoint(parsing: "serial:///dev/ttyUSB0").transport == .serial(path: "/dev/ttyUSB0", baud: .fixed(4800)))
        #expect(try NMEAStreamEndpoint(parsing: "serial:///dev/ttyACM0?baud=38400").transport == .serial(path: "/dev/ttyACM0", baud: .fixed(38400)))
        #expect(try NMEAStreamEndpoint(parsing: "serial:///dev/ttyS0?baud=auto").transport == .serial(path: "/dev/ttyS0", baud: .automatic))
        let tcp = try NMEAStreamEndpoint(parsing: "tcp://192.168.4.1:10110")
        #expect(tcp.transport == .tcp(host: "192.168.4.1", port: 10110))
        #expect(tcp.noDataTimeout == .seconds(10))
        #expect(try NMEAStreamEndpoint(parsing: "tcp://gw.local:2000?no_data_timeout=0").noDataTimeout == nil)
        #expect(try NMEAStreamEndpoint(parsing: "tcp://[::1]:39150?no_data_timeout=2.5").noDataTimeout == .milliseconds(2500))
        #expect(try NMEAStreamEndpoint(parsing: "udp://:10110").transport == .udp(address: nil, port: 10110))
        #expect(try NMEAStreamEndpoint(parsing: "udp://239.2.1.1:10110").transport == .udp(address: "239.2.1.1", port: 10110))
        #expect(try NMEAStreamEndpoint(parsing: "stdin:").transport == .standardInput)
        #expect(try NMEAStreamEndpoint(parsing: "tcp://[::1]:39150").description == "tcp://[::1]:39150")
    }

    @Test func badURLsSayWhy() {
        let cases: [(String, String)] = [
            ("serial:ttyUSB0", "absolute device path"),
            ("serial:///dev/ttyUSB0?baud=1200", "baud must be auto or one of"),
            ("serial:///dev/ttyUSB0?speed=4800", "unknown serial parameter 'speed'"),
            ("tcp://:10110", "needs a host"),
            ("tcp://host:0", "port must be a number from 1 to 65535"),
            ("tcp://host:99999", "port must be a number"),
            ("tcp://host:10110?no_data_timeout=-1", "no_data_timeout must be between 0"),
            ("tcp://host:10110?no_data_timeout=nan", "no_data_timeout must be between 0"),
            ("udp://:10110?x=1", "UDP takes none"),
            ("ftp://host:21", "a stream is"),
            ("stdin:?a=b", "takes no parameters"),
        ]
        for (text, reason) in cases {
            do {
                _ = try NMEAStreamEndpoint(parsing: text)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.reason.contains(reason), "\(text): \(error.reason)")
            }
        }
    }

    /// Feeds `chunks` to one assembler and names what came out.
    private func assemble(_ chunks: [String], limit: Int = 1024) -> [String] {
        var assembler = LineAssembler(maximumLineLength: limit)
        var out: [String] = []
        for chunk in chunks {
            Array(chunk.utf8).withUnsafeBufferPointer { bytes in
                assembler.append(bytes) { piece in
                    switch piece {
                    case .line(let line): out.append(String(decoding: line, as: UTF8.self))
                    case .overlong(let length): out.append("overlong \(length)")
                    case .fragment(let length): out.append("fragment \(length)")
                    case .ubxFrame, .badFrame: out.append("frame?")
                    }
                }
            }
        }
        return out
    }

    @Test func linesSplitAcrossReadsAreJoinedAndLineEndsOfEveryKindEndThem() {
        #expect(assemble(["$HEHDT,1", "2.5,T*00\r\n$HEHDT,13.0,T\n\n$A\r"]) == ["$HEHDT,12.5,T*00", "$HEHDT,13.0,T", "$A"])
    }

    @Test func aSentenceCutShortIsAFragmentNeverJoinedToTheNext() {
        // A lost datagram or a broken connection: "$HEHDT,1" then a whole sentence.
        #expect(assemble(["$HEHDT,1", "$HEHDT,14.0,T\r\n"]) == ["fragment 8", "$HEHDT,14.0,T"])
        #expect(assemble(["$HEHDT,1$HCHDM,2.0,M\r\n"]) == ["fragment 8", "$HCHDM,2.0,M"])
        // A line that does not start a sentence is not cut at a '$' (a gpsd JSON string may hold one).
        #expect(assemble(["{\"a\":\"$x\"}\n"]) == ["{\"a\":\"$x\"}"])
    }

    @Test func anOverlongLineIsReportedByItsLengthAndMemoryStaysBounded() {
        let long = String(repeating: "A", count: 3000)
        #expect(assemble([long.prefix(1000) + "", long.dropFirst(1000) + "\n$B\n"], limit: 1024) == ["overlong 3000", "$B"])
        var assembler = LineAssembler(maximumLineLength: 100)
        let flood = [UInt8](repeating: 0x41, count: 1_000_000)
        flood.withUnsafeBufferPointer { assembler.append($0) { _ in } }
        #expect(assembler.discard() == 1_000_000)
    }

    @Test func aDatagramsLastSentenceWithoutALineEndIsFlushedWhenComplete() {
        var assembler = LineAssembler(maximumLineLength: 1024)
        var out: [String] = []
        let collect: (StreamPiece) -> Void = { if case .line(let line) = $0 { out.append(String(decoding: line, as: UTF8.self)) } }
        Array("$HEHDT,12.5,T*1A".utf8).withUnsafeBufferPointer { assembler.append($0, collect) }
        assembler.flushCompleteSentence(collect)
        Array("$HEHDT,12".utf8).withUnsafeBufferPointer { assembler.append($0, collect) }
        assembler.flushCompleteSentence(collect)  // not complete: kept for the sender's next datagram
        #expect(out == ["$HEHDT,12.5,T*1A"])
        #expect(assembler.hasPartialLine)
    }

    private func match(_ selection: NMEASentenceSelection, _ line: String) -> NMEASentenceSelection.Match {
        Array(line.utf8).withUnsafeBufferPointer { selection.match($0, address: NMEASentenceSelection.address(of: $0)) }
    }

    @Test func aSelectionTakesItsTalkersAndTypesAndKeepsRMCForContext() {
        let gyro = NMEASentenceSelection(talkers: ["he"], sentences: ["HDT", "THS"])
        #expect(gyro.description == "talker=HE&sentences=HDT,THS")
        #expect(match(gyro, "$HEHDT,1.0,T") == .taken)
        #expect(match(gyro, "$HETHS,1.0,A") == .taken)
        #expect(match(gyro, "$HCHDT,1.0,T") == .other)
        #expect(match(gyro, "$HEHDM,1.0,M") == .other)
        #expect(match(gyro, "$GPRMC,1,A") == .context)
        #expect(match(gyro, "$PSSN,HRP,1") == .other)  // proprietary: no talker
        let dual = NMEASentenceSelection(sentences: ["PSSN", "UNIHEADINGA"])
        #expect(match(dual, "$PSSN,HRP,1") == .taken)
        #expect(match(dual, "#UNIHEADINGA,1;2*0") == .taken)
        #expect(match(dual, "$GPHDT,1,T") == .other)
        #expect(match(.all, "garbage") == .taken)
    }
}
