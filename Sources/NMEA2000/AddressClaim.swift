// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// One node's address on the bus, claimed as ISO 11783-5 says (the NMEA2000 library's and
/// canboat's reading of it): claimed at the address it last held; 250 ms of nothing but claims
/// after a claim; the lower NAME winning a contest for an address — the winner claims again, the
/// loser moves to an address nobody has claimed, else to one held by a NAME it beats (it wins that
/// contest), or claims 254 ("cannot claim") and goes quiet when every address is held by a lower
/// NAME; a request for the claim (59904 for 60928) answered every time, without starting the 250 ms
/// again; once at 254, only the cannot-claim message, whatever starts it again.
///
/// Pure: fed with what the bus says and the time, it says what to send; the caller sends it.
/// Bounded whatever a rival does: which addresses others hold is 256 bits, nothing grows.
public struct AddressClaim: Sendable {
    /// Where the claim stands.
    public enum State: Sendable, Hashable {
        /// A claim for the address was sent at `since`: the node may send only claims until 250 ms
        /// have passed without a lower NAME contesting it.
        case claiming(since: Duration)
        /// The address is the node's: it may send anything.
        case claimed
        /// Every address is held by a lower NAME: the node claimed 254 and sends nothing else.
        case cannotClaim
    }

    /// What to send.
    public enum Action: Sendable, Hashable {
        /// An Address Claim (60928, to 255) from this address: 0–251, or 254 when none could be had.
        case sendClaim(from: UInt8)
    }

    /// The highest address a node may claim.
    public static let highestAddress: UInt8 = 251
    /// The address of a node that cannot claim one.
    public static let nullAddress: UInt8 = 254
    /// How long a claim must go uncontested.
    public static let claimTimeout: Duration = .milliseconds(250)

    /// The node's NAME: the lower wins a contest.
    public let name: DeviceName
    /// The address claimed or being claimed (254 when none could be had).
    public private(set) var address: UInt8
    /// Where the claim stands.
    public private(set) var state: State
    /// How many times the node moved to another address after losing a contest.
    public private(set) var moves = 0
    /// Addresses claimed by others, as heard: 256 bits.
    private var taken: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Addresses claimed by a NAME lower than the node's (which it cannot win): 256 bits.
    private var heldByLower: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Whether the claim under way has not yet been written: only its writing restarts the 250 ms
    /// (an answer to a request, written later, does not: a bus asking every 200 ms held it for ever).
    private var awaitsWrite = false

    /// A node about to claim `preferred` (the address it held last; 0–251, else it starts at 0… the
    /// first free one).
    /// - Parameters:
    ///   - name: The node's NAME.
    ///   - preferred: The address it held last.
    public init(name: DeviceName, preferred: UInt8) {
        self.name = name
        address = preferred <= Self.highestAddress ? preferred : 0
        state = .claiming(since: .zero)
    }

    /// Whether the node may send what is not a claim now: after 250 ms of an uncontested claim.
    public var mayTransmit: Bool { state == .claimed }

    /// Starts (or starts again, after the bus came back) the claim at the current address.
    /// - Parameter now: The time (any origin, the same for every call).
    /// - Returns: The claim to send.
    public mutating func start(at now: Duration) -> [Action] {
        // A node that could not claim stays quiet at 254: a gateway reconnecting is not a new bus.
        guard state != .cannotClaim else { return [.sendClaim(from: Self.nullAddress)] }
        state = .claiming(since: now)
        awaitsWrite = true
        return [.sendClaim(from: address)]
    }

    /// Lets time pass: a claim uncontested for 250 ms is won.
    /// - Parameter now: The time.
    /// - Returns: Whether the claim was won just now.
    public mutating func tick(at now: Duration) -> Bool {
        guard case .claiming(let since) = state, now - since >= Self.claimTimeout else { return false }
        state = .claimed
        return true
    }

    /// The claim under way went out at `now` (its frame written, later than it was made): the
    /// 250 ms are counted from then, as the bus sees them. Nothing changes once claimed.
    /// - Parameter now: When the claim's frame was written.
    public mutating func sent(at now: Duration) {
        guard awaitsWrite, case .claiming(let since) = state else { return }
        awaitsWrite = false
        if now > since { state = .claiming(since: now) }
    }

    /// The time at which a claim under way is won if nobody contests it; `nil` when none is under way.
    public var deadline: Duration? {
        if case .claiming(let since) = state { return since + Self.claimTimeout }
        return nil
    }

    /// Takes a claim heard on the bus.
    /// - Parameters:
    ///   - source: The address it claims (or 254: a node that cannot claim).
    ///   - rival: Its NAME.
    ///   - now: The time.
    /// - Returns: What to send: a claim again when this node wins a contest, a claim from another
    ///   address (or 254) when it loses one; nothing for a claim of another address.
    public mutating func heardClaim(from source: UInt8, name rival: DeviceName, at now: Duration) -> [Action] {
        // The node's own claim, read back (SocketCAN shows a node's frames to its other sockets,
        // a gateway echoes them), or a copy of its NAME elsewhere: never a contest.
        guard rival != name, source <= Self.highestAddress else { return [] }
        let lower = rival.rawValue < name.rawValue
        guard source == address, state != .cannotClaim else {
            markTaken(source, byLower: lower)
            return []
        }
        if name.rawValue < rival.rawValue {
            // Won: the rival moves; the claim is said again so that every node hears who holds it.
            return [.sendClaim(from: address)]
        }
        markTaken(source, byLower: true)
        guard let free = nextFreeAddress(after: address) else {
            address = Self.nullAddress
            state = .cannotClaim
            awaitsWrite = false
            return [.sendClaim(from: Self.nullAddress)]
        }
        address = free
        moves += 1
        state = .claiming(since: now)
        awaitsWrite = true
        return [.sendClaim(from: free)]
    }

    /// Takes an ISO Request (59904) heard on the bus.
    /// - Parameters:
    ///   - pgn: The PGN requested.
    ///   - destination: 255 (every node) or one address.
    /// - Returns: The claim to send when the request is for 60928 and for this node (answered
    ///   every time, from 254 when no address could be had); nothing otherwise.
    public func heardRequest(for pgn: UInt32, to destination: UInt8) -> [Action] {
        guard pgn == NMEA2000PGN.addressClaim, destination == 255 || destination == address else { return [] }
        return [.sendClaim(from: address)]
    }

    /// Whether another node was heard claiming `address`.
    public func isTaken(_ address: UInt8) -> Bool { Self.bit(address, of: taken) }

    /// Whether a NAME lower than the node's was heard claiming `address`: a contest it would lose.
    public func isHeldByLower(_ address: UInt8) -> Bool { Self.bit(address, of: heldByLower) }

    private static func bit(_ address: UInt8, of set: (UInt64, UInt64, UInt64, UInt64)) -> Bool {
        let word = switch address / 64 {
            case 0: set.0
            case 1: set.1
            case 2: set.2
            default: set.3
        }
        return word >> UInt64(address % 64) & 1 == 1
    }

    private static func set(_ address: UInt8, in set: inout (UInt64, UInt64, UInt64, UInt64)) {
        let bit = UInt64(1) << UInt64(address % 64)
        switch address / 64 {
        case 0: set.0 |= bit
        case 1: set.1 |= bit
        case 2: set.2 |= bit
        default: set.3 |= bit
        }
    }

    private mutating func markTaken(_ address: UInt8, byLower lower: Bool) {
        Self.set(address, in: &taken)
        if lower { Self.set(address, in: &heldByLower) }
    }

    /// The first address after `start` (wrapping round 0–251) nobody was heard claiming, else the
    /// first held only by NAMEs the node beats (its claim wins there); `nil` when a lower NAME holds every one.
    private func nextFreeAddress(after start: UInt8) -> UInt8? {
        let count = Int(Self.highestAddress) + 1
        let order = (1...count).map { UInt8((Int(start) + $0) % count) }
        return order.first { !isTaken($0) } ?? order.first { !isHeldByLower($0) }
    }
}
