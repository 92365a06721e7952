// headingd — HeadingKit
// SPDX-License-Identifier: Apache-2.0

extension HeadingProxy {
    /// The proxy's lifecycle as a pure value: each input returns the action the proxy must carry out.
    ///
    /// Keeping the decisions here, free of locks, subjects and sources, makes every rule of
    /// ``HeadingProxy`` — idempotent enable and disable, authorization before start, one fault per
    /// refusal, the heading filter — testable on its own.
    struct StateMachine: Sendable {
        /// What ``HeadingProxy/enable()`` must do.
        enum EnableAction: Equatable, Sendable {
            /// Already enabled: nothing.
            case none
            /// Ask for authorization first; the source starts when it is granted, or at once if the
            /// source can only tell by trying (``StateMachine/authorizationRequestReturned()``).
            case requestAuthorization
            /// Start the source.
            case startSource
            /// Authorization was refused earlier: report this fault, start nothing.
            case reportRefusal(HeadingFault)
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
            /// Publish the new status, then the refusal fault if there is one; start the source if it
            /// was waiting for the answer, or stop it when it was refused (after publishing).
            case publish(HeadingAuthorizationStatus, refusal: HeadingFault?, startSource: Bool, stopSource: Bool)
        }

        /// Whether the proxy is enabled.
        private(set) var isEnabled = false
        /// The last known authorization.
        private(set) var authorizationStatus = HeadingAuthorizationStatus.notDetermined
        /// Whether the proxy has started the source and not yet stopped it.
        private(set) var isSourceRunning = false
        /// Counts ``disable()`` calls: a heading or fault queued for delivery before the latest one is dropped.
        private(set) var generation = 0
        /// Counts ``disable()`` calls and refusals: a heading queued for delivery before the latest
        /// is dropped. A refusal drops the headings queued before it, never the faults that explain it.
        private(set) var headingGeneration = 0
        /// The source's name, for the faults the proxy raises itself.
        let sourceName: String
        /// Whether a refused source keeps running (delivering nothing) to find out by itself when
        /// access comes back, rather than being stopped.
        let keepsTryingAfterDenial: Bool
        /// Why configuration forbids the source, or `nil` when it is allowed.
        let restrictionReason: String?
        /// The heading filter: the minimum change, in degrees on the circle, before a new heading is delivered.
        var filter = HeadingFilter()
        /// The source's latest `permissionDenied` fault since it was last authorized: the refusal
        /// with its reason (the file, the address), kept to be reported by a later ``enable()``.
        private var lastRefusal: HeadingFault?
        /// Whether a refusal fault was delivered since the last ``enable()``: one per refusal.
        private var isRefusalDelivered = false

        init(sourceName: String, restrictionReason: String?, keepsTryingAfterDenial: Bool = false) {
            self.sourceName = sourceName
            self.restrictionReason = restrictionReason
            self.keepsTryingAfterDenial = keepsTryingAfterDenial
        }

        /// Whether the source may deliver: not refused. (Undetermined delivers: a source that can
        /// only tell by trying says so only once it has tried.)
        var isAuthorizationGranted: Bool { authorizationStatus == .authorized || authorizationStatus == .notDetermined }

        /// Whether configuration forbids the source.
        var isRestricted: Bool { restrictionReason != nil }

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
                isRefusalDelivered = true
                return .reportRefusal(refusal())
            }
        }

        /// After ``EnableAction/requestAuthorization`` was carried out: whether to start the source
        /// now, because it has not answered and can only tell by trying (gpsd).
        mutating func authorizationRequestReturned() -> Bool {
            guard isEnabled, authorizationStatus == .notDetermined, !isSourceRunning else { return false }
            isSourceRunning = true
            return true
        }

        /// Disables the proxy. - Returns: Whether the source must be stopped; `nil` when the proxy
        /// was already disabled.
        mutating func disable() -> Bool? {
            guard isEnabled else { return nil }
            isEnabled = false
            isRefusalDelivered = false
            generation += 1
            headingGeneration += 1
            defer { isSourceRunning = false }
            return isSourceRunning
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
            var refusal: HeadingFault?
            var stop = false
            switch status {
            case .authorized:
                lastRefusal = nil
            case .denied, .restricted:
                // No heading from here on until authorization is granted again: the headings queued
                // for delivery are dropped (the faults queued with them, which say why, are not),
                // and the source stops unless it finds out by itself.
                headingGeneration += 1
                if isSourceRunning, !keepsTryingAfterDenial {
                    isSourceRunning = false
                    stop = true
                }
                // A source reports its own fault (with the reason) before `.denied`: then that one
                // was the refusal's fault, and no second is raised.
                if isEnabled, !isRefusalDelivered {
                    isRefusalDelivered = true
                    refusal = self.refusal()
                }
            case .notDetermined:
                break
            }
            let start = status == .authorized && isEnabled && !isSourceRunning
            if start { isSourceRunning = true }
            return .publish(status, refusal: refusal, startSource: start, stopSource: stop)
        }

        /// Whether a heading is delivered: the proxy is enabled and the heading passes the filter.
        mutating func shouldDeliver(_ heading: Heading) -> Bool {
            isEnabled && isAuthorizationGranted && filter.admits(heading)
        }

        /// Appends to `events` each of `headings` that ``shouldDeliver(_:)-(Heading)`` admits, in order.
        mutating func admit(_ headings: [Heading], into events: inout [HeadingEvent]) {
            guard isEnabled, isAuthorizationGranted else { return }
            for heading in headings where filter.admits(heading) { events.append(.heading(heading)) }
        }

        /// Whether a fault from the source is delivered: only while enabled. A `permissionDenied`
        /// fault is kept as the refusal's reason either way.
        mutating func shouldDeliver(_ fault: HeadingFault) -> Bool {
            if fault.code == .permissionDenied {
                lastRefusal = fault
                if isEnabled { isRefusalDelivered = true }
            }
            return isEnabled
        }

        /// The fault that reports the current refusal: the source's own, with its reason, when it
        /// gave one; else one the proxy words.
        private func refusal() -> HeadingFault {
            if authorizationStatus == .restricted {
                let reason = "configuration forbids this source: \(restrictionReason ?? "restricted")"
                return HeadingFault(code: .permissionDenied, source: sourceName, reason: reason)
            }
            return lastRefusal ?? HeadingFault(code: .permissionDenied, source: sourceName, reason: "access to the source was denied")
        }
    }
}
