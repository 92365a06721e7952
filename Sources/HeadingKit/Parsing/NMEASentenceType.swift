// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

/// The sentence types HeadingKit reads, told apart by ``NMEASentence/packedType``: a decoder on
/// the hot path switches on this, not on a string made from each sentence's address.
enum NMEASentenceType {
    case hdt, hdm, hdg, ths, pashr, ptnthtm, pssn, rmc, vtg, zda, other

    /// The type named `name` (`HDT`, `PASHR`); ``other`` for every type not read here.
    /// - Parameter name: A sentence type, as ``NMEASentence/type`` gives it.
    init(name: String) {
        self.init(packed: Self.pack(name.utf8))
    }

    /// A type's bytes packed into an integer, the first byte lowest (`HDT` is `0x544448`); 0 for
    /// an empty type or one longer than eight bytes (no type read here).
    /// - Parameter bytes: The type's bytes, without the talker.
    static func pack(_ bytes: some BidirectionalCollection<UInt8>) -> UInt64 {
        guard !bytes.isEmpty, bytes.count <= 8 else { return 0 }
        return bytes.reversed().reduce(0) { key, byte in key << 8 | UInt64(byte) }
    }

    /// The type whose packed bytes are `packed`; ``other`` for every type not read here.
    /// - Parameter packed: ``NMEASentence/packedType``.
    init(packed: UInt64) {
        switch packed {
        case 0x54_44_48: self = .hdt  // "HDT", first byte lowest
        case 0x4D_44_48: self = .hdm  // "HDM"
        case 0x47_44_48: self = .hdg  // "HDG"
        case 0x53_48_54: self = .ths  // "THS"
        case 0x52_48_53_41_50: self = .pashr  // "PASHR"
        case 0x4D_54_48_54_4E_54_50: self = .ptnthtm  // "PTNTHTM"
        case 0x4E_53_53_50: self = .pssn  // "PSSN" (Septentrio; HRP is its heading, pitch and roll)
        case 0x43_4D_52: self = .rmc  // "RMC"
        case 0x47_54_56: self = .vtg  // "VTG"
        case 0x41_44_5A: self = .zda  // "ZDA"
        default: self = .other
        }
    }

    /// Whether gpsd also turns sentences of this type into `ATT` reports
    /// (``NMEAReport/isAttitudeType(_:)``).
    var isAttitude: Bool {
        switch self {
        case .hdt, .hdg, .hdm, .ths, .pashr, .ptnthtm: true
        // gpsd 3.22 forwards PSSN raw and makes no ATT of it: nothing of gpsd's to call a duplicate.
        case .pssn, .rmc, .vtg, .zda, .other: false
        }
    }

    /// Whether gpsd also turns sentences of this type into a `TPV` track (``NMEAReport/isCourseType(_:)``).
    var isCourse: Bool { self == .rmc || self == .vtg }
}
