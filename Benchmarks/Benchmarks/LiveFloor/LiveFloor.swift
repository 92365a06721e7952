// headingd benchmarks — the post-and-decode floor of a heading behind gpsd (scripts/bench-live).
// SPDX-License-Identifier: Apache-2.0
//
// Usage: LiveFloor gpsd://HOST:PORT
//
// What any program that gives gpsd's headings to Foundation observers must do for each one, and
// nothing more: HeadingKitGPSD's source reads and decodes gpsd's report (libgps), its delegate
// posts the heading to a NotificationCenter as HeadingKit's notification (the post the library
// promises), and the one observer writes the heading's degrees as a line to stdout (so that the
// benchmark counts and times it as it does headingd's JSON lines). No proxy, no processor, no
// fan-out, no formatter: what headingd costs above this is what headingd adds. Runs until SIGTERM.

import Foundation
import HeadingKit
import HeadingKitGPSD

/// Posts every heading the source decodes; the floor has no use for faults or authorization.
final class Poster: HeadingSourceDelegate {
    let center: NotificationCenter

    init(center: NotificationCenter) { self.center = center }

    func headingSource(_ source: any HeadingSource, didUpdate heading: Heading) {
        center.post(Notification.heading(.heading(heading), object: nil))
    }

    func headingSource(_ source: any HeadingSource, didFailWith fault: HeadingFault) {}

    func headingSource(_ source: any HeadingSource, didChangeAuthorization status: HeadingAuthorizationStatus) {}
}

@main
struct LiveFloor {
    static func main() throws {
        guard CommandLine.arguments.count == 2 else {
            FileHandle.standardError.write(Data("usage: LiveFloor gpsd://HOST:PORT\n".utf8))
            exit(64)
        }
        let endpoint = try GPSDEndpoint(parsing: CommandLine.arguments[1])
        let center = NotificationCenter()
        let observation = center.addHeadingEventObserver { event in
            guard case .heading(let heading) = event, let degrees = heading.trueHeading, degrees.isFinite else { return }
            // Tenths of a degree as integers: the cheapest text that says the heading, so that the
            // floor's line costs less than any formatter's (String(format:) would cost more than the post).
            let tenths = Int((degrees * 10).rounded())
            var line = "\(tenths / 10).\(tenths % 10)\n"
            line.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
        }
        let poster = Poster(center: center)
        let source = GPSDHeadingSource(configuration: .init(endpoint: endpoint))
        source.delegate = poster
        source.start()
        withExtendedLifetime((observation, poster, source)) { dispatchMain() }
    }
}
