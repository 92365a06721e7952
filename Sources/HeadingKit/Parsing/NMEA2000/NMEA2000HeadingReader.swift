// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

public import NMEA2000

/// Reads an NMEA 2000 bus as one heading source: joins fast packets, learns each device's NAME
/// (Address Claim, PGN 60928) and model (Product Information, PGN 126996), and turns the chosen
/// device's Vessel Heading (PGN 127250) — or, from a device that sends none, its COG & SOG Rapid
/// Update (PGN 129026) — into readings, with the bus's position (129025), variation (127258) and
/// time (126992) as context, and the device's pitch and roll (127257).
///
/// Pure and bounded: at most ``maximumDevices`` devices are remembered.
public struct NMEA2000HeadingReader: Sendable {
    /// What one frame or message gave.
    public enum Output: Sendable {
        /// Nothing for the source.
        case none
        /// A heading from the chosen device.
        case heading(HeadingReading)
        /// A course over ground from the chosen device, and the speed in metres per second.
        case course(HeadingReading, speed: Double)
        /// The bus's position.
        case position(GeographicPosition)
        /// The bus's magnetic variation (degrees, east positive) and where it comes from.
        case variation(Double, MagneticVariation.Source)
        /// The bus's time: seconds since 1970.
        case time(Double)
        /// Frames that could not be joined into a message, and why.
        case dropped(String)
        /// The chosen device says its heading is in error (out of range, or an error reference).
        case headingError(String)
    }

    /// What is known of one device.
    public struct Device: Sendable, Hashable, CustomStringConvertible {
        /// Its bus address.
        public var address: UInt8
        /// Its NAME, once its Address Claim is heard.
        public var name: DeviceName?
        /// Its model, once its Product Information is heard.
        public var model: String?

        /// `device 7 (NAME 0xC0328200113849BA, GPS 19x NMEA 2000)`, with what is known.
        public var description: String {
            let maker = name.flatMap { name in
                [name.manufacturer, name.function].compactMap { $0 }.joined(separator: " ").nilIfEmpty
            }
            let details = [maker, model, name.map { "NAME \($0)" }].compactMap { $0 }
            return "device \(address)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
        }
    }

    /// The most devices remembered (a bus holds at most 252).
    public static let maximumDevices = 254

    /// Which device's headings are taken.
    public let selection: NMEA2000DeviceSelection
    private var assembler = FastPacketAssembler()
    private var devices: [UInt8: Device] = [:]
    private var chosen: UInt8?
    private var headingSenders = Set<UInt8>()
    private var attitude: (pitch: Double?, roll: Double?)?
    /// A line about the devices not yet taken by ``takeNotice()``.
    private var notice: String?
    /// This process's own node on the bus read, whose frames are never a device's; `nil` when it
    /// has none there.
    package var localNode: NMEA2000LocalNode?

    /// Creates a reader.
    /// - Parameter selection: Which device's headings are taken. Default: the first heard.
    public init(selection: NMEA2000DeviceSelection = .firstHeard) {
        self.selection = selection
        if case .address(let address) = selection { chosen = address }
    }

    /// The device whose headings are taken, once known.
    public var chosenDevice: Device? { chosen.map { devices[$0] ?? Device(address: $0) } }

    /// Every device heard, by address.
    public var knownDevices: [Device] { devices.values.sorted { $0.address < $1.address } }

    /// Forgets joins in progress (a transport reopened); the devices are kept.
    public mutating func reset() {
        assembler.reset()
        attitude = nil
    }

    /// A line for the log about the chosen device — which one was chosen, and its NAME and model
    /// once they are learnt — once each; `nil` when there is nothing new.
    public mutating func takeNotice() -> String? {
        defer { notice = nil }
        return notice
    }

    /// Reads one CAN frame.
    public mutating func read(_ frame: CANFrame) -> Output {
        let identifier = frame.identifier
        guard NMEA2000PGN.isFastPacket(identifier.pgn) else {
            return frame.withUnsafeBytes { payload in
                read(
                    NMEA2000Message(
                        priority: identifier.priority, pgn: identifier.pgn, source: identifier.source, destination: identifier.destination,
                        payload: payload
                    )
                )
            }
        }
        // Of the fast packets, only Product Information is read: the others are not joined.
        guard identifier.pgn == NMEA2000PGN.productInformation else { return .none }
        var product: (source: UInt8, information: ProductInformation)?
        let drop = assembler.accept(frame) { message in
            if let information = ProductInformation(message) { product = (message.source, information) }
        }
        if let product {
            learn(product.information, from: product.source)
            return .none
        }
        return drop.map { .dropped($0.description) } ?? .none
    }

    /// Reads one whole message.
    public mutating func read(_ message: NMEA2000Message) -> Output {
        // This process's own node on this bus (headingd's NMEA 2000 output), heard back: never a device.
        if let localNode, localNode.isOwn(message.source, knownName: devices[message.source]?.name?.rawValue) { return .none }
        switch message.pgn {
        case NMEA2000PGN.vesselHeading:
            guard let heading = VesselHeading(message) else { return .none }
            if headingSenders.insert(message.source).inserted { remember(message.source) { _ in } }
            guard isChosen(message.source, sendsHeading: true) else { return .none }
            guard let degrees = heading.heading.value, heading.reference != .error else {
                switch (heading.heading, heading.reference) {
                case (.outOfRange, _): return .headingError("device \(message.source) sends Vessel Heading's out-of-range value: no heading")
                case (_, .error): return .headingError("device \(message.source) says its Vessel Heading's reference is in error: no heading")
                default: return .none  // not available: the device has none to give
                }
            }
            var reading = HeadingReading(kind: heading.reference == .true ? .gnssCompass : .compass)
            if heading.reference == .true {
                reading.trueHeading = degrees
            } else {
                // A reference of "not available" is read as magnetic: a compass that does not
                // know better measures magnetic north.
                reading.magneticHeading = degrees
                reading.deviation = heading.deviation.value
            }
            reading.magneticVariation = heading.variation.value
            if let attitude {
                reading.pitch = attitude.pitch
                reading.roll = attitude.roll
            }
            return .heading(reading)
        case NMEA2000PGN.attitude:
            guard let values = Attitude(message), isChosen(message.source, sendsHeading: false) else { return .none }
            attitude = (values.pitch.value, values.roll.value)
            return .none
        case NMEA2000PGN.courseAndSpeedRapidUpdate:
            guard let values = CourseAndSpeedRapidUpdate(message), isChosen(message.source, sendsHeading: false),
                !headingSenders.contains(message.source), let course = values.course.value, let speed = values.speed.value
            else { return .none }
            var reading = HeadingReading(kind: .courseOverGround)
            if values.reference == .magnetic { reading.magneticHeading = course } else { reading.trueHeading = course }
            return .course(reading, speed: speed)
        case NMEA2000PGN.positionRapidUpdate:
            guard let values = PositionRapidUpdate(message), let latitude = values.latitude.value, let longitude = values.longitude.value,
                let position = GeographicPosition(latitude: latitude, longitude: longitude)
            else { return .none }
            return .position(position)
        case NMEA2000PGN.magneticVariation:
            guard let values = MagneticVariation(message), let variation = values.variation.value else { return .none }
            return .variation(variation, values.source)
        case NMEA2000PGN.systemTime:
            guard let values = SystemTime(message), let seconds = values.secondsSince1970 else { return .none }
            return .time(seconds)
        case NMEA2000PGN.addressClaim:
            guard let name = DeviceName(message) else { return .none }
            // An address now claimed by another NAME: the old device left it.
            if let known = devices[message.source], known.name != nil, known.name != name { devices[message.source] = nil }
            remember(message.source) { $0.name = name }
            if case .name(let wanted) = selection {
                if name == wanted, chosen != message.source {
                    chosen = message.source
                    notice = "NAME \(name) is at address \(message.source): taking its headings"
                } else if name != wanted, chosen == message.source {
                    chosen = nil
                    notice = "address \(message.source) is now claimed by NAME \(name), not \(wanted): waiting for \(wanted)'s claim"
                }
            } else if chosen == message.source {
                notice = "the heading device is \(devices[message.source]!)"
            }
            return .none
        case NMEA2000PGN.productInformation:
            if let product = ProductInformation(message) { learn(product, from: message.source) }
            return .none
        default:
            return .none
        }
    }

    private mutating func learn(_ product: ProductInformation, from source: UInt8) {
        guard let model = product.model else { return }
        let before = devices[source]?.model
        remember(source) { $0.model = model }
        if chosen == source, before != model { notice = "the heading device is \(devices[source]!)" }
    }

    /// Whether `source` is the chosen device; the first heading sender is chosen when none is.
    private mutating func isChosen(_ source: UInt8, sendsHeading: Bool) -> Bool {
        if let chosen { return chosen == source }
        guard sendsHeading, case .firstHeard = selection else { return false }
        chosen = source
        remember(source) { _ in }
        notice = "taking the headings of the first device heard sending them: \(devices[source]!) (set device= to choose)"
        return true
    }

    private mutating func remember(_ address: UInt8, _ change: (inout Device) -> Void) {
        if devices[address] == nil, devices.count >= Self.maximumDevices { devices.removeAll() }
        var device = devices[address] ?? Device(address: address)
        change(&device)
        devices[address] = device
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
