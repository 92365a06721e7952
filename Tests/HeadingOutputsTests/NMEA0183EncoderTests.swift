// headingd — HeadingOutputs tests
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit
import HeadingOutputs
import PropertyBased
import Testing

struct NMEA0183EncoderTests {
    static let encoder = NMEA0183Encoder()!
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    static func heading(
        true trueHeading: Double? = nil, magnetic: Double? = nil, deviation: Double? = nil, variation: Double? = nil,
        origin: Heading.VariationOrigin? = nil, kind: Heading.Kind = .gnssCompass, source: String = "gpsd://127.0.0.1:2947"
    ) -> Heading {
        Heading(
            trueHeading: trueHeading, magneticHeading: magnetic, timestamp: epoch, source: source, kind: kind,
            magneticVariation: variation, deviation: deviation, variationOrigin: origin
        )
    }

    static func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// Checksums computed apart from the encoder (Python's XOR over the body).
    @Test func eachSentenceIsWrittenWithItsChecksumAndLineEnd() {
        let encoder = Self.encoder
        #expect(Self.text(encoder.encode(.hdt, heading: Self.heading(true: 274.07))) == "$IIHDT,274.1,T*22\r\n")
        #expect(Self.text(encoder.encode(.hdm, heading: Self.heading(magnetic: 12.34))) == "$IIHDM,12.3,M*12\r\n")
        #expect(
            Self.text(encoder.encode(.hdg, heading: Self.heading(magnetic: 101.5, deviation: 1.5, variation: -3.25, origin: .device)))
                == "$IIHDG,100.0,1.5,E,3.3,W*5E\r\n"
        )
        #expect(Self.text(encoder.encode(.ths, heading: Self.heading(true: 5))) == "$IITHS,5.0,A*25\r\n")
        #expect(Self.text(encoder.encode(.ths, heading: nil)) == "$IITHS,,V*19\r\n")
        #expect(Self.text(encoder.rateOfTurn(-12.34)) == "$IIROT,-12.3,A*3B\r\n")
    }

    @Test func onlyWhatIsKnownIsWritten() {
        let encoder = Self.encoder
        let trueOnly = Self.heading(true: 10)
        #expect(encoder.encode(.hdm, heading: trueOnly) == nil)
        #expect(encoder.encode(.hdg, heading: trueOnly) == nil)
        #expect(encoder.encode(.hdt, heading: Self.heading(magnetic: 10)) == nil)
        // HDG without deviation or variation: empty fields, not zeros.
        #expect(Self.text(encoder.encode(.hdg, heading: Self.heading(magnetic: 10)))?.hasPrefix("$IIHDG,10.0,,,,*") == true)
        // The model's variation is used for HDG; "none" means none was known.
        #expect(Self.text(encoder.encode(.hdg, heading: Self.heading(magnetic: 10, variation: 2, origin: Heading.VariationOrigin.none)))?.hasPrefix("$IIHDG,10.0,,,,*") == true)
    }

    @Test func thsModeSaysWhereTheHeadingCameFrom() {
        #expect(NMEA0183Encoder.mode(of: Self.heading(true: 1)) == .autonomous)
        #expect(NMEA0183Encoder.mode(of: Self.heading(true: 1, origin: .model)) == .estimated)
        #expect(NMEA0183Encoder.mode(of: Self.heading(true: 1, kind: .courseOverGround)) == .estimated)
        #expect(NMEA0183Encoder.mode(of: Self.heading(true: 1, kind: .simulated, source: "simulation")) == .simulator)
        #expect(NMEA0183Encoder.mode(of: Self.heading(true: 1, source: "replay:/var/log/boat.nmea")) == .simulator)
        #expect(Self.text(Self.encoder.encode(.ths, heading: Self.heading(true: 1), mode: .invalid)) == "$IITHS,,V*19\r\n")
    }

    @Test func aHeadingThatRoundsTo360IsWrittenAsZero() {
        #expect(Self.text(Self.encoder.encode(.hdt, heading: Self.heading(true: 359.97)))?.hasPrefix("$IIHDT,0.0,T*") == true)
        #expect(Self.text(Self.encoder.encode(.hdt, heading: Self.heading(true: 359.94)))?.hasPrefix("$IIHDT,359.9,T*") == true)
    }

    @Test func talkerAndDecimalsAreCheckedAndUsed() {
        #expect(NMEA0183Encoder(talker: "hc") == nil)
        #expect(NMEA0183Encoder(talker: "HEX") == nil)
        #expect(NMEA0183Encoder(decimals: 4) == nil)
        let gyro = NMEA0183Encoder(talker: "HE", decimals: 2)!
        #expect(Self.text(gyro.encode(.hdt, heading: Self.heading(true: 7.005)))?.hasPrefix("$HEHDT,7.01,T*") == true)
        let whole = NMEA0183Encoder(decimals: 0)!
        #expect(Self.text(whole.encode(.hdt, heading: Self.heading(true: 7.5)))?.hasPrefix("$IIHDT,8,T*") == true)
    }

    /// Every sentence HeadingKit's own decoder reads back gives the same heading, within half the
    /// last printed digit, across the whole circle (0 and 359.99 included), for every place count.
    @Test func everySentenceDecodesBackToTheSameHeading() async {
        let angles = Gen.oneOf(Gen.double(in: 0..<360), Gen.always(0.0), Gen.always(359.99), Gen.always(359.95), Gen.always(0.05))
        await propertyCheck(count: 400, input: angles, angles, Gen.double(in: -20...20), Gen.int(in: 0...3)) {
            trueHeading, magnetic, deviation, decimals in
            let encoder = NMEA0183Encoder(decimals: decimals)!
            let tolerance = 0.5 / pow(10, Double(decimals)) + 1e-9
            let heading = Self.heading(true: trueHeading, magnetic: magnetic, deviation: deviation, variation: 0, origin: .device)
            for sentence in [NMEA0183Encoder.Sentence.hdt, .hdm, .hdg, .ths] {
                guard let bytes = encoder.encode(sentence, heading: heading) else {
                    Issue.record("\(sentence) not written for \(heading)")
                    continue
                }
                #expect(bytes.count <= 82 && bytes.suffix(2) == [0x0D, 0x0A])
                let report = try? NMEADecoder.decode(bytes.dropLast(2), requiringChecksum: true)
                guard case .heading(let reading)? = report?.content else {
                    Issue.record("\(Self.text(bytes) ?? "") does not decode to a heading")
                    continue
                }
                let expected = sentence == .hdt || sentence == .ths ? trueHeading : magnetic
                // HDG: the sensor reading and the deviation are each rounded.
                let allowed = sentence == .hdg ? 2 * tolerance : tolerance
                let decoded = sentence == .hdt || sentence == .ths ? reading.trueHeading : reading.magneticHeading
                guard let decoded else {
                    Issue.record("\(Self.text(bytes) ?? "") has no \(sentence == .hdt ? "true" : "magnetic") heading")
                    continue
                }
                #expect(Degrees.distance(decoded, expected) <= allowed, "\(Self.text(bytes) ?? "") for \(expected)")
            }
        }
    }
}

struct OutputRateTests {
    @Test func aValueBeforeItsSlotWaitsAndTheNewestWins() {
        var rate = OutputRate<Int>(maximumHertz: 2)  // one per 500 ms; up to 250 ms early
        #expect(rate.offer(1, at: .milliseconds(0)) == 1)
        #expect(rate.offer(2, at: .milliseconds(100)) == nil)
        #expect(rate.offer(3, at: .milliseconds(200)) == nil)
        #expect(rate.nextDeadline == .milliseconds(250))
        #expect(rate.due(at: .milliseconds(249)) == nil)
        #expect(rate.due(at: .milliseconds(250)) == 3)
        #expect(rate.nextDeadline == nil)
        #expect(rate.offer(4, at: .milliseconds(700)) == nil, "the grid's next slot is 1000 ms; 750 ms at the earliest")
        #expect(rate.due(at: .milliseconds(750)) == 4)
        #expect(rate.offer(5, at: .milliseconds(2_100)) == 5)
    }

    @Test func aSourceAtTheOutputsOwnRateWithJitterIsNeverHeldBack() {
        var rate = OutputRate<Int>(maximumHertz: 10)
        let jitter = [0, 7, -9, 20, -25, 2, 24, -24, 0, 12]  // ms; one arrival 55 ms after another, one 52 ms
        for (index, offset) in jitter.enumerated() {
            #expect(rate.offer(index, at: .milliseconds(100 * index + offset)) == index, "heading \(index)")
        }
    }

    @Test func noMoreThanOnePerIntervalPlusOneGoesOutOfAFastSource() {
        var rate = OutputRate<Int>(maximumHertz: 10)
        var sent = 0
        for millisecond in stride(from: 0, to: 10_000, by: 7) {  // 143 Hz for 10 s
            if rate.offer(millisecond, at: .milliseconds(millisecond)) != nil { sent += 1 }
            if rate.due(at: .milliseconds(millisecond)) != nil { sent += 1 }
        }
        #expect(sent <= 101, "\(sent) sends in 10 s at 10 Hz")
        #expect(sent >= 99)
    }

    @Test func noLimitSendsEverything() {
        var rate = OutputRate<Int>(maximumHertz: 0)
        #expect((0..<5).compactMap { rate.offer($0, at: .zero) } == [0, 1, 2, 3, 4])
    }
}

struct RateOfTurnEstimatorTests {
    @Test func theRateIsDegreesPerMinuteNegativeToPortAcrossNorth() {
        var estimator = RateOfTurnEstimator()
        func at(_ seconds: Double, _ degrees: Double) -> Heading {
            Heading(trueHeading: degrees, magneticHeading: nil, timestamp: Date(timeIntervalSince1970: seconds), source: "s")
        }
        #expect(estimator.rate(after: at(0, 359)) == nil)
        #expect(estimator.rate(after: at(1, 1)).map { abs($0 - 120) < 1e-9 } == true)  // 2° in 1 s to starboard
        #expect(estimator.rate(after: at(3, 0)).map { abs($0 + 30) < 1e-9 } == true)  // 1° in 2 s to port
        #expect(estimator.rate(after: at(3, 5)) == nil)  // no time passed
    }
}
