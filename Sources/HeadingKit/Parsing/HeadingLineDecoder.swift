// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation
import NMEA2000

/// Turns lines of NMEA 0183 and gpsd JSON into heading reports: pure, no I/O, one line at a time.
///
/// Used for the lines of a recording (``ReplayHeadingSource``) and for what a live gpsd sends
/// (raw NMEA interleaved with its JSON reports). Each line is read for what it is — a `#` comment (gpsd's regression logs), a gpsd JSON report,
/// an NMEA 0183 sentence, or a Unicore `#UNIHEADINGA` log (``UnicoreHeadingDecoder``) — so a file may mix them, as gpsd's own `.chk` outputs do. State
/// carried from line to line:
/// - the recording's time, from RMC and ZDA dates, PASHR times of day and gpsd `time` fields,
///   which stamps headings that carry no time of their own and paces the replay;
/// - duplicates: an `ATT` report within a few lines after the NMEA heading sentence gpsd made it
///   from, a `TPV` track within a few lines after an NMEA course sentence, or a `VTG` course
///   repeating the `RMC` course of the same fix, is the same measurement twice and is dropped
///   (counted in ``Output/isDuplicate``);
/// - compass alarms: a fault when a magnetometer alarm starts, no headings while it lasts;
/// - the last fix's position (RMC, `TPV`) and magnetic variation (RMC, HDG, `TPV` `magvar`), which
///   every later heading carries (``Heading/position``; ``Heading/magneticVariation`` when the
///   heading's own sentence has none), so that a ``HeadingProcessor`` can derive the true or
///   magnetic heading the device left out.
public struct HeadingLineDecoder: Sendable {
    /// What one line produced.
    public struct Output: Sendable, Hashable {
        // Stored so that an output takes 128 bytes, not 131: past 128 every copy of one (there
        // are several per line) is a call to `memmove`. The time is a plain double and a flag.
        /// The heading or fault the line produced, if any.
        public var report: HeadingSourceReport?
        /// Whether the line was malformed or out of range (its fault is ``report``).
        public var isSkipped = false
        /// Whether the line repeated a measurement an earlier line already delivered.
        public var isDuplicate = false
        private var hasRecordingTime = false
        private var storedRecordingTime = 0.0

        /// The recording time the line carries, in seconds, for pacing. Seconds since 1970 once the
        /// recording has given a date; before that, seconds since midnight.
        public var recordingTime: Double? {
            get { hasRecordingTime ? storedRecordingTime : nil }
            set {
                hasRecordingTime = newValue != nil
                storedRecordingTime = newValue ?? 0
            }
        }

        init(report: HeadingSourceReport? = nil, recordingTime: Double? = nil, isSkipped: Bool = false, isDuplicate: Bool = false) {
            self.report = report
            self.isSkipped = isSkipped
            self.isDuplicate = isDuplicate
            self.recordingTime = recordingTime
        }
    }

    /// The longest line read, in bytes; longer lines are reported and skipped.
    public static let maximumLineLength = 4096
    /// How many lines after an NMEA heading sentence an `ATT` report counts as its duplicate.
    static let attitudeDuplicateWindow = 3

    /// How gpsd begins an `ATT` report.
    private static let attitudeReportPrefix: [UInt8] = Array(#"{"class":"ATT","#.utf8)
    /// How many lines after an NMEA course sentence a `TPV` track counts as its duplicate.
    static let courseDuplicateWindow = 32

    /// How headings are stamped with time.
    public enum Timestamping: Sendable, Hashable {
        /// With the recording's time (its last date and time seen), or the time of receipt before
        /// it has given one: for replays.
        case recording
        /// With the time of receipt: for live input.
        case reception
    }

    /// The file named in faults with the line number, or `nil` for live input (faults carry no location).
    public let path: String?
    /// How headings are stamped with time.
    public let timestamping: Timestamping
    /// The source name headings and faults carry.
    public let sourceName: String
    /// ``sourceName`` as headings carry it, looked up once.
    private let keptSourceName: InternedName
    /// The speed below which course over ground is noise and no heading, in metres per second.
    public let minimumCourseSpeed: Double
    /// Whether an NMEA sentence without a checksum is refused (a complete one is accepted otherwise).
    public let requiresChecksum: Bool

    var dayStart: Double?
    private var lastTime: Double?
    private var deviceTime: Date?
    private var lastAttitudeSentenceLine = Int.min / 2
    private var lastCourseSentenceLine = Int.min / 2
    private var isAlarmActive = false
    /// The last NMEA course, with the recording time it was read at: RMC and VTG of one fix say the same.
    private var lastCourse: (time: Double?, reading: HeadingReading)?
    /// The position of the last valid fix.
    var lastPosition: GeographicPosition?
    /// The last magnetic variation the device sent.
    var lastVariation: Double?
    /// Which NMEA 2000 device's headings are taken, from CAN frames and recordings.
    public let nmea2000Device: NMEA2000DeviceSelection
    /// The NMEA 2000 state, made at the first CAN frame or line: joins, devices, the chosen one.
    var nmea2000: NMEA2000Decoding?
    /// This process's own node on the bus read, if it has one there: its frames are not a device's.
    package var nmea2000LocalNode: NMEA2000LocalNode?
    /// The lines decoded so far, by result (kept across ``restart()``).
    package internal(set) var lineCounts = LineCounts()

    /// Creates a decoder for one recording.
    /// - Parameters:
    ///   - path: The file's path, as faults name it with the line number; `nil` for live input.
    ///   - sourceName: The source name for headings and faults.
    ///   - minimumCourseSpeed: Below this speed (m/s) course over ground gives no heading. Default 0.5 (about 1 knot).
    ///   - timestamping: How headings are stamped with time. Default: ``Timestamping/recording``.
    ///   - requiresChecksum: Whether an NMEA sentence without a checksum is refused. Default `false`.
    ///   - nmea2000Device: Which NMEA 2000 device's headings CAN frames and recordings give. Default: the first heard.
    public init(
        path: String?, sourceName: String, minimumCourseSpeed: Double = 0.5, timestamping: Timestamping = .recording,
        requiresChecksum: Bool = false, nmea2000Device: NMEA2000DeviceSelection = .firstHeard
    ) {
        self.nmea2000Device = nmea2000Device
        self.path = path
        self.timestamping = timestamping
        self.sourceName = sourceName
        keptSourceName = InternedName(sourceName)
        self.minimumCourseSpeed = minimumCourseSpeed
        self.requiresChecksum = requiresChecksum
    }

    /// Whether the next line's headings and faults could be stamped with its `receivedAt`: with
    /// ``Timestamping/reception``, or before the recording has given a time. When `false`,
    /// `receivedAt` is not read, and a caller that reads the clock for every line (a flat-out
    /// replay) can leave it unread.
    public var usesReceptionTime: Bool { timestamping == .reception || deviceTime == nil }

    /// Forgets the recording's time, as at the start of the file: for a replay that loops.
    public mutating func restart() {
        let counts = lineCounts
        let localNode = nmea2000LocalNode
        self = HeadingLineDecoder(
            path: path, sourceName: sourceName, minimumCourseSpeed: minimumCourseSpeed, timestamping: timestamping,
            requiresChecksum: requiresChecksum, nmea2000Device: nmea2000Device
        )
        lineCounts = counts
        nmea2000LocalNode = localNode
    }

    /// Decodes one line.
    /// - Parameters:
    ///   - line: The line's bytes, without its newline.
    ///   - number: Its 1-based line number.
    ///   - receivedAt: Now: the timestamp of headings when the recording has not given a date yet.
    /// - Returns: What the line produced.
    public mutating func decode(_ line: some BidirectionalCollection<UInt8>, number: Int, receivedAt: Date) -> Output {
        let output = decodeLine(line, number: number, receivedAt: receivedAt)
        lineCounts.count(output.report)
        return output
    }

    /// Decodes one line held in an array, the form a replay reads it in: the same as the generic
    /// ``decode(_:number:receivedAt:)``, compiled for arrays (no generic dispatch, fewer allocations).
    /// - Parameters:
    ///   - line: The line's bytes, without its newline.
    ///   - number: Its 1-based line number.
    ///   - receivedAt: Now: the timestamp of headings when the recording has not given a date yet.
    /// - Returns: What the line produced.
    public mutating func decode(_ line: [UInt8], number: Int, receivedAt: Date) -> Output {
        let output = decodeLine(line, number: number, receivedAt: receivedAt)
        lineCounts.count(output.report)
        return output
    }

    /// Decodes one line in a buffer, the form gpsd's connection hands it over in: the same as the
    /// generic ``decode(_:number:receivedAt:)``, compiled for buffers. A caller in another module
    /// (HeadingKitGPSD's reader) gets the generic one unspecialized, every `drop`, `first` and
    /// slice through witness tables: a quarter of a live headingd's CPU in `perf`.
    /// - Parameters:
    ///   - line: The line's bytes, without its newline; read only during the call.
    ///   - number: Its 1-based line number.
    ///   - receivedAt: Now: the timestamp of headings when the recording has not given a date yet.
    /// - Returns: What the line produced.
    public mutating func decode(_ line: UnsafeBufferPointer<UInt8>, number: Int, receivedAt: Date) -> Output {
        let output = decodeLine(line, number: number, receivedAt: receivedAt)
        lineCounts.count(output.report)
        return output
    }

    private mutating func decodeLine(_ line: some BidirectionalCollection<UInt8>, number: Int, receivedAt: Date) -> Output {
        var content = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        while let last = content.last, last == 0x0D || last == 0x20 || last == 0x09 { content = content.dropLast() }
        guard let first = content.first else { return Output() }
        do throws(LineDecodingError) {
            switch first {
            case UInt8(ascii: "#") where UnicoreHeadingDecoder.isHeadingLog(content):
                // A Unicore dual-antenna receiver's heading log, not a comment.
                guard let reading = try UnicoreHeadingDecoder.decode(content) else { return Output() }
                return Output(report: deliver(reading, receivedAt: receivedAt))
            case UInt8(ascii: "#"):
                return Output()
            case UInt8(ascii: "{"):
                // gpsd's ATT copy of the NMEA heading sentence just before is a duplicate whatever its
                // values, so a copy of a bad sentence is not a second fault either.
                let followsAttitudeSentence = number - lastAttitudeSentenceLine <= Self.attitudeDuplicateWindow
                // gpsd writes the class first: its ATT twin is known without decoding it (the
                // JSON of every heading of a live NMEA device behind gpsd).
                if followsAttitudeSentence, content.starts(with: Self.attitudeReportPrefix) { return Output(isDuplicate: true) }
                let report: GPSDReport
                do throws(LineDecodingError) {
                    report = try GPSDReportDecoder.decode(content)
                } catch {
                    // Only a report that failed to decode is read a second time, for its class.
                    if followsAttitudeSentence, GPSDReportDecoder.reportClass(of: content) == "ATT" {
                        return Output(isDuplicate: true)
                    }
                    throw error
                }
                if followsAttitudeSentence, report.isAttitude { return Output(isDuplicate: true) }
                return decodeReport(report, number: number, receivedAt: receivedAt)
            case UInt8(ascii: "$"), UInt8(ascii: "!"):
                let sentence = try NMEASentence(content)
                if requiresChecksum { try NMEADecoder.requireChecksum(of: sentence) }
                // Marked before decoding: gpsd's JSON copy of a sentence whose values are bad is
                // still a copy, not a second report.
                let type = NMEASentenceType(packed: sentence.packedType)
                if type.isAttitude { lastAttitudeSentenceLine = number }
                if type.isCourse { lastCourseSentenceLine = number }
                return try decodeSentence(NMEADecoder.decode(sentence, type: type, keepsAddress: false), number: number, receivedAt: receivedAt)
            default:
                // A CAN recording or a gateway's text (candump, YD RAW, canboat's CSV)?
                let canLine = content.withContiguousStorageIfAvailable { bytes in
                    CANTextFormat.of(bytes).map { decodeCANLine(bytes, format: $0, number: number, receivedAt: receivedAt) }
                } ?? Array(content).withUnsafeBufferPointer { bytes in
                    CANTextFormat.of(bytes).map { decodeCANLine(bytes, format: $0, number: number, receivedAt: receivedAt) }
                }
                if let canLine { return canLine }
                if content.contains(where: { $0 < 0x20 || $0 > 0x7E }) {
                    throw LineDecodingError.malformed("binary data, not an NMEA 0183 sentence or a gpsd JSON report")
                }
                throw LineDecodingError.malformed("not an NMEA 0183 sentence or a gpsd JSON report")
            }
        } catch {
            return skipped(error, number: number, receivedAt: receivedAt)
        }
    }

    /// Counts a line decoded elsewhere (an overlong line, a UBX frame, a frame that broke), by what it gave.
    package mutating func countLine(_ report: HeadingSourceReport?) {
        lineCounts.count(report)
    }

    /// The output for a line too long to read: its fault.
    /// - Parameters:
    ///   - length: The line's length in bytes.
    ///   - number: Its line number.
    ///   - receivedAt: Now.
    /// - Returns: A skipped output with a ``HeadingFault/Code/malformedInput`` fault.
    public func overlongLine(length: Int, number: Int, receivedAt: Date) -> Output {
        skipped(
            .malformed("line of \(length) bytes is longer than \(Self.maximumLineLength); skipped"),
            number: number,
            receivedAt: receivedAt
        )
    }

    /// The report a reading from a binary framing becomes (a UBX frame): stamped, named, with the
    /// last position and variation the lines gave, as a line's heading is.
    /// - Parameters:
    ///   - reading: The reading.
    ///   - receivedAt: Now.
    /// - Returns: The heading.
    public mutating func report(for reading: HeadingReading, receivedAt: Date) -> HeadingSourceReport {
        deliver(reading, receivedAt: receivedAt)
    }

    // MARK: NMEA

    private mutating func decodeSentence(_ report: NMEAReport, number: Int, receivedAt: Date) -> Output {
        var output = Output(recordingTime: report.time.map { observe($0) })
        if let position = report.position { lastPosition = position }
        switch report.content {
        case .heading(let reading):
            output.report = deliver(reading, receivedAt: receivedAt)
        case .course(let reading, let speed):
            // VTG after RMC in the same fix (no new time since) with the same track is one measurement.
            if let lastCourse, lastCourse.time == lastTime, lastCourse.reading.trueHeading == reading.trueHeading {
                output.isDuplicate = true
                return output
            }
            lastCourse = (lastTime, reading)
            if let variation = reading.magneticVariation { lastVariation = variation }
            if speed >= minimumCourseSpeed { output.report = .heading(heading(from: reading, receivedAt: receivedAt)) }
        case .alarm(let code, let reason):
            output.report = alarm(code, reason, number: number, receivedAt: receivedAt)
        case .noHeading, .none:
            break
        }
        return output
    }

    // MARK: gpsd JSON

    private mutating func decodeReport(_ report: GPSDReport, number: Int, receivedAt: Date) -> Output {
        var output = Output()
        if let time = report.time {
            output.recordingTime = time.timeIntervalSince1970
            deviceTime = time
            lastTime = time.timeIntervalSince1970
        }
        switch report {
        case .attitude(let reading, _, _):
            if let reading { output.report = deliver(reading, receivedAt: receivedAt) }
        case .attitudeAlarm(let code, let reason, _, _):
            output.report = alarm(code, reason, number: number, receivedAt: receivedAt)
        case .position(let course, let speed, let fix, let variation, _, _, let relativeHeading):
            if let fix { lastPosition = fix }
            if let variation { lastVariation = variation }
            // A dual-antenna heading is better than the course: it is the report's heading.
            if let relativeHeading {
                output.report = deliver(relativeHeading, receivedAt: receivedAt)
                return output
            }
            guard let course, let speed, speed >= minimumCourseSpeed else { return output }
            guard number - lastCourseSentenceLine > Self.courseDuplicateWindow else {
                output.isDuplicate = true
                return output
            }
            output.report = .heading(heading(from: course, receivedAt: receivedAt))
        case .device(let path, let isActive):
            if !isActive {
                output.report = .fault(
                    HeadingFault(
                        code: .deviceLost, source: sourceName, reason: "gpsd reports device \(path) deactivated",
                        location: location(number), timestamp: timestamp(receivedAt)
                    )
                )
            }
        case .error(let message):
            output.report = .fault(
                HeadingFault(
                    code: .sourceUnavailable, source: sourceName, reason: "gpsd error: \(message)",
                    location: location(number), timestamp: timestamp(receivedAt)
                )
            )
        case .other:
            break
        }
        return output
    }

    // MARK: Shared

    mutating func deliver(_ reading: HeadingReading, receivedAt: Date) -> HeadingSourceReport {
        isAlarmActive = false
        if let variation = reading.magneticVariation { lastVariation = variation }
        return .heading(heading(from: reading, receivedAt: receivedAt))
    }

    /// The heading a reading becomes: stamped, named, with the last fix's position and, when the
    /// reading has none of its own, the last variation the device sent.
    func heading(from reading: HeadingReading, receivedAt: Date) -> Heading {
        var reading = reading
        if reading.magneticVariation == nil { reading.magneticVariation = lastVariation }
        return reading.heading(at: timestamp(receivedAt), sourceName: keptSourceName, position: lastPosition)
    }

    mutating func alarm(_ code: HeadingFault.Code, _ reason: String, number: Int, receivedAt: Date) -> HeadingSourceReport? {
        guard !isAlarmActive else { return nil }
        isAlarmActive = true
        return .fault(
            HeadingFault(
                code: code, source: sourceName, reason: reason, location: location(number),
                timestamp: timestamp(receivedAt)
            )
        )
    }

    func skipped(_ error: LineDecodingError, number: Int, receivedAt: Date) -> Output {
        let fault = HeadingFault(
            code: error.code, source: sourceName, reason: error.reason, location: location(number),
            timestamp: timestamp(receivedAt)
        )
        return Output(report: .fault(fault), isSkipped: true)
    }

    func timestamp(_ receivedAt: Date) -> Date {
        timestamping == .recording ? deviceTime ?? receivedAt : receivedAt
    }

    func location(_ number: Int) -> HeadingFault.InputLocation? {
        path.map { HeadingFault.InputLocation(path: $0, line: number) }
    }

    /// Records a time from the recording; returns it in seconds for pacing.
    mutating func observe(_ time: NMEAReport.Time) -> Double {
        switch time {
        case .date(let seconds):
            dayStart = (seconds / 86_400).rounded(.down) * 86_400
            return setTime(seconds)
        case .timeOfDay(let seconds):
            guard var day = dayStart else { return seconds }
            // A time of day far before the last one is the next day (midnight passed).
            if let lastTime, day + seconds < lastTime - 43_200 { day += 86_400 }
            dayStart = day
            return setTime(day + seconds)
        }
    }

    mutating func setTime(_ seconds: Double) -> Double {
        lastTime = seconds
        deviceTime = Date(timeIntervalSince1970: seconds)
        return seconds
    }
}
