// swift-tools-version: 6.1
// headingd — HeadingKit as its users write it: a consumer package of its own, depending on this
// repository by path with the daemon's trait off, as an app or a service would depend on HeadingKit.
// Built, run and tested by scripts/examples (part of the test command).
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

/// Where Apple's Combine is missing (Linux), OpenCombine provides the same API.
let openCombinePlatforms: [Platform] = [.linux, .windows, .android, .wasi]
/// What every example needs: HeadingKit, and Combine's API (OpenCombine on Linux).
let headingKit: [Target.Dependency] = [
    .product(name: "HeadingKit", package: "headingd"),
    .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
    .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
]

let package = Package(
    name: "SeedPatterns",
    platforms: [.macOS(.v15)],
    dependencies: [
        // traits: [] leaves out the daemon's trait, and with it the daemon's packages.
        .package(name: "headingd", path: "../..", traits: []),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
    ],
    targets: [
        // README's "HeadingKit in one screen", copied there by scripts/examples before each build.
        .executableTarget(name: "ReadmeExample", dependencies: headingKit),
        // The DocC article "Writing a source"'s complete source, copied there by scripts/examples.
        .executableTarget(name: "WritingASource", dependencies: headingKit),
        // The DocC article "An IMU through IIO"'s complete program, copied there by scripts/examples.
        .executableTarget(name: "ReadingAnIMU", dependencies: headingKit),
        .executableTarget(name: "TopLevelSink", dependencies: headingKit),
        .executableTarget(name: "MainActorViewModel", dependencies: headingKit),
        .executableTarget(name: "ToggleSubscribeOnce", dependencies: headingKit),
        .executableTarget(name: "CenterObservers", dependencies: headingKit),
        .testTarget(
            name: "SeedPatternsTests",
            dependencies: headingKit + [.product(name: "HeadingKitTesting", package: "headingd")]
        ),
    ]
)
