// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A socat pty pair with fixed links, ended with the value (socat removes its links).
final class PTYPair {
    let process = Process()
    let ends: (String, String)

    init(_ ends: (String, String)) throws {
        self.ends = ends
        process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        process.arguments = ["pty,raw,echo=0,b4800,link=\(ends.0)", "pty,raw,echo=0,b4800,link=\(ends.1)"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // socat makes its links at once; nothing to await but their appearance (bounded).
        let deadline = ContinuousClock.now + .seconds(5)
        while !(FileManager.default.fileExists(atPath: ends.0) && FileManager.default.fileExists(atPath: ends.1)),
            ContinuousClock.now < deadline
        {
            usleep(10_000)
        }
    }

    /// SIGKILL, and its links removed: a child started from a test thread inherits the thread's
    /// signal mask, in which libdispatch blocks SIGTERM, so socat would not see a terminate().
    func end() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: ends.0)
        try? FileManager.default.removeItem(atPath: ends.1)
    }

    deinit { if process.isRunning { end() } }
}

extension PTYPair {
    /// Writes `text` to a pty's end (opened afresh), as an instrument on a serial line would.
    /// - Returns: Whether every byte was written.
    @discardableResult
    static func write(_ text: String, to path: String) -> Bool { write(bytes: Array(text.utf8), to: path) }

    /// Writes `bytes` to a pty's end (opened afresh).
    /// - Returns: Whether every byte was written.
    @discardableResult
    static func write(bytes: [UInt8], to path: String) -> Bool {
        let descriptor = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}

extension PTYPair {
    /// Reads what has come to a pty's end (opened afresh) within `milliseconds`: what headingd wrote
    /// to the device.
    static func read(from path: String, milliseconds: Int32) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var raw = termios()
        if tcgetattr(descriptor, &raw) == 0 {
            cfmakeraw(&raw)
            tcsetattr(descriptor, TCSANOW, &raw)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(milliseconds)))
        while ContinuousClock.now < deadline {
            var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, 50) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes += buffer[0..<count] }
        }
        return bytes
    }
}
