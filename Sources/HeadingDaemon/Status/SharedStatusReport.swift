// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// The status report's JSON made at most once a ``StatusRoutes/eventInterval`` however many event
/// streams ask for it: sixteen open status pages cost one report a tick, not sixteen.
final class SharedStatusReport: Sendable {
    private let board: StatusBoard
    private let maximumAge: Duration
    private let latest = Mutex<(madeAt: ContinuousClock.Instant, json: Data)?>(nil)

    /// - Parameters:
    ///   - board: Where the report comes from.
    ///   - maximumAge: How long one report serves.
    init(board: StatusBoard, maximumAge: Duration) {
        self.board = board
        self.maximumAge = maximumAge
    }

    /// The report's JSON: the one made less than ``maximumAge`` ago, else a new one.
    /// - Parameters:
    ///   - instant: Now, on the clock that ages the report.
    ///   - date: Now, as the report states it.
    func json(at instant: ContinuousClock.Instant = .now, date: Date = Date()) -> Data {
        if let latest = latest.withLock({ $0 }), instant - latest.madeAt < maximumAge, instant >= latest.madeAt { return latest.json }
        let json = board.report(at: date).json()
        latest.withLock { $0 = (instant, json) }
        return json
    }
}
