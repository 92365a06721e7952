// headingd — HeadingPorts
// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
package import Glibc
#endif

/// Which thread is running: compared to tell a thread apart from another (a broadcast's
/// delivering thread never waits for room in its own queue). `pthread_self`, cheap enough for
/// every heading, and inlined where it is asked (the broadcast asks at each event).
package struct ThreadIdentity: Equatable, @unchecked Sendable {
    // @unchecked: a pthread_t is a thread's number, only compared, never dereferenced here.
    @usableFromInline let thread: pthread_t

    @inlinable init(thread: pthread_t) { self.thread = thread }

    /// The thread running now.
    @inlinable package static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

    @inlinable package static func == (left: ThreadIdentity, right: ThreadIdentity) -> Bool {
        pthread_equal(left.thread, right.thread) != 0
    }
}
