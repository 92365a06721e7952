// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import Foundation

/// Something that stopped or spoiled headings: a lost device, an unreachable gpsd, a bad line in a file.
///
/// A fault is an event, not the end of a heading stream: headings flow again once the source recovers.
public struct HeadingFault: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public let code: Code
    /// The name of the source that raised the fault.
    public let source: String
    /// A sentence for a person saying what went wrong and, where it helps, what to do.
    public let reason: String
    /// The input file and line the fault concerns, for malformed input.
    public let location: InputLocation?
    /// When the fault was raised.
    public let timestamp: Date
    /// How many bad inputs the fault stands for: 1, or, for the summary of a flood of bad lines
    /// (a source reports the first whole, then at most one summary every 10 s), how many lines it
    /// counts. Summing it over a source's faults counts every bad line.
    public let occurrences: Int

    /// Creates a fault.
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - source: The name of the source that raised it.
    ///   - reason: A sentence for a person.
    ///   - location: The input file and line concerned, if any.
    ///   - timestamp: When it was raised.
    ///   - occurrences: How many bad inputs it stands for. Default 1.
    public init(
        code: Code, source: String, reason: String, location: InputLocation? = nil, timestamp: Date = Date(), occurrences: Int = 1
    ) {
        self.code = code
        self.source = source
        self.reason = reason
        self.location = location
        self.timestamp = timestamp
        self.occurrences = max(1, occurrences)
    }

    private enum CodingKeys: String, CodingKey {
        case code, source, reason, location, timestamp, occurrences
    }

    /// Decodes a fault; one encoded before ``occurrences`` existed stands for one input.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` when a field is missing or of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        source = try container.decode(String.self, forKey: .source)
        reason = try container.decode(String.self, forKey: .reason)
        location = try container.decodeIfPresent(InputLocation.self, forKey: .location)
        timestamp = try container.decode(Date.self, forKey: .timestamp)
        occurrences = max(1, try container.decodeIfPresent(Int.self, forKey: .occurrences) ?? 1)
    }

    /// One line naming the source, the code, the place and the reason.
    public var description: String {
        var text = "\(source): \(code)"
        if let location { text += " at \(location)" }
        return text + ": \(reason)"
    }
}

extension HeadingFault {
    /// A place in an input file: its path and 1-based line number.
    public struct InputLocation: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The file's path as the user gave it.
        public let path: String
        /// The 1-based line number.
        public let line: Int

        /// Creates a location.
        /// - Parameters:
        ///   - path: The file's path.
        ///   - line: The 1-based line number.
        public init(path: String, line: Int) {
            self.path = path
            self.line = line
        }

        /// `path:line`, the form compilers and editors understand.
        public var description: String { "\(path):\(line)" }
    }
}
