// headingd — NMEA2000
// SPDX-License-Identifier: Apache-2.0

/// A heading node on the NMEA 2000 bus, pure: what it hears and the time in, the CAN frames to
/// write out. It claims its address (``AddressClaim``), answers what a plotter asks a node (ISO
/// requests for 60928, 126996, 126464 and 126998, broadcast or addressed; a NAK to an addressed
/// request for anything else), sends a heartbeat every 60 s, and sends each heading as 127250 with
/// 127251 and 127257 when known (one SID for the PGNs of one heading) and 127258 once a second.
/// Nothing but claims goes out until the claim is won, and nothing at all from 254.
///
/// It never takes its own frames for another node's: a message from its own address is dropped
/// (SocketCAN shows a node's frames to the host's other sockets, a gateway echoes them), and a
/// claim with its own NAME is never a contest. Every answer is bounded: a flood of requests gets
/// one answer each, nothing queues here.
public struct NMEA2000Node: Sendable {
    /// Who the node is.
    public struct Identity: Sendable, Hashable {
        /// Its NAME.
        public var name: DeviceName
        /// Its model (`headingd`), software version and serial code, for 126996.
        public var model: String
        /// The software version.
        public var softwareVersion: String
        /// The serial code.
        public var serialCode: String
        /// The installation descriptions (126998), each up to 70 characters; empty when none.
        public var installationDescription: String

        /// An identity.
        public init(name: DeviceName, model: String, softwareVersion: String, serialCode: String, installationDescription: String = "") {
            self.name = name
            self.model = model
            self.softwareVersion = softwareVersion
            self.serialCode = serialCode
            self.installationDescription = installationDescription
        }
    }

    /// One heading to send, in degrees (rate in degrees a second, positive to starboard).
    public struct HeadingSample: Sendable, Hashable {
        /// True heading, when known.
        public var trueHeading: Double?
        /// Magnetic heading, when known.
        public var magneticHeading: Double?
        /// Deviation, east positive.
        public var deviation: Double?
        /// Variation, east positive.
        public var variation: Double?
        /// Where the variation came from.
        public var variationSource: MagneticVariation.Source?
        /// Rate of turn, degrees a second.
        public var rateOfTurn: Double?
        /// Pitch, bow up positive.
        public var pitch: Double?
        /// Roll, starboard down positive.
        public var roll: Double?

        /// A sample.
        public init(
            trueHeading: Double? = nil, magneticHeading: Double? = nil, deviation: Double? = nil, variation: Double? = nil,
            variationSource: MagneticVariation.Source? = nil, rateOfTurn: Double? = nil, pitch: Double? = nil, roll: Double? = nil
        ) {
            self.trueHeading = trueHeading
            self.magneticHeading = magneticHeading
            self.deviation = deviation
            self.variation = variation
            self.variationSource = variationSource
            self.rateOfTurn = rateOfTurn
            self.pitch = pitch
            self.roll = roll
        }
    }

    /// The PGNs the node sends (126464's transmit list).
    public static let transmitted: [UInt32] = [
        NMEA2000PGN.isoAcknowledgement, NMEA2000PGN.isoRequest, NMEA2000PGN.addressClaim, NMEA2000PGN.pgnList,
        NMEA2000PGN.heartbeat, NMEA2000PGN.productInformation, NMEA2000PGN.configurationInformation,
        NMEA2000PGN.vesselHeading, NMEA2000PGN.rateOfTurn, NMEA2000PGN.attitude, NMEA2000PGN.magneticVariation,
    ]
    /// The PGNs the node receives (126464's receive list).
    public static let received: [UInt32] = [NMEA2000PGN.isoAcknowledgement, NMEA2000PGN.isoRequest, NMEA2000PGN.addressClaim]

    /// Who the node is.
    public let identity: Identity
    /// Its claim.
    public private(set) var claim: AddressClaim
    /// The heartbeat interval.
    public let heartbeatInterval: Duration
    /// Whether the node only sends data through a gateway that is a node itself (an Actisense
    /// NGT-1 sends under its own address and NAME): no claim, no answers, no heartbeat, and only
    /// single-frame PGNs (the gateway joins nothing it is given).
    public let isDataOnly: Bool
    private var sequence: UInt8 = 0
    private var heartbeatSequence: UInt8 = 0
    private var nextHeartbeat: Duration?
    /// Whether the beat starts at the next heartbeat written (the first after a claim won).
    private var beatStartsWhenWritten = false
    private var lastVariationSent: Duration?
    private var fastPacketSequences: [UInt32: UInt8] = [:]

    /// A node about to claim `preferred`.
    /// - Parameters:
    ///   - identity: Who it is.
    ///   - preferred: The address it held last.
    ///   - heartbeatInterval: 60 s on a boat; shorter in a test (1–60 s, as 126993 holds it).
    ///   - dataOnly: Whether the node only sends data, through a gateway that is a node itself.
    public init(identity: Identity, preferred: UInt8, heartbeatInterval: Duration = .seconds(60), dataOnly: Bool = false) {
        self.identity = identity
        isDataOnly = dataOnly
        claim = AddressClaim(name: identity.name, preferred: preferred)
        self.heartbeatInterval = min(.seconds(60), max(.seconds(1), heartbeatInterval))
    }

    /// The address claimed (254 when none could be had).
    public var address: UInt8 { claim.address }

    /// Starts (or starts again, after the bus came back) with a claim.
    /// - Parameter now: The time (any origin, the same for every call).
    /// - Returns: The frames to write.
    public mutating func start(at now: Duration) -> [CANFrame] {
        nextHeartbeat = nil
        beatStartsWhenWritten = false
        guard !isDataOnly else { return [] }
        return frames(for: claim.start(at: now))
    }

    /// Its claim's frame was written at `now`: the claim's 250 ms count from then
    /// (``AddressClaim/sent(at:)``), not from when the frame was made.
    /// - Parameter now: When the frame was written.
    public mutating func claimSent(at now: Duration) {
        claim.sent(at: now)
    }

    /// A heartbeat's frame was written at `now`. The first after a claim won starts the beat: the
    /// next is due an interval after it reached the bus, not after the tick that made it (which
    /// queued it behind 126996's fast packet, so counting from the tick gave a short first gap
    /// when those frames were slow to go out). Later heartbeats keep the beat they were due on.
    /// - Parameter now: When the frame was written.
    public mutating func heartbeatSent(at now: Duration) {
        guard beatStartsWhenWritten else { return }
        beatStartsWhenWritten = false
        nextHeartbeat = now + heartbeatInterval
    }

    /// The next time ``tick(at:)`` has something to do: the claim's end or the heartbeat.
    public var nextDeadline: Duration? {
        guard !isDataOnly else { return nil }
        if let deadline = claim.deadline { return deadline }
        return claim.mayTransmit ? nextHeartbeat : nil
    }

    /// Lets time pass: a claim won is announced with the node's product information (as the
    /// NMEA2000 library does), and the heartbeat goes out when due.
    /// - Parameter now: The time.
    /// - Returns: The frames to write.
    public mutating func tick(at now: Duration) -> [CANFrame] {
        guard !isDataOnly else { return [] }
        var out: [CANFrame] = []
        if claim.tick(at: now) {
            out += fastPacket(NMEA2000PGN.productInformation, productInformation.payload, to: 255)
            nextHeartbeat = now
            beatStartsWhenWritten = true
        }
        if claim.mayTransmit, let due = nextHeartbeat, now >= due {
            let interval = heartbeatInterval.components
            let milliseconds = UInt16(clamping: interval.seconds * 1000 + interval.attoseconds / 1_000_000_000_000_000)
            out += single(NMEA2000PGN.heartbeat, priority: 7, Heartbeat(interval: milliseconds, sequence: heartbeatSequence).payload)
            heartbeatSequence = heartbeatSequence >= 252 ? 0 : heartbeatSequence + 1
            // From when it was due, not when it went out: a late tick does not drift the beat.
            nextHeartbeat = due + heartbeatInterval * Int(max(1, ((now - due) / heartbeatInterval).rounded(.down) + 1))
        }
        return out
    }

    /// Takes a message heard on the bus.
    /// - Parameters:
    ///   - message: The message.
    ///   - now: The time.
    /// - Returns: The frames to write in answer.
    public mutating func receive(_ message: NMEA2000Message, at now: Duration) -> [CANFrame] {
        guard !isDataOnly else { return [] }
        if message.pgn == NMEA2000PGN.addressClaim, let rival = DeviceName(message) {
            return frames(for: claim.heardClaim(from: message.source, name: rival, at: now))
        }
        // Its own frames, read back: never a request to answer.
        guard message.source != claim.address || claim.address == AddressClaim.nullAddress else { return [] }
        guard let request = ISORequest(message), message.destination == 255 || message.destination == claim.address else { return [] }
        if request.pgn == NMEA2000PGN.addressClaim { return frames(for: claim.heardRequest(for: request.pgn, to: message.destination)) }
        // While claiming, and from 254, nothing but claims.
        guard claim.mayTransmit else { return [] }
        let requester = message.source
        switch request.pgn {
        case NMEA2000PGN.productInformation:
            return fastPacket(NMEA2000PGN.productInformation, productInformation.payload, to: 255)
        case NMEA2000PGN.pgnList:
            return fastPacket(NMEA2000PGN.pgnList, PGNList(function: .transmit, pgns: Self.transmitted).payload, to: requester)
                + fastPacket(NMEA2000PGN.pgnList, PGNList(function: .receive, pgns: Self.received).payload, to: requester)
        case NMEA2000PGN.configurationInformation:
            return fastPacket(NMEA2000PGN.configurationInformation, configurationInformation, to: 255)
        default:
            // An addressed request for what the node does not send gets a NAK; a broadcast one, nothing.
            guard message.destination == claim.address else { return [] }
            return single(NMEA2000PGN.isoAcknowledgement, priority: 6, request.negativeAcknowledgement, to: requester)
        }
    }

    /// The frames of one heading: 127250 (true when known, with the variation and deviation), then
    /// 127251 and 127257 when known, all with one SID; 127258 at most once a second when the
    /// variation is known. Nothing before the claim is won.
    /// - Parameters:
    ///   - sample: The heading.
    ///   - now: The time.
    /// - Returns: The frames to write.
    public mutating func send(_ sample: HeadingSample, at now: Duration) -> [CANFrame] {
        guard claim.mayTransmit || isDataOnly else { return [] }
        func field(_ value: Double?) -> NMEA2000Field<Double> { value.map { .value($0) } ?? .notAvailable }
        let sid = sequence
        sequence = sequence >= 252 ? 0 : sequence + 1
        var out: [CANFrame] = []
        let heading: VesselHeading? = if let trueHeading = sample.trueHeading {
            VesselHeading(sequence: sid, heading: .value(trueHeading), deviation: field(sample.deviation), variation: field(sample.variation), reference: .true)
        } else if let magnetic = sample.magneticHeading {
            VesselHeading(sequence: sid, heading: .value(magnetic), deviation: field(sample.deviation), variation: field(sample.variation), reference: .magnetic)
        } else {
            nil
        }
        if let heading { out += single(NMEA2000PGN.vesselHeading, priority: 2, heading.payload) }
        if let rate = sample.rateOfTurn { out += single(NMEA2000PGN.rateOfTurn, priority: 2, RateOfTurn(sequence: sid, rate: .value(rate)).payload) }
        if sample.pitch != nil || sample.roll != nil {
            let yaw = sample.trueHeading.map { $0 > 180 ? $0 - 360 : $0 }
            out += single(NMEA2000PGN.attitude, priority: 3, Attitude(sequence: sid, yaw: field(yaw), pitch: field(sample.pitch), roll: field(sample.roll)).payload)
        }
        if let variation = sample.variation, lastVariationSent.map({ now - $0 >= .seconds(1) }) ?? true {
            let source = sample.variationSource ?? .manual
            out += single(NMEA2000PGN.magneticVariation, priority: 7, MagneticVariation(sequence: sid, source: source, variation: .value(variation)).payload)
            lastVariationSent = now
        }
        return out
    }

    /// 126996 for this node.
    public var productInformation: ProductInformation {
        ProductInformation(
            databaseVersion: 2.1, productCode: nil, model: identity.model, softwareVersion: identity.softwareVersion,
            modelVersion: identity.softwareVersion, serialCode: identity.serialCode
        )
    }

    /// 126998: the installation description (a STRING_LAU: length, 1 for ASCII, the bytes) and two
    /// empty ones.
    private var configurationInformation: [UInt8] {
        let text = Array(identity.installationDescription.utf8.filter { $0 >= 0x20 && $0 < 0x7F }.prefix(70))
        let empty: [UInt8] = [2, 1]
        return [UInt8(text.count + 2), 1] + text + empty + empty
    }

    private func frames(for actions: [AddressClaim.Action]) -> [CANFrame] {
        actions.flatMap { action -> [CANFrame] in
            guard case .sendClaim(let from) = action else { return [] }
            return CANFrame(identifier: CANIdentifier(priority: 6, pgn: NMEA2000PGN.addressClaim, source: from), bytes: identity.name.payload).map { [$0] } ?? []
        }
    }

    private func single(_ pgn: UInt32, priority: UInt8, _ payload: [UInt8], to destination: UInt8 = 255) -> [CANFrame] {
        CANFrame(identifier: CANIdentifier(priority: priority, pgn: pgn, source: claim.address, destination: destination), bytes: payload).map { [$0] } ?? []
    }

    private mutating func fastPacket(_ pgn: UInt32, _ payload: [UInt8], to destination: UInt8) -> [CANFrame] {
        let counter = fastPacketSequences[pgn, default: 0]
        fastPacketSequences[pgn] = (counter + 1) & 0x07
        let identifier = CANIdentifier(priority: 6, pgn: pgn, source: claim.address, destination: destination)
        return (FastPacketSplitter.frames(of: payload, sequence: counter) ?? []).compactMap { CANFrame(identifier: identifier, bytes: $0) }
    }
}
