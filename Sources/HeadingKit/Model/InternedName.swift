// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// A name that many values carry (a heading's source), kept once per process and
/// referred to by its address: copying a value that carries it then costs no reference counting.
///
/// A heading is copied several times between a line's bytes and an observer, and each copy of a
/// `String` name retains and releases its storage. The first names (1024 in ``Table/process``) are
/// kept for the life of the process and never freed; past that a name is held in a reference-
/// counted box of its own, so endless new names cost what strings cost, and the table never grows
/// past its cap (nor keeps a name longer than 256 bytes).
package struct InternedName: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked Sendable: `.kept` refers to a box without retaining it. The box is immutable
    // and is owned by a `Table` (added under its `boxes` Mutex), which never removes an entry;
    // the process's table lives as long as the process, so the reference stays valid on any
    // thread. A test's own table must outlive the names made in it.
    private enum Storage {
        /// A name in the table: copies retain nothing.
        case kept(Unmanaged<Box>)
        /// A name the table did not keep (it was full, or the name too long): copies retain it,
        /// as a string's would.
        case held(Box)
    }

    /// A name's one copy. A class, so that both cases of ``Storage`` are one word and the
    /// enum stays one word (a pointer and a `String` would take 17 bytes).
    fileprivate final class Box: Sendable {
        let string: String
        init(_ string: String) { self.string = string }
    }

    private let storage: Storage

    /// Where names are kept: one per process (``process``), or a small one in a test.
    package final class Table: Sendable {
        /// How many different names are kept; later ones are held as ordinary references.
        package let capacity: Int
        /// The longest name kept, in UTF-8 bytes; a longer one is held as an ordinary reference,
        /// so the table holds at most `capacity × maximumKeptLength` bytes of names.
        package static let maximumKeptLength = 256
        /// The kept names, by name. Entries are added under the lock and never removed.
        fileprivate let boxes = Mutex<[String: Box]>([:])

        /// Creates an empty table.
        /// - Parameter capacity: How many different names it keeps.
        package init(capacity: Int) { self.capacity = capacity }

        /// The process's table: 1024 names, far more than a process has sources.
        package static let process = Table(capacity: 1024)
    }

    /// The name for `name`: the kept one if `name` has been seen (or there is room to keep it),
    /// otherwise a box of its own. Takes a lock and a dictionary lookup: make it once per
    /// source, not once per heading.
    /// - Parameters:
    ///   - name: The name.
    ///   - table: Where names are kept. Default: the process's.
    package init(_ name: String, in table: Table = .process) {
        let kept: Box? = table.boxes.withLock { boxes in
            if let kept = boxes[name] { return kept }
            guard boxes.count < table.capacity, name.utf8.count <= Table.maximumKeptLength else { return nil }
            let kept = Box(name)
            boxes[name] = kept
            return kept
        }
        storage = kept.map { .kept(Unmanaged.passUnretained($0)) } ?? .held(Box(name))
    }

    /// The name as a string.
    package var string: String {
        switch storage {
        case .kept(let box): box._withUnsafeGuaranteedRef { $0.string }
        case .held(let box): box.string
        }
    }

    /// Whether the name is one of the kept ones (and so costs no reference counting to copy).
    package var isKept: Bool {
        if case .kept = storage { true } else { false }
    }

    package var description: String { string }

    /// Two names are equal when their strings are: for kept names, when their boxes are.
    package static func == (lhs: InternedName, rhs: InternedName) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.kept(let left), .kept(let right)): left.toOpaque() == right.toOpaque()
        default: lhs.string == rhs.string
        }
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(string) }
}
