// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names the calling thread as `ps`, `top` and `/proc/self/task/*/comm` show it (Linux keeps 15
/// characters). Foundation's `Thread.name` reaches the system only when set from the thread
/// after `start()` has recorded it, which races; `pthread_setname_np` needs `_GNU_SOURCE`, which
/// Swift's Glibc module does not define, so it is looked up at run time.
/// - Parameter name: The name; cut to 15 bytes by the system.
package func setThreadName(_ name: String) {
    #if canImport(Glibc)
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(nil, "pthread_setname_np") else { return }  // nil is RTLD_DEFAULT
    let short = String(decoding: name.utf8.prefix(15), as: UTF8.self)
    _ = short.withCString { unsafeBitCast(symbol, to: SetName.self)(pthread_self(), $0) }
    #endif
}
