// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation
public import NMEA2000

// NMEA 2000 in the line decoder: CAN frames (SocketCAN), whole messages (an NGT-1) and CAN text
// lines (candump, YD RAW, canboat's CSV), through one NMEA2000HeadingReader per decoder.
extension HeadingLineDecoder {
    /// Decodes one CAN frame (from SocketCAN): the chosen device's heading, or context.
    /// - Parameters:
    ///   - frame: The frame.
    ///   - receivedAt: When it was received (the kernel's timestamp where there is one).
    public mutating func decode(frame: CANFrame, receivedAt: Date) -> Output {
        decodeNMEA2000(receivedAt: receivedAt) { $0.read(frame) }
    }

    /// Decodes one whole NMEA 2000 message (from an Actisense NGT-1, which joins fast packets itself).
    /// - Parameters:
    ///   - message: The message.
    ///   - receivedAt: When it was received.
    public mutating func decode(message: NMEA2000Message, receivedAt: Date) -> Output {
        decodeNMEA2000(receivedAt: receivedAt) { $0.read(message) }
    }

    /// What the reader makes of one frame or message (`read`), as the decoder's output, counted.
    @inline(__always)
    private mutating func decodeNMEA2000(receivedAt: Date, _ read: (inout NMEA2000HeadingReader) -> NMEA2000HeadingReader.Output) -> Output {
        var state = takeNMEA2000()
        defer { nmea2000 = state }
        let output = apply(read(&state.reader), number: 0, receivedAt: receivedAt)
        lineCounts.count(output.report)
        return output
    }

    /// A line for the log about the NMEA 2000 device headings are taken from (which one, its NAME
    /// and model once learnt), once each; `nil` when there is nothing new.
    public mutating func takeDeviceNotice() -> String? {
        nmea2000?.reader.takeNotice()
    }

    /// The NMEA 2000 devices heard, by address; empty before the first CAN frame.
    public var nmea2000Devices: [NMEA2000HeadingReader.Device] { nmea2000?.reader.knownDevices ?? [] }

    /// The NMEA 2000 state, taken out of `self` so that it is mutated in place, not copied.
    mutating func takeNMEA2000() -> NMEA2000Decoding {
        defer { nmea2000 = nil }
        return nmea2000 ?? NMEA2000Decoding(selection: nmea2000Device, localNode: nmea2000LocalNode)
    }

    mutating func decodeCANLine(
        _ line: UnsafeBufferPointer<UInt8>, format: CANTextFormat, number: Int, receivedAt: Date
    ) -> Output {
        var state = takeNMEA2000()
        defer { nmea2000 = state }
        let decoded: (content: CANTextLineDecoder.Content, time: CANTextLineDecoder.Time?)
        do throws(CANTextLineDecoder.LineError) {
            decoded = try state.text.decode(line, format: format)
        } catch {
            return skipped(.malformed("\(format.rawValue) line: \(error.reason)"), number: number, receivedAt: receivedAt)
        }
        var recordingTime: Double?
        switch decoded.time {
        case .date(let seconds): recordingTime = observe(.date(secondsSince1970: seconds))
        case .timeOfDay(let seconds): recordingTime = observe(.timeOfDay(seconds: seconds))
        case nil: break
        }
        var output: Output
        switch decoded.content {
        case .frame(let frame):
            output = apply(state.reader.read(frame), number: number, receivedAt: receivedAt)
        case .message(let priority, let pgn, let source, let destination, _):
            let result = state.text.withPayload { payload in
                state.reader.read(NMEA2000Message(priority: priority, pgn: pgn, source: source, destination: destination, payload: payload))
            }
            output = apply(result, number: number, receivedAt: receivedAt)
        }
        if output.recordingTime == nil { output.recordingTime = recordingTime }
        return output
    }

    mutating func apply(_ result: NMEA2000HeadingReader.Output, number: Int, receivedAt: Date) -> Output {
        switch result {
        case .none:
            return Output()
        case .heading(let reading):
            return Output(report: deliver(reading, receivedAt: receivedAt))
        case .course(let reading, let speed):
            guard speed >= minimumCourseSpeed else { return Output() }
            return Output(report: .heading(heading(from: reading, receivedAt: receivedAt)))
        case .position(let position):
            lastPosition = position
        case .variation(let variation, _):
            lastVariation = variation
        case .time(let seconds):
            // The bus's date: a YD RAW line's time of day is on this day.
            if dayStart == nil { dayStart = (seconds / 86_400).rounded(.down) * 86_400 }
        case .headingError(let reason):
            return Output(report: alarm(.outOfRange, reason, number: number, receivedAt: receivedAt))
        case .dropped(let reason):
            return Output(report: .fault(HeadingFault(code: .malformedInput, source: sourceName, reason: reason, location: location(number), timestamp: timestamp(receivedAt))))
        }
        return Output()
    }
}

/// A decoder's NMEA 2000 state: the text framings' reader and the bus reader.
struct NMEA2000Decoding: Sendable {
    var text = CANTextLineDecoder()
    var reader: NMEA2000HeadingReader

    init(selection: NMEA2000DeviceSelection, localNode: NMEA2000LocalNode?) {
        reader = NMEA2000HeadingReader(selection: selection)
        reader.localNode = localNode
    }
}
