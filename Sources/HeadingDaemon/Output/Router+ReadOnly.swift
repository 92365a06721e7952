// headingd
// SPDX-License-Identifier: Apache-2.0

import HTTPTypes
import Hummingbird

extension Router {
    /// Makes the listener read-only: `PUT`, `POST`, `DELETE` and `PATCH` get `refusal` (a 405)
    /// on every path, served or not. Call it once every route is added. The router matches a
    /// path before its method and does not go back up its tree: a path served for `GET` alone
    /// would answer the other methods 404, and so would an unknown path under a served one
    /// (`/signalk/v9`), so the refusal goes on each served path, under each of their prefixes
    /// (`signalk/**`) and under the root (`**`).
    /// - Parameter refusal: The response to a write.
    func refuseWrites(_ refusal: @escaping @Sendable () -> Response) {
        var paths = ["**"]
        for route in routes {
            let components = route.path.description.split(separator: "/")
            var candidates = [components.isEmpty ? "/" : components.joined(separator: "/")]
            for length in stride(from: 1, to: components.count, by: 1) {
                candidates.append((components.prefix(length) + ["**"]).joined(separator: "/"))
            }
            for path in candidates where !paths.contains(path) { paths.append(path) }
        }
        for method in [HTTPRequest.Method.put, .post, .delete, .patch] {
            for path in paths { on(RouterPath(path), method: method) { _, _ -> Response in refusal() } }
        }
    }
}
