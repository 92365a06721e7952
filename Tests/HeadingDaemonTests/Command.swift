// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import Synchronization

/// A command run to completion, its standard output and error together.
enum Command {
    /// Runs `executable` with `arguments` (in `directory`, if given) on a thread of its own, so
    /// that a slow command (lintian takes seconds) does not hold a thread of the cooperative pool
    /// that other tests share.
    /// - Returns: The exit status, standard output, and standard error.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(executable, arguments, in: directory) }) }.start()
        }
    }

    private static func runBlocking(_ executable: String, _ arguments: [String], in directory: URL?) throws -> (
        status: Int32, output: String, errors: String
    ) {
        let launched = try ChildProcess.launch(
            executable, arguments, environment: ProcessInfo.processInfo.environment, directory: directory?.path
        )
        // Drain standard error beside standard output, so neither pipe fills up and blocks the command.
        let errorData = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread {
            ChildProcess.drain(launched.errors) { data in errorData.withLock { $0.append(data) } }
            drained.signal()
        }.start()
        var outputData = Data()
        ChildProcess.drain(launched.output) { outputData.append($0) }
        let termination = ChildProcess.reap(launched.pid)
        drained.wait()
        let status: Int32
        switch termination {
        case .exited(let code): status = code
        case .signalled(let signal): status = signal
        }
        return (
            status, String(decoding: outputData, as: UTF8.self),
            errorData.withLock { String(decoding: $0, as: UTF8.self) }
        )
    }
}
