// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import HeadingKit

struct HeadingProxyStateMachineTests {
    typealias Machine = HeadingProxy.StateMachine

    private func machine(restricted: String? = nil) -> Machine {
        Machine(sourceName: "scripted", restrictionReason: restricted)
    }

    private func refusal(_ reason: String) -> HeadingFault {
        HeadingFault(code: .permissionDenied, source: "scripted", reason: reason)
    }

    @Test func enableAsksForAuthorizationFirstThenStartsOnceAuthorized() {
        var machine = machine()
        let result1 = machine.enable()
        #expect(result1 == .requestAuthorization)
        #expect(machine.requestAuthorization() == .askSource)
        let result2 = machine.authorizationChanged(to: .authorized)
        #expect(result2 == .publish(.authorized, refusal: nil, startSource: true, stopSource: false))
        #expect(machine.isSourceRunning)
        let result3 = machine.authorizationRequestReturned()
        #expect(!result3, "already started by the answer")
        let result4 = machine.enable()
        #expect(result4 == .none)
    }

    @Test func aSourceThatCanOnlyTellByTryingIsStartedUndetermined() {
        var machine = machine()
        let result5 = machine.enable()
        #expect(result5 == .requestAuthorization)
        // The source did not answer (gpsd decides on its first connection attempt).
        let result6 = machine.authorizationRequestReturned()
        #expect(result6)
        #expect(machine.isSourceRunning)
        #expect(machine.authorizationStatus == .notDetermined)
        let result7 = machine.authorizationChanged(to: .authorized)
        #expect(result7 == .publish(.authorized, refusal: nil, startSource: false, stopSource: false))
    }

    @Test func enableAndDisableAreIdempotentAndDisableStartsANewGeneration() {
        var machine = machine()
        _ = machine.authorizationChanged(to: .authorized)
        let result8 = machine.enable()
        #expect(result8 == .startSource)
        let result9 = machine.enable()
        #expect(result9 == .none)
        #expect(machine.generation == 0)
        let result10 = machine.disable()
        #expect(result10 == true)
        #expect(machine.generation == 1)
        let result11 = machine.disable()
        #expect(result11 == nil)
        #expect(machine.generation == 1)
        #expect(!machine.isSourceRunning)
    }

    @Test func restrictionOutranksTheSource() {
        var machine = machine(restricted: "sources.allow")
        #expect(machine.requestAuthorization() == .restrict)
        let result12 = machine.authorizationChanged(to: .authorized)
        #expect(result12 == .publish(.restricted, refusal: nil, startSource: false, stopSource: false))
        #expect(machine.requestAuthorization() == .none)
        guard case .reportRefusal(let fault) = machine.enable() else { Issue.record("no refusal"); return }
        #expect(fault.reason == "configuration forbids this source: sources.allow")
        #expect(!machine.isSourceRunning)
    }

    @Test func aRefusalAskedBeforeEnableIsReportedOnceByEnableWithTheSourcesReason() {
        var machine = machine()
        // requestAuthorization() before enable(): the source's fault then `.denied`, both while disabled.
        let result13 = machine.shouldDeliver(refusal("/var/log/boat.nmea: permission denied"))
        #expect(!result13)
        let result14 = machine.authorizationChanged(to: .denied)
        #expect(result14 == .publish(.denied, refusal: nil, startSource: false, stopSource: false))
        guard case .reportRefusal(let fault) = machine.enable() else { Issue.record("no refusal"); return }
        #expect(fault.reason == "/var/log/boat.nmea: permission denied")
    }

    @Test func aRefusalWhileEnabledIsOneFaultWhetherTheSourceGivesOneOrNot() {
        var machine = machine()
        _ = machine.enable()
        let result15 = machine.shouldDeliver(refusal("EACCES"))
        #expect(result15)
        let result16 = machine.authorizationChanged(to: .denied)
        #expect(result16 == .publish(.denied, refusal: nil, startSource: false, stopSource: false))

        var silent = self.machine()
        _ = silent.enable()
        guard case .publish(.denied, let fault?, false, false) = silent.authorizationChanged(to: .denied) else {
            Issue.record("no fault for a refusal the source gave no reason for")
            return
        }
        #expect(fault.reason == "access to the source was denied")
    }

    @Test func headingFilterMeasuresOnTheCircleInBothDirections() {
        var machine = machine()
        _ = machine.enable()
        machine.filter.minimumChange = 1
        let delivered = [359.5, 0.3, 0.6, 0.0, 359.4, 358.5, 359.9, 0.5].filter { machine.shouldDeliver(heading($0)) }
        // 359.5 first; 0.3 is 0.8 away (held); 0.6 is 1.1 (delivered); 0.0 is 0.6 (held);
        // 359.4 is 1.2 westward across north (delivered); 358.5 is 0.9 (held); 359.9 is 0.5 (held);
        // 0.5 is 1.1 eastward across north (delivered).
        #expect(delivered == [359.5, 0.6, 359.4, 0.5])
    }

    @Test func nothingIsDeliveredWhileDisabled() {
        var machine = machine()
        let delivered = machine.shouldDeliver(heading(10))
        #expect(!delivered)
        let result17 = machine.shouldDeliver(HeadingFault(code: .stale, source: "scripted", reason: "quiet"))
        #expect(!result17)
    }
}
