// headingd — daemon tests
// SPDX-License-Identifier: Apache-2.0

import NMEA2000
import Testing

@testable import HeadingDaemon

/// The NMEA 2000 output's queue: bounded, the newest heading kept, a message whole or not at all.
struct CANFrameQueueTests {
    static func frames(_ pgn: UInt32, count: Int = 1, first: UInt8 = 0, destination: UInt8 = 255) -> [CANFrame] {
        (0..<count).map { index in
            CANFrame(identifier: CANIdentifier(priority: 2, pgn: pgn, source: 35, destination: destination), count: 8, data: UInt64(first) + UInt64(index))
        }
    }

    @Test func aNewerHeadingReplacesOneWaitingAndARepeatedAnswerIsOne() {
        var queue = CANFrameQueue()
        #expect(queue.append(Self.frames(NMEA2000PGN.vesselHeading, first: 1)) == 0)
        #expect(queue.append(Self.frames(NMEA2000PGN.vesselHeading, first: 2)) == 1)
        #expect(queue.count == 1 && queue.next?.data == 2)
        #expect(queue.append(Self.frames(NMEA2000PGN.productInformation, count: 20)) == 0)
        #expect(queue.append(Self.frames(NMEA2000PGN.productInformation, count: 20)) == 1)
        #expect(queue.count == 21)
        // Addressed answers to two requesters are two messages.
        queue.append(Self.frames(NMEA2000PGN.pgnList, count: 3, destination: 16))
        queue.append(Self.frames(NMEA2000PGN.pgnList, count: 3, destination: 17))
        #expect(queue.count == 27)
    }

    @Test func aMessageBegunIsFinishedInOrderAndNeverReplaced() {
        var queue = CANFrameQueue()
        queue.append(Self.frames(NMEA2000PGN.productInformation, count: 3, first: 10))
        queue.removeNext()
        #expect(queue.append(Self.frames(NMEA2000PGN.productInformation, count: 3, first: 20)) == 0)
        var written: [UInt64] = []
        while let frame = queue.next {
            written.append(frame.data)
            queue.removeNext()
        }
        #expect(written == [11, 12, 20, 21, 22])
        #expect(queue.isEmpty && queue.count == 0)
    }

    @Test func fullTheOldestGoFirstAndNothingExceedsTheCapacity() {
        var queue = CANFrameQueue(capacity: 40)
        var dropped = 0
        for index in 0..<100 { dropped += queue.append(Self.frames(NMEA2000PGN.pgnList, count: 3, destination: UInt8(index))) }
        #expect(queue.count <= 40)
        #expect(dropped == 100 - queue.count / 3)
        #expect(queue.next?.identifier.destination == UInt8(100 - queue.count / 3))
    }

    @Test func aClaimClearsWhatWaitsAndExpiredHeadingsAreNotSent() {
        var queue = CANFrameQueue()
        queue.append(Self.frames(NMEA2000PGN.vesselHeading), expires: .seconds(1))
        queue.append(Self.frames(NMEA2000PGN.heartbeat))
        queue.append(Self.frames(NMEA2000PGN.addressClaim))
        #expect(queue.removeAllButClaims() == 2)
        #expect(queue.count == 1 && queue.next?.identifier.pgn == NMEA2000PGN.addressClaim)
        queue.removeAll()
        queue.append(Self.frames(NMEA2000PGN.vesselHeading), expires: .seconds(1))
        queue.append(Self.frames(NMEA2000PGN.heartbeat))
        #expect(queue.removeExpired(at: .milliseconds(999)) == 0)
        #expect(queue.removeExpired(at: .seconds(1)) == 1)
        #expect(queue.count == 1 && queue.next?.identifier.pgn == NMEA2000PGN.heartbeat)
    }
}
