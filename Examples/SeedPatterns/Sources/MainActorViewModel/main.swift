// headingd — examples: a `@MainActor` view model, as a SwiftUI or UIKit app writes it.
// SPDX-License-Identifier: Apache-2.0
//
// `assign(to:on:)` into a `@Published` property, and a `sink` that reads and writes the model's
// state, both unannotated: the model is `@MainActor`, and the proxy, created on the main actor,
// delivers there. `receive(on: DispatchQueue.main)` and `receive(on: RunLoop.main)` compile too,
// for code that states it (on Linux through OpenCombineDispatch and HeadingKit's RunLoop scheduler).

import Foundation
import HeadingKit

#if canImport(Combine)
import Combine
#else
import OpenCombine
import OpenCombineDispatch
#endif

@MainActor
final class CompassViewModel: ObservableObject {
    @Published var heading: Double?
    private(set) var updates = 0
    private(set) var hoppedUpdates = 0
    private let proxy: HeadingProxy
    private var subscriptions: Set<AnyCancellable> = []
    private let arrived: AsyncStream<Void>.Continuation

    init(arrived: AsyncStream<Void>.Continuation) {
        self.arrived = arrived
        proxy = HeadingProxy(source: SimulatedHeadingSource(configuration: .init(rate: 50)))
        proxy.headingPublisher
            .map(\.trueHeading)
            .assign(to: \.heading, on: self)
            .store(in: &subscriptions)
        // The natural code: a main-actor closure with no hop stated. It traps if called anywhere
        // but the main actor (Swift 6 checks at run time); the proxy's delivery puts it there.
        proxy.headingPublisher
            .sink { [weak self] _ in
                guard let self else { return }
                updates += 1
                if updates == 5 { self.arrived.finish() }
            }
            .store(in: &subscriptions)
        // Code that states the hop, as app code often does: it compiles and runs on Linux too.
        proxy.headingPublisher
            .receive(on: DispatchQueue.main)
            .sink { [weak self] _ in self?.hoppedUpdates += 1 }
            .store(in: &subscriptions)
        // Compiles as on Apple platforms; not subscribed (nothing runs RunLoop.main here).
        _ = proxy.headingPublisher.receive(on: RunLoop.main)
    }

    func start() { proxy.enable() }
    func stop() { proxy.disable() }
}

let (arrived, continuation) = AsyncStream.makeStream(of: Void.self)
let model = CompassViewModel(arrived: continuation)
model.start()
for await _ in arrived {}
model.stop()
guard let heading = model.heading else { fatalError("MainActorViewModel: no heading assigned") }
guard model.hoppedUpdates > 0 else { fatalError("MainActorViewModel: nothing through receive(on: DispatchQueue.main)") }
print("MainActorViewModel: \(model.updates) updates on the main actor (\(model.hoppedUpdates) through receive(on:)), heading \(heading)")
