// headingd
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// The scan's progress on standard error: a line per candidate as it starts a step and as it
/// ends, and a countdown — on a terminal one line that updates each second, else a line every 5 s.
final class ScanProgress: Sendable {
    private struct State {
        var done = 0
        var lastTick = -1
        var lineOpen = false
    }

    private let total: Int
    private let interactive: Bool
    private let state = Mutex(State())

    init(total: Int, interactive: Bool) {
        self.total = total
        self.interactive = interactive
    }

    /// A line of its own.
    func say(_ line: String) {
        state.withLock { state in
            if state.lineOpen {
                FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            }
            state.lineOpen = false
            LineWriter.standardError.write(line)
        }
    }

    /// A candidate begins a step (a rate, listening).
    func step(_ candidate: String, _ step: String) {
        say("  \(candidate): \(step)…")
    }

    /// A candidate is done.
    func done(_ finding: ScanFinding) {
        let count = state.withLock { state in
            state.done += 1
            return state.done
        }
        let verdict = switch finding.outcome {
        case .heard: finding.sources.isEmpty ? "heard, no heading" : "\(finding.sources.count) heading source\(finding.sources.count == 1 ? "" : "s")"
        case .silent: "silent"
        case .unavailable: "not available"
        case .permissionDenied: "permission denied"
        }
        say("  [\(count)/\(total)] \(finding.candidate): \(verdict)")
    }

    /// Each second while listening.
    func tick(elapsed: Double, longest: Double) {
        let second = Int(elapsed.rounded(.down))
        state.withLock { state in
            guard second != state.lastTick else { return }
            state.lastTick = second
            let left = max(0, Int(longest.rounded(.up)) - second)
            let text = "  \(state.done) of \(total) done; at most \(left) s left"
            if interactive {
                FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
                state.lineOpen = true
            } else if second % 5 == 0, second > 0 {
                LineWriter.standardError.write(text)
            }
        }
    }

    /// Ends the countdown's line.
    func finish() {
        state.withLock { state in
            if state.lineOpen { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            state.lineOpen = false
        }
    }
}
