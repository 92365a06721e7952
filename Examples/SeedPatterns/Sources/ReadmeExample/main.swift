// headingd — examples: README's "HeadingKit in one screen", copied by scripts/examples.
// Do not edit here: edit README.md.
// SPDX-License-Identifier: Apache-2.0

import Foundation
import HeadingKit

let proxy = HeadingProxy(source: SimulatedHeadingSource())  // made on the main thread: delivers there
proxy.headingFilter = 1                                     // degrees on the circle
let bridge = HeadingNotificationBridge(proxy: proxy)        // posts to NotificationCenter.heading
proxy.enable()                                              // asks for authorization, then starts the source

for await heading in proxy.headings().prefix(5) {           // or proxy.publisher, NotificationCenter.heading.headings()
    print(heading.trueHeading ?? .nan)
}
proxy.disable()                                             // pauses: enable() resumes the same subscribers
