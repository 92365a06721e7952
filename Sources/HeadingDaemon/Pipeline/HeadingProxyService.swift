// headingd
// SPDX-License-Identifier: Apache-2.0

import HeadingKit
import ServiceLifecycle

/// Runs a ``HeadingProxy`` as a service: enabled while the service runs, disabled at shutdown.
struct HeadingProxyService: Service {
    /// The proxy to run.
    let proxy: HeadingProxy

    /// Enables the proxy, waits for graceful shutdown or cancellation, then disables it.
    func run() async {
        proxy.enable()
        try? await gracefulShutdown()
        proxy.disable()
    }
}
