// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// The object filter of a publisher, held weakly until a subscriber arrives.
///
/// Safety: `@unchecked Sendable` because `object` is written only by `init` (a weak reference,
/// then only read, once per subscription), and the center only compares it by identity.
final class WeakPoster: @unchecked Sendable {
    private(set) weak var object: AnyObject?
    init(_ object: AnyObject?) { self.object = object }
}
