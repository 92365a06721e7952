// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

package import HeadingPorts
package import Logging

extension NMEAStreamEndpoint.Transport {
    /// Opens the transport: the one opener of every feed, the sources' and `headingd scan`'s.
    /// A serial line with `baud=auto` opens at the first of ``NMEAStreamEndpoint/baudRates``;
    /// ``SerialBaudProbe`` then finds its rate.
    /// - Parameters:
    ///   - writable: Whether bytes will be written (an Actisense NGT-1's start-up message).
    ///   - connectTimeout: How long a TCP connection attempt waits.
    ///   - signal: Ends a connection attempt early.
    ///   - logger: Where a child process's standard error goes.
    /// - Throws: ``PortFailure`` naming the device or address and why.
    package func open(
        writable: Bool = false, connectTimeout: Duration, signal: StopSignal, logger: Logger
    ) throws(PortFailure) -> any ByteStream {
        switch self {
        case .serial(let path, let baud):
            switch baud {
            case .fixed(let rate): return try SerialLineStream(path: path, baud: rate, writable: writable)
            case .automatic: return try SerialLineStream(path: path, baud: NMEAStreamEndpoint.baudRates[0], writable: writable)
            }
        case .tcp(let host, let port):
            return try TCPClientStream(host: host, port: port, timeout: connectTimeout, signal: signal)
        case .udp(let address, let port):
            return try UDPListenerStream(address: address, port: port)
        case .standardInput:
            return StandardInputStream()
        case .childProcess(let path, let arguments):
            return try ChildProcessStream(path: path, arguments: arguments, logger: logger)
        case .socketCAN(let interface):
            return try SocketCANStream(interface: interface)
        }
    }
}
