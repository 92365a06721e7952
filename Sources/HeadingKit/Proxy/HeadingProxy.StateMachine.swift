// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension HeadingProxy {
    /// The proxy's lifecycle as a pure value: each input returns the action the proxy must carry out.
    ///
    /// Keeping the decisions here, free of locks, subjects and sources, makes every rule of
    /// ``HeadingProxy`` — idempotent enable and disable, authorization before start, the heading
    /// filter — testable on its own.
    struct StateMachine: Sendable {
        /// What ``HeadingProxy/enable()`` must do.
        enum EnableAction: Equatable, Sendable {
            /// Already enabled: nothing.
            case none
            /// Ask for authorization first; the source starts when it is granted.
            case requestAuthorization
            /// Start the source.
            case startSource
            /// Authorization was refused earlier: report it, start nothing.
            case reportUnauthorized(HeadingAuthorizationStatus)
        }

        /// What ``HeadingProxy/disable()`` must do.
        enum DisableAction: Equatable, Sendable {
            /// Already disabled: nothing.
            case none
            /// Finish the subscribers, stopping the source first if it runs.
            case finish(stopSource: Bool)
        }

        /// What ``HeadingProxy/requestAuthorization()`` must do.
        enum AuthorizationRequestAction: Equatable, Sendable {
            /// The status is already known: nothing.
            case none
            /// Ask the source.
            case askSource
            /// Configuration forbids the source: apply ``HeadingAuthorizationStatus/restricted``.
            case restrict
        }

        /// What a new authorization status requires.
        enum AuthorizationChangeAction: Equatable, Sendable {
            /// Same status as before: nothing.
            case none
            /// Publish the new status, and start the source if it was waiting for it.
            case publish(HeadingAuthorizationStatus, startSource: Bool)
        }

        /// Whether the proxy is enabled.
        private(set) var isEnabled = false
        /// The last known authorization.
        private(set) var authorizationStatus = HeadingAuthorizationStatus.notDetermined
        /// Whether the proxy has started the source and not yet stopped it.
        private(set) var isSourceRunning = false
        /// Whether configuration forbids the source.
        let isRestricted: Bool
        /// The heading filter: the minimum change, in degrees on the circle, before a new heading is delivered.
        var filter = HeadingFilter()

        init(isRestricted: Bool) {
            self.isRestricted = isRestricted
        }

        mutating func enable() -> EnableAction {
            guard !isEnabled else { return .none }
            isEnabled = true
            filter.reset()
            switch authorizationStatus {
            case .authorized:
                isSourceRunning = true
                return .startSource
            case .notDetermined:
                return .requestAuthorization
            case .restricted, .denied:
                return .reportUnauthorized(authorizationStatus)
            }
        }

        mutating func disable() -> DisableAction {
            guard isEnabled else { return .none }
            isEnabled = false
            defer { isSourceRunning = false }
            return .finish(stopSource: isSourceRunning)
        }

        func requestAuthorization() -> AuthorizationRequestAction {
            if isRestricted { return authorizationStatus == .restricted ? .none : .restrict }
            return authorizationStatus == .notDetermined ? .askSource : .none
        }

        mutating func authorizationChanged(to status: HeadingAuthorizationStatus) -> AuthorizationChangeAction {
            // Configuration outranks whatever the source says.
            let status = isRestricted ? .restricted : status
            guard status != authorizationStatus else { return .none }
            authorizationStatus = status
            let start = status == .authorized && isEnabled && !isSourceRunning
            if start { isSourceRunning = true }
            return .publish(status, startSource: start)
        }

        /// Whether a heading is delivered: the proxy is enabled and the heading passes the filter.
        mutating func shouldDeliver(_ heading: Heading) -> Bool {
            isEnabled && filter.admits(heading)
        }

        /// Whether a fault is delivered: only while enabled.
        func shouldDeliverFault() -> Bool { isEnabled }
    }
}
