// headingd — HeadingKit tests
// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import HeadingKit

struct HeadingProxyStateMachineTests {
    typealias Machine = HeadingProxy.StateMachine

    @Test func enableAsksForAuthorizationFirstThenStartsOnceAuthorized() {
        var machine = Machine(isRestricted: false)
        #expect(machine.enable() == .requestAuthorization)
        #expect(machine.requestAuthorization() == .askSource)
        #expect(machine.authorizationChanged(to: .authorized) == .publish(.authorized, startSource: true))
        #expect(machine.isSourceRunning)
        #expect(machine.enable() == .none)
    }

    @Test func enableAndDisableAreIdempotent() {
        var machine = Machine(isRestricted: false)
        _ = machine.authorizationChanged(to: .authorized)
        #expect(machine.enable() == .startSource)
        #expect(machine.enable() == .none)
        #expect(machine.disable() == .finish(stopSource: true))
        #expect(machine.disable() == .none)
        #expect(!machine.isSourceRunning)
    }

    @Test func restrictionOutranksTheSource() {
        var machine = Machine(isRestricted: true)
        #expect(machine.requestAuthorization() == .restrict)
        #expect(machine.authorizationChanged(to: .authorized) == .publish(.restricted, startSource: false))
        #expect(machine.requestAuthorization() == .none)
        #expect(machine.enable() == .reportUnauthorized(.restricted))
        #expect(!machine.isSourceRunning)
    }

    @Test func headingFilterMeasuresOnTheCircleInBothDirections() {
        var machine = Machine(isRestricted: false)
        _ = machine.enable()
        machine.filter.minimumChange = 1
        let delivered = [359.5, 0.3, 0.6, 0.0, 359.4, 358.5, 359.9, 0.5].filter { machine.shouldDeliver(heading($0)) }
        // 359.5 first; 0.3 is 0.8 away (held); 0.6 is 1.1 (delivered); 0.0 is 0.6 (held);
        // 359.4 is 1.2 westward across north (delivered); 358.5 is 0.9 (held); 359.9 is 0.5 (held);
        // 0.5 is 1.1 eastward across north (delivered).
        #expect(delivered == [359.5, 0.6, 359.4, 0.5])
    }

    @Test func nothingIsDeliveredWhileDisabled() {
        var machine = Machine(isRestricted: false)
        let delivered = machine.shouldDeliver(heading(10))
        #expect(!delivered)
        #expect(!machine.shouldDeliverFault())
    }
}
