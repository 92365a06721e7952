// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Turns NMEA 0183 sentences into ``NMEAReport``s: pure functions, no state, no I/O.
///
/// Heading sentences, any talker: `HDT` (true), `HDG` (sensor heading with deviation and variation:
/// magnetic = sensor + deviation, true = magnetic + variation, East positive; an empty deviation
/// counts as zero for the magnetic heading and stays unknown in the report), `HDM` (magnetic),
/// `THS` (true, with a mode; `V` is no heading), `PASHR` (true heading, roll, pitch, heading
/// standard deviation) and `PTNTHTM` (True North Technologies: true heading, magnetometer status,
/// pitch, roll) and `PSSN,HRP` (a Septentrio dual-antenna receiver: true heading, roll, pitch, their
/// standard deviations, attitude mode; an empty heading or mode 0 is no heading). Course over
/// ground: `RMC` (with magnetic variation) and `VTG`. Times: `RMC`, `ZDA`, `PASHR` and `PSSN,HRP`.
/// Every other sentence is ``NMEAReport/Content/none``.
///
/// A sentence of a type read here must carry every field its type defines, unit and status
/// letters included (`HDT` is heading and `T`): a line cut short before its checksum looks like a
/// sentence sent without one, and must never give a heading from a half-read number
/// (`$GPHDT,27` is not 27°). A sentence without a checksum is accepted when it is complete,
/// unless the caller requires checksums.
public enum NMEADecoder {
    /// Decodes one line.
    /// - Parameters:
    ///   - line: The line's bytes.
    ///   - requiringChecksum: Whether a sentence without a checksum is refused. Default `false`.
    /// - Returns: What the sentence reports.
    /// - Throws: ``LineDecodingError`` for a malformed or incomplete sentence or a value out of range.
    public static func decode(_ line: some Collection<UInt8>, requiringChecksum: Bool = false) throws(LineDecodingError) -> NMEAReport {
        let sentence = try NMEASentence(line)
        if requiringChecksum { try requireChecksum(of: sentence) }
        return try decode(sentence)
    }

    /// Decodes one parsed sentence.
    /// - Parameter sentence: The sentence.
    /// - Returns: What the sentence reports.
    /// - Throws: ``LineDecodingError`` for an incomplete sentence, or a field that is not a number
    ///   or is out of range.
    public static func decode(_ sentence: NMEASentence) throws(LineDecodingError) -> NMEAReport {
        try decode(sentence, type: NMEASentenceType(packed: sentence.packedType))
    }

    /// Decodes one parsed sentence whose type the caller has already told apart.
    /// - Parameters:
    ///   - sentence: The sentence.
    ///   - type: Its type.
    ///   - keepsAddress: Whether the report carries the sentence's address; `false` leaves it
    ///     empty, for a caller that reads none (``HeadingLineDecoder``), which then makes no string a sentence.
    static func decode(_ sentence: NMEASentence, type: NMEASentenceType, keepsAddress: Bool = true) throws(LineDecodingError) -> NMEAReport {
        try checkComplete(sentence, type: type)
        let kind = kind(forTalker: sentence.talkerBytes)
        var time: NMEAReport.Time?
        var position: GeographicPosition?
        let content: NMEAReport.Content
        switch type {
        case .hdt:
            content = try heading(sentence, 1, "true heading").map { .heading(HeadingReading(trueHeading: $0, kind: kind)) }
                ?? .noHeading
        case .hdm:
            content = try heading(sentence, 1, "magnetic heading").map {
                .heading(HeadingReading(magneticHeading: $0, kind: .compass))
            } ?? .noHeading
        case .hdg:
            content = try headingFromHDG(sentence)
        case .ths:
            content = try headingFromTHS(sentence, kind: kind)
        case .pashr:
            (content, time) = try headingFromPASHR(sentence)
        case .ptnthtm:
            content = try headingFromPTNTHTM(sentence)
        case .pssn:
            (content, time) = try headingFromPSSN(sentence)
        case .rmc:
            (content, time, position) = try courseFromRMC(sentence)
        case .vtg:
            content = try courseFromVTG(sentence)
        case .zda:
            time = try dateFromZDA(sentence)
            content = .none
        case .other:
            content = .none
        }
        return NMEAReport(address: keepsAddress ? sentence.address : "", content: content, time: time, position: position)
    }

    // MARK: Completeness

    /// Refuses a sentence without a checksum: for callers that require checksums.
    /// - Parameter sentence: The parsed sentence.
    /// - Throws: ``LineDecodingError`` when it carried none.
    static func requireChecksum(of sentence: NMEASentence) throws(LineDecodingError) {
        guard sentence.hasChecksum else { throw .malformed("sentence has no checksum, and checksums are required") }
    }

    /// What a complete sentence of a type read here carries: how many fields, their names (for the
    /// error), and the unit letters the type defines, by field.
    private struct DefinedFields: Sendable {
        let count: Int
        let names: String
        /// The one field whose content is a unit letter the type defines (`HDT`'s `T`), if any:
        /// a value, not an array, so that looking a type's fields up costs no reference count.
        var unitLetter: (field: Int, letter: UInt8)?
    }

    private static let hdtFields = DefinedFields(count: 2, names: "heading, T", unitLetter: (2, UInt8(ascii: "T")))
    private static let hdmFields = DefinedFields(count: 2, names: "heading, M", unitLetter: (2, UInt8(ascii: "M")))
    private static let hdgFields = DefinedFields(count: 5, names: "heading, deviation, E/W, variation, E/W")
    private static let thsFields = DefinedFields(count: 2, names: "heading, mode")
    // The eleventh field (IMU status) is read by nothing here: ten are enough.
    private static let pashrFields = DefinedFields(count: 10, names: "time, heading, T, roll, pitch, heave, three accuracies, aiding status")
    private static let ptnthtmFields = DefinedFields(count: 8, names: "heading, status, pitch, status, roll, status, dip, field")
    // Septentrio's HRP: the mode is the last field read (the variation after it is optional).
    private static let pssnHRPFields = DefinedFields(
        count: 12, names: "HRP, time, date, heading, roll, pitch, three standard deviations, satellites, mode"
    )
    private static let rmcFields = DefinedFields(count: 11, names: "time, status, latitude, N/S, longitude, E/W, speed, course, date, variation, E/W")
    private static let zdaFields = DefinedFields(count: 6, names: "time, day, month, year, zone hours, zone minutes")
    private static let modernVTG = DefinedFields(count: 8, names: "course, T, course, M, speed, N, speed, K")
    private static let oldVTG = DefinedFields(count: 4, names: "course, course, speed, speed")

    private static func definedFields(_ type: NMEASentenceType, in sentence: NMEASentence) -> DefinedFields? {
        switch type {
        case .hdt: hdtFields
        case .hdm: hdmFields
        case .hdg: hdgFields
        case .ths: thsFields
        case .pashr: pashrFields
        case .ptnthtm: ptnthtmFields
        case .pssn: sentence[1] == "HRP" ? pssnHRPFields : nil
        case .rmc: rmcFields
        case .zda: zdaFields
        case .vtg: isModernVTG(sentence) ? modernVTG : oldVTG
        case .other: nil
        }
    }

    /// Whether a `VTG` is in the NMEA 2.3+ form (track,T,track,M,knots,N,km/h,K[,mode]) rather than
    /// the form before 2.0 (track,track,knots,km/h).
    private static func isModernVTG(_ sentence: NMEASentence) -> Bool {
        sentence[2] == "T" || sentence[4] == "M" || sentence[6] == "N" || sentence.fieldCount > 4
    }

    /// Refuses a sentence of a type read here that lacks a field its type defines, or whose unit
    /// letter is not the one its type defines.
    private static func checkComplete(_ sentence: NMEASentence, type: NMEASentenceType) throws(LineDecodingError) {
        guard let defined = definedFields(type, in: sentence) else { return }
        guard sentence.fieldCount >= defined.count else {
            let fields = sentence.fieldCount == 1 ? "1 field" : "\(sentence.fieldCount) fields"
            throw .malformed("\(sentence.type) sentence has \(fields); a complete one has \(defined.count) (\(defined.names)): cut short?")
        }
        if let (index, letter) = defined.unitLetter, !sentence.field(index, is: letter) {
            throw .malformed("field \(index) of \(sentence.type) is '\(sentence[index])'; expected \(Character(Unicode.Scalar(letter)))")
        }
    }

    // MARK: Heading sentences

    private static func headingFromHDG(_ sentence: NMEASentence) throws(LineDecodingError) -> NMEAReport.Content {
        guard let sensor = try heading(sentence, 1, "sensor heading") else { return .noHeading }
        let deviation = try signedAngle(sentence, 2, 3, "deviation")
        let variation = try signedAngle(sentence, 4, 5, "variation")
        let magnetic = sensor + (deviation ?? 0)
        return .heading(
            HeadingReading(
                trueHeading: variation.map { magnetic + $0 },
                magneticHeading: magnetic,
                magneticVariation: variation,
                deviation: deviation,
                kind: .compass
            )
        )
    }

    private static func headingFromTHS(_ sentence: NMEASentence, kind: Heading.Kind) throws(LineDecodingError)
        -> NMEAReport.Content
    {
        // Mode: A autonomous, E estimated (dead reckoning), M manual, S simulator, V not valid.
        guard let mode = sentence.firstByte(2) else {
            throw .malformed("field 2 (mode) is empty; expected A, E, M, S or V")
        }
        guard "AEMSV".utf8.contains(mode) else {
            throw .malformed("field 2 (mode) is '\(Character(Unicode.Scalar(mode)))'; expected A, E, M, S or V")
        }
        guard mode != UInt8(ascii: "V"), let value = try heading(sentence, 1, "true heading") else { return .noHeading }
        return .heading(HeadingReading(trueHeading: value, kind: kind))
    }

    private static func headingFromPASHR(_ sentence: NMEASentence) throws(LineDecodingError)
        -> (NMEAReport.Content, NMEAReport.Time?)
    {
        let time = try timeOfDay(sentence, 1).map { NMEAReport.Time.timeOfDay(seconds: $0) }
        guard let value = try heading(sentence, 2, "heading") else { return (.noHeading, time) }
        let reference = sentence[3]
        guard reference.isEmpty || reference == "T" else {
            throw .malformed("field 3 (heading reference) is '\(reference)'; expected T (true)")
        }
        let reading = HeadingReading(
            trueHeading: value,
            accuracy: try bounded(sentence, 9, "heading accuracy", 0...180),
            pitch: try bounded(sentence, 5, "pitch", -90...90),
            roll: try bounded(sentence, 4, "roll", -180...180),
            kind: .inertial
        )
        return (.heading(reading), time)
    }

    private static func headingFromPTNTHTM(_ sentence: NMEASentence) throws(LineDecodingError) -> NMEAReport.Content {
        guard let value = try heading(sentence, 1, "true heading") else { return .noHeading }
        // Magnetometer status: N normal, M low and O high warnings still give a usable heading;
        // C calibration alarm, L low alarm, P high alarm and V voltage alarm do not.
        switch sentence.character(2) {
        case "C": return .alarm(.calibrationNeeded, reason: "compass reports a magnetometer calibration alarm")
        case "L": return .alarm(.deviceLost, reason: "compass reports a low magnetic field alarm")
        case "P": return .alarm(.deviceLost, reason: "compass reports a high magnetic field alarm")
        case "V": return .alarm(.deviceLost, reason: "compass reports a magnetometer voltage alarm")
        default: break
        }
        return .heading(
            HeadingReading(
                trueHeading: value,
                pitch: try bounded(sentence, 3, "pitch", -180...180),
                roll: try bounded(sentence, 5, "roll", -180...180),
                kind: .compass
            )
        )
    }

    /// Septentrio's `$PSSN,HRP`: time, date, heading, roll, pitch, their standard deviations, the
    /// satellites used and the attitude mode (0 none; 1, 2 heading and pitch with float or fixed
    /// ambiguities; 3, 4 the same with roll). Field order from Septentrio's firmware reference
    /// guides (AsteRx4 4.10, mosaic-H), as third-party decoders and receivers' captures confirm.
    /// Other `PSSN` messages carry no heading.
    private static func headingFromPSSN(_ sentence: NMEASentence) throws(LineDecodingError)
        -> (NMEAReport.Content, NMEAReport.Time?)
    {
        guard sentence[1] == "HRP" else { return (.none, nil) }
        var time: NMEAReport.Time?
        if let seconds = try timeOfDay(sentence, 2), let day = try dayFromDDMMYY(sentence, 3) {
            time = .date(secondsSince1970: day + seconds)
        }
        guard let mode = try bounded(sentence, 11, "attitude mode", 0...4), mode != 0,
            let value = try heading(sentence, 4, "heading")
        else { return (.noHeading, time) }
        let reading = HeadingReading(
            trueHeading: value,
            accuracy: try bounded(sentence, 7, "heading standard deviation", 0...180),
            pitch: try bounded(sentence, 6, "pitch", -90...90),
            roll: try bounded(sentence, 5, "roll", -180...180),
            kind: .gnssCompass
        )
        return (.heading(reading), time)
    }

    // MARK: Course sentences

    private static let metresPerSecondPerKnot = 1852.0 / 3600.0

    private static func courseFromRMC(_ sentence: NMEASentence) throws(LineDecodingError)
        -> (NMEAReport.Content, NMEAReport.Time?, GeographicPosition?)
    {
        var time: NMEAReport.Time?
        if let seconds = try timeOfDay(sentence, 1), let day = try dateFromRMC(sentence) {
            time = .date(secondsSince1970: day + seconds)
        }
        // Status A is a valid fix; V is a warning; FAA mode N (field 12) is not valid either.
        guard sentence.firstByte(2) == UInt8(ascii: "A"), sentence.firstByte(12) != UInt8(ascii: "N") else { return (.none, time, nil) }
        let position = try position(sentence, latitudeIndex: 3)
        guard let track = try heading(sentence, 8, "course"),
            let knots = try bounded(sentence, 7, "speed", 0...10_000)
        else { return (.none, time, position) }
        let variation = try signedAngle(sentence, 10, 11, "variation")
        let reading = HeadingReading(
            trueHeading: track,
            magneticHeading: variation.map { track - $0 },
            magneticVariation: variation,
            kind: .courseOverGround
        )
        return (.course(reading, speed: knots * metresPerSecondPerKnot), time, position)
    }

    /// Latitude (`ddmm.mmmm`, N/S) and longitude (`dddmm.mmmm`, E/W) in four fields from `latitudeIndex`.
    private static func position(_ sentence: NMEASentence, latitudeIndex index: Int) throws(LineDecodingError)
        -> GeographicPosition?
    {
        guard let latitude = try sentence.number(index, "latitude"), let longitude = try sentence.number(index + 2, "longitude")
        else { return nil }
        func degrees(_ value: Double, _ field: Int, _ name: String, _ limit: Double) throws(LineDecodingError) -> Double {
            let whole = (value / 100).rounded(.down)
            let minutes = value - whole * 100
            guard value >= 0, minutes < 60, whole <= limit else {
                throw .outOfRange("field \(field) (\(name)) \(sentence[field]) is not a valid \(name)")
            }
            return whole + minutes / 60
        }
        var north = try degrees(latitude, index, "latitude", 90)
        var east = try degrees(longitude, index + 2, "longitude", 180)
        switch sentence.firstByte(index + 1) {
        case UInt8(ascii: "N"): break
        case UInt8(ascii: "S"): north = -north
        default: throw .malformed("field \(index + 1) (latitude direction) is '\(sentence[index + 1])'; expected N or S")
        }
        switch sentence.firstByte(index + 3) {
        case UInt8(ascii: "E"): break
        case UInt8(ascii: "W"): east = -east
        default: throw .malformed("field \(index + 3) (longitude direction) is '\(sentence[index + 3])'; expected E or W")
        }
        guard let position = GeographicPosition(latitude: north, longitude: east) else {
            throw .outOfRange("position \(north), \(east) is off the Earth")
        }
        return position
    }

    private static func courseFromVTG(_ sentence: NMEASentence) throws(LineDecodingError) -> NMEAReport.Content {
        let modern = isModernVTG(sentence)
        let trueIndex = 1
        let magneticIndex = modern ? 3 : 2
        let knotsIndex = modern ? 5 : 3
        guard !(modern && sentence.character(9) == "N"),
            let knots = try bounded(sentence, knotsIndex, "speed", 0...10_000)
        else { return .none }
        let track = try heading(sentence, trueIndex, "true course")
        let magnetic = try heading(sentence, magneticIndex, "magnetic course")
        guard track != nil || magnetic != nil else { return .none }
        let reading = HeadingReading(trueHeading: track, magneticHeading: magnetic, kind: .courseOverGround)
        return .course(reading, speed: knots * metresPerSecondPerKnot)
    }

    // MARK: Times

    private static func dateFromZDA(_ sentence: NMEASentence) throws(LineDecodingError) -> NMEAReport.Time? {
        guard let seconds = try timeOfDay(sentence, 1),
            let day = try sentence.number(2, "day"), let month = try sentence.number(3, "month"),
            let year = try sentence.number(4, "year")
        else { return nil }
        let start = try dayStart(year: year, month: month, day: day)
        return .date(secondsSince1970: start + seconds)
    }

    private static func dateFromRMC(_ sentence: NMEASentence) throws(LineDecodingError) -> Double? {
        try dayFromDDMMYY(sentence, 9)
    }

    /// A `ddmmyy` date field (RMC, PSSN): the day's start in seconds since 1970, `nil` when empty.
    private static func dayFromDDMMYY(_ sentence: NMEASentence, _ index: Int) throws(LineDecodingError) -> Double? {
        let text = sentence[index]
        guard !text.isEmpty else { return nil }
        guard text.count == 6, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let value = Int(text) else {
            throw .malformed("field \(index) (date) is '\(text)'; expected ddmmyy")
        }
        // Two-digit years: 80–99 are 1980–1999, 00–79 are 2000–2079, as GPS receivers mean them.
        let year = value % 100
        return try dayStart(year: Double(year < 80 ? 2000 + year : 1900 + year), month: Double(value / 100 % 100), day: Double(value / 10_000))
    }

    private static func timeOfDay(_ sentence: NMEASentence, _ index: Int) throws(LineDecodingError) -> Double? {
        let text = sentence[index]
        guard !text.isEmpty else { return nil }
        guard let value = try sentence.number(index, "time"), value >= 0, text.count >= 6,
            text.prefix(6).allSatisfy(\.isNumber)
        else { throw .malformed("field \(index) (time) is '\(text)'; expected hhmmss.ss") }
        let hours = (value / 10_000).rounded(.down)
        let minutes = ((value - hours * 10_000) / 100).rounded(.down)
        let seconds = value - hours * 10_000 - minutes * 100
        guard hours < 24, minutes < 60, seconds < 61 else {
            throw .outOfRange("field \(index) (time) '\(text)' is not a time of day")
        }
        return hours * 3600 + minutes * 60 + seconds
    }

    private static func dayStart(year: Double, month: Double, day: Double) throws(LineDecodingError) -> Double {
        // Whole numbers in range before any conversion to Int: a field of 19 digits must be refused, not trap.
        guard (1980...2200).contains(year), (1...12).contains(month), (1...31).contains(day),
            year == year.rounded(.down), month == month.rounded(.down), day == day.rounded(.down)
        else {
            throw .outOfRange("date \(wholeNumber(year))-\(wholeNumber(month))-\(wholeNumber(day)) is not a valid date")
        }
        // Days from 1970-01-01 to the date (proleptic Gregorian; Howard Hinnant's days_from_civil).
        let y = Int(year) - (month <= 2 ? 1 : 0)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int(month)
        let dayOfYear = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + Int(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Double(era * 146_097 + dayOfEra - 719_468) * 86_400
    }

    /// A number as a date field shows it: without a fraction when it has none and fits an `Int`.
    private static func wholeNumber(_ value: Double) -> String {
        Int(exactly: value).map(String.init) ?? "\(value)"
    }

    // MARK: Fields

    /// A heading field: empty is `nil`; otherwise it must lie in [0, 360] (360 folds to 0 later).
    private static func heading(_ sentence: NMEASentence, _ index: Int, _ name: String) throws(LineDecodingError)
        -> Double?
    {
        guard let value = try sentence.number(index, name) else { return nil }
        guard (0...360).contains(value) else {
            throw .outOfRange("field \(index) (\(name)) \(sentence[index]) is outside 0–360°")
        }
        return value
    }

    /// A value with an E/W direction field after it: East positive.
    private static func signedAngle(_ sentence: NMEASentence, _ index: Int, _ directionIndex: Int, _ name: String)
        throws(LineDecodingError) -> Double?
    {
        guard let value = try sentence.number(index, name) else { return nil }
        guard (0...180).contains(abs(value)) else {
            throw .outOfRange("field \(index) (\(name)) \(sentence[index]) is outside ±180°")
        }
        switch sentence.firstByte(directionIndex) {
        case UInt8(ascii: "E"): return value
        case UInt8(ascii: "W"): return -value
        case nil: throw .malformed("field \(directionIndex) (\(name) direction) is empty; expected E or W")
        case let other?:
            throw .malformed("field \(directionIndex) (\(name) direction) is '\(Character(Unicode.Scalar(other)))'; expected E or W")
        }
    }

    private static func bounded(_ sentence: NMEASentence, _ index: Int, _ name: String, _ range: ClosedRange<Double>)
        throws(LineDecodingError) -> Double?
    {
        guard let value = try sentence.number(index, name) else { return nil }
        guard range.contains(value) else {
            throw .outOfRange("field \(index) (\(name)) \(sentence[index]) is outside \(range.lowerBound)…\(range.upperBound)")
        }
        return value
    }

    /// The kind of sensor a talker ID suggests: gyro for HE/HN, GNSS compass for satellite talkers.
    private static func kind(forTalker talker: (UInt8, UInt8)?) -> Heading.Kind {
        guard let (first, second) = talker else { return .compass }
        switch (Unicode.Scalar(first), Unicode.Scalar(second)) {
        case ("H", "E"), ("H", "N"): return .inertial
        case ("G", "P"), ("G", "N"), ("G", "A"), ("G", "L"), ("G", "B"), ("G", "Q"), ("G", "I"), ("B", "D"): return .gnssCompass
        default: return .compass
        }
    }
}
