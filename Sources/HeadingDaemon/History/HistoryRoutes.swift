// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingOutputs
import Hummingbird
import NIOCore

/// Signal K's v2 History API over the ``HeadingHistory``, read-only, on the Signal K listener:
/// `/signalk/v2/api/history/values?paths=…` (with `from`, `to`, `duration`, `resolution`),
/// `…/paths` and `…/contexts`, so that a Signal K history client plots what the compass did.
///
/// Paths: `navigation.headingTrue` and `navigation.headingMagnetic`, in radians. Methods:
/// `average` (the circular mean: the mean of 359° and 1° is 0°), `min`, `max` (numeric, so
/// meaningless across north), `first`, `last`, `middle_index`. Bounded: a range of at most
/// ``maximumRange``, at most ``maximumRows`` rows; a bad request is a 400 with its reason.
struct HistoryRoutes: Sendable {
    /// The longest range one request may ask for.
    static let maximumRange: Double = 366 * 86_400
    /// The most rows one answer holds.
    static let maximumRows = 100_000
    /// The methods served.
    static let methods = ["average", "min", "max", "first", "last", "middle_index"]

    let history: HeadingHistory
    /// The vessel's context, `vessels.<self>`.
    let context: String

    /// Why a request cannot be answered (a 400).
    struct BadRequest: Error {
        let message: String
    }

    /// Adds the routes to `router`.
    func add(to router: Router<BasicRequestContext>) {
        let routes = self
        router.get("signalk/v2/api/history/values") { request, _ in routes.answer { try routes.values(request.uri.queryParameters) } }
        router.get("signalk/v2/api/history/paths") { request, _ in
            routes.answer {
                let (from, to) = try Self.range(request.uri.queryParameters)
                return "[" + (try routes.history.paths(from: from, to: to)).map { JSONText.quoted($0) }.joined(separator: ",") + "]"
            }
        }
        router.get("signalk/v2/api/history/contexts") { request, _ in
            routes.answer {
                let (from, to) = try Self.range(request.uri.queryParameters)
                return try routes.history.paths(from: from, to: to).isEmpty ? "[]" : "[\(JSONText.quoted(routes.context))]"
            }
        }
    }

    /// Runs `body` and makes its JSON (or its error) a response.
    private func answer(_ body: () throws -> String) -> Response {
        do {
            return Self.json(.ok, try body())
        } catch let bad as BadRequest {
            return Self.json(.badRequest, "{\"statusCode\":400,\"message\":\(JSONText.quoted(bad.message))}")
        } catch {
            return Self.json(.internalServerError, "{\"statusCode\":500,\"message\":\(JSONText.quoted("the history cannot be read: \(error)"))}")
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: values

    private func values(_ query: Parameters) throws -> String {
        guard let pathsText = query["paths"], !pathsText.isEmpty else { throw BadRequest(message: "paths is required, such as paths=navigation.headingTrue:average") }
        let requested = try pathsText.split(separator: ",").map { expression -> (path: String, method: String) in
            let parts = expression.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 2, let path = parts.first, HeadingHistory.paths.contains(path) else {
                throw BadRequest(message: "unknown path expression \(expression): the paths kept are \(HeadingHistory.paths.joined(separator: ", ")), each with :method")
            }
            let method = parts.count == 2 ? parts[1] : "average"
            guard Self.methods.contains(method) else { throw BadRequest(message: "unknown method \(method): \(Self.methods.joined(separator: ", "))") }
            return (path, method)
        }
        guard requested.count <= 16 else { throw BadRequest(message: "at most 16 path expressions") }
        if let asked = query["context"], asked != "vessels.self", asked != context {
            throw BadRequest(message: "only this vessel's history is kept here: \(context)")
        }
        let (from, to) = try Self.range(query)
        let resolution = try query["resolution"].map { try Self.seconds($0, name: "resolution") } ?? max(1, ((to - from) / 500).rounded(.up))
        guard resolution > 0, (to - from) / resolution <= Double(Self.maximumRows) else {
            throw BadRequest(message: "resolution \(resolution) s is too fine for the range: at most \(Self.maximumRows) rows")
        }
        var rows: [String] = []
        var bucket: Int?
        var collected: [[Double]] = Array(repeating: [], count: requested.count)
        func emit() {
            guard let bucket, collected.contains(where: { !$0.isEmpty }) else { return }
            let values = zip(requested, collected).map { request, values in Self.aggregate(values, request.method).map(DecimalJSON.number) ?? "null" }
            rows.append("[\(DecimalJSON.timestamp(from + Double(bucket) * resolution)),\(values.joined(separator: ","))]")
        }
        try history.forEachSample(from: from, to: to) { sample in
            let index = Int(((sample.time - from) / resolution).rounded(.down))
            if index != bucket {
                emit()
                bucket = index
                collected = Array(repeating: [], count: requested.count)
            }
            for (position, request) in requested.enumerated() {
                let value = request.path == HeadingHistory.paths[0] ? sample.headingTrue : sample.headingMagnetic
                if let value { collected[position].append(value) }
            }
        }
        emit()
        let values = requested.map { "{\"path\":\(JSONText.quoted($0.path)),\"method\":\(JSONText.quoted($0.method))}" }.joined(separator: ",")
        return "{\"context\":\(JSONText.quoted(context)),\"range\":{\"from\":\(DecimalJSON.timestamp(from)),\"to\":\(DecimalJSON.timestamp(to))},"
            + "\"values\":[\(values)],\"data\":[\(rows.joined(separator: ","))]}"
    }

    /// One bucket's values by `method`; `nil` when it has none.
    static func aggregate(_ values: [Double], _ method: String) -> Double? {
        guard !values.isEmpty else { return nil }
        switch method {
        case "min": return values.min()
        case "max": return values.max()
        case "first": return values.first
        case "last": return values.last
        case "middle_index": return values[values.count / 2]
        default:
            // The circular mean: headings are angles.
            let sine = values.reduce(0) { $0 + sin($1) }, cosine = values.reduce(0) { $0 + cos($1) }
            guard abs(sine) > 1e-12 || abs(cosine) > 1e-12 else { return values.first }
            let mean = atan2(sine, cosine)
            return mean < 0 ? mean + 2 * .pi : mean
        }
    }

    // MARK: Time

    /// The range a request asks for: `from`, `to` and `duration`, as Signal K defines them.
    static func range(_ query: Parameters, now: Double = Date().timeIntervalSince1970) throws -> (Double, Double) {
        let from = try query["from"].map { try timestamp($0, name: "from") }
        let to = try query["to"].map { try timestamp($0, name: "to") }
        let duration = try query["duration"].map { try seconds($0, name: "duration") }
        let range: (Double, Double)
        switch (from, to, duration) {
        case (let from?, let to?, _): range = (from, to)
        case (let from?, nil, let duration?): range = (from, from + duration)
        case (let from?, nil, nil): range = (from, now)
        case (nil, let to?, let duration?): range = (to - duration, to)
        case (nil, let to?, nil): range = (to - 86_400, to)
        case (nil, nil, let duration?): range = (now - duration, now)
        case (nil, nil, nil): throw BadRequest(message: "a range is required: from, to or duration")
        }
        guard range.0 <= range.1, range.1 - range.0 <= maximumRange else {
            throw BadRequest(message: "the range must run forwards and span at most 366 days")
        }
        return range
    }

    /// An ISO 8601 time, such as `2026-11-25T21:00:00Z` or with milliseconds and an offset.
    static func timestamp(_ text: Substring, name: String) throws -> Double {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: String(text)) { return date.timeIntervalSince1970 }
        }
        throw BadRequest(message: "\(name) must be an ISO 8601 time such as 2026-11-25T21:00:00Z, not \(text.prefix(40))")
    }

    /// Seconds from milliseconds (an integer), `10s`, `1m`, `1h`, `1d`, or an ISO 8601 duration (`PT15M`, `P1D`).
    static func seconds(_ text: Substring, name: String) throws -> Double {
        let bad = BadRequest(message: "\(name) must be milliseconds, 1s, 1m, 1h, 1d or an ISO 8601 duration such as PT15M, not \(text.prefix(40))")
        guard text.count <= 40 else { throw bad }
        if let milliseconds = Double(text), milliseconds.isFinite, milliseconds > 0 { return milliseconds / 1000 }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let scale = units[unit], let number = Double(text.dropLast()), number.isFinite, number > 0 { return number * scale }
        guard text.hasPrefix("P") else { throw bad }
        var total = 0.0, number = "", inTime = false
        for character in text.dropFirst() {
            if character == "T" {
                inTime = true
            } else if character.isNumber || character == "." {
                number.append(character)
            } else {
                guard let value = Double(number), value.isFinite else { throw bad }
                switch (character, inTime) {
                case ("D", false): total += value * 86_400
                case ("W", false): total += value * 604_800
                case ("H", true): total += value * 3600
                case ("M", true): total += value * 60
                case ("S", true): total += value
                default: throw bad
                }
                number = ""
            }
        }
        guard number.isEmpty, total > 0 else { throw bad }
        return total
    }
}

/// Numbers and times as the History API writes them.
enum DecimalJSON {
    static func number(_ value: Double) -> String { value.isFinite ? "\(value)" : "null" }

    static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return JSONText.quoted(formatter.string(from: Date(timeIntervalSince1970: seconds)))
    }
}
