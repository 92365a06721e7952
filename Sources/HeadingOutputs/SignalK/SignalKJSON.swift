// headingd — HeadingOutputs
// SPDX-License-Identifier: Apache-2.0

import Foundation

/// The few JSON pieces Signal K messages are made of, written straight into a string: no
/// encoder, no intermediate dictionary.
enum SignalKJSON {
    /// A number in its shortest form that reads back the same; `null` when it is not finite.
    static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "null" }
        return value == 0 ? "0" : "\(value)"
    }

    /// An RFC 3339 UTC time with milliseconds, ending in `Z`, as Signal K requires.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return "\"1970-01-01T00:00:00.000Z\"" }
        let whole = Int64(milliseconds)
        var seconds = time_t(whole.quotient(dividingBy: 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\"\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(whole.remainderMilliseconds), 3))Z\""
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity, so that times before 1970 stay right.
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// The milliseconds past the whole second (0 to 999), for negative times too.
    fileprivate var remainderMilliseconds: Int64 {
        let remainder = self % 1000
        return remainder < 0 ? remainder + 1000 : remainder
    }
}
