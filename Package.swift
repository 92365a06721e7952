// swift-tools-version: 6.1
// headingd — a heading daemon for Linux, and HeadingKit, the library inside it.
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

/// Where Apple's Combine is missing (Linux), OpenCombine provides the same API.
let openCombinePlatforms: [Platform] = [.linux, .windows, .android, .wasi]

/// Test code compiled unoptimised and file by file in the release build (scripts/release-build):
/// what the tests test, HeadingKit and headingd, stays optimised. (A test target is never built by
/// a package that depends on this one, so the flags reach no consumer.)
let testsUnoptimisedInRelease: [SwiftSetting] = [
    .unsafeFlags(["-Onone", "-no-whole-module-optimization"], .when(configuration: .release)),
]

let package = Package(
    name: "headingd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HeadingKit", targets: ["HeadingKit"]),
        .library(name: "NMEA2000", targets: ["NMEA2000"]),
        .library(name: "HeadingKitGPSD", targets: ["HeadingKitGPSD"]),
        .library(name: "HeadingKitTesting", targets: ["HeadingKitTesting"]),
        .library(name: "HeadingOutputs", targets: ["HeadingOutputs"]),
        .executable(name: "headingd", targets: ["HeadingDaemon"]),
    ],
    traits: [
        .trait(name: "Daemon", description: "The headingd executable and what only it needs (argument parsing, configuration, service lifecycle, TOML)."),
        .default(enabledTraits: ["Daemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation`: HeadingKit's DocC catalogs (scripts/build-docs makes
        // the same from the release build's modules, with docc itself).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The daemon's network outputs (NMEA 0183 over TCP).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The Signal K output: HTTP (discovery, the REST model) and its WebSocket stream.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // /metrics in Prometheus' text format.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The MQTT output's on-board journal (SQLite).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // NMEA 2000, pure: CAN identifiers, PGNs, fast packets, device NAMEs, the gateways'
        // framings. No I/O; HeadingKit's sources read it.
        .target(name: "NMEA2000"),
        // Linux's SocketCAN headers (linux/can.h), for the socketcan:// source.
        .target(name: "CSocketCAN"),
        // The ports: every way HeadingKit and headingd reach a device or the system (serial
        // lines, TCP, UDP, standard input, a child process, SocketCAN; files, threads, the wake
        // pipe), written once, and the only code that imports Glibc for it. Package-only: no
        // product; HeadingKit's public API is built on it, not made of it.
        .target(
            name: "HeadingPorts",
            dependencies: [
                "NMEA2000",
                "CSocketCAN",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HeadingKit",
            dependencies: [
                "NMEA2000",
                "HeadingPorts",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
                // `receive(on: DispatchQueue.main)`: DispatchQueue as an OpenCombine scheduler.
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The World Magnetic Model's coefficient file, compiled in by scripts/embed-wmm.
            exclude: ["Processing/WMM_2025.COF"]
        ),
        // Loads a C library when first used (dlopen), for CGPS and CMosquitto.
        .target(
            name: "CDynamicLibrary",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // libgps (Debian's libgps28; its header from libgps-dev), for the gpsd source: loaded with
        // dlopen by the first connection, so a headingd reading no gpsd never maps it, nor the
        // libraries it pulls in.
        .target(
            name: "CGPS",
            dependencies: ["CDynamicLibrary"]
        ),
        // libmosquitto (Debian's libmosquitto1; its header from libmosquitto-dev), for the MQTT
        // output: loaded with dlopen by the first client, so a headingd without MQTT never maps
        // it, nor libssl and libcrypto.
        .target(
            name: "CMosquitto",
            dependencies: ["CDynamicLibrary"]
        ),
        // One MQTT connection through libmosquitto, kept by a thread of its own.
        .target(
            name: "MosquittoClient",
            dependencies: ["CMosquitto"]
        ),
        .target(
            name: "HeadingKitGPSD",
            dependencies: ["HeadingKit", "HeadingPorts", "CGPS"]
        ),
        .target(
            name: "HeadingOutputs",
            dependencies: ["HeadingKit"]
        ),
        .target(
            name: "HeadingKitTesting",
            dependencies: [
                "HeadingKit", "NMEA2000",
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
            ]
        ),
        .executableTarget(
            name: "HeadingDaemon",
            dependencies: [
                "HeadingKit",
                "HeadingKitGPSD",
                "HeadingPorts",
                "MosquittoClient",
                "HeadingOutputs",
                "NMEA2000",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Daemon"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Daemon"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Daemon"])),
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Daemon"])),
                .product(name: "TOMLKit", package: "TOMLKit", condition: .when(traits: ["Daemon"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Daemon"])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Daemon"])),
                .product(name: "NIOWebSocket", package: "swift-nio", condition: .when(traits: ["Daemon"])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Daemon"])),
                .product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["Daemon"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Daemon"])),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket", condition: .when(traits: ["Daemon"])),
                .product(name: "Prometheus", package: "swift-prometheus", condition: .when(traits: ["Daemon"])),
                // AnyCancellable, for the metrics' stages on the proxies.
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
            ]
        ),
        // Counts heap allocations per thread for the allocation-budget test (its malloc takes
        // the C library's place in the test executable).
        .target(
            name: "CAllocationCounter",
            path: "Tests/CAllocationCounter"
        ),
        .testTarget(
            name: "HeadingKitTests",
            dependencies: [
                "HeadingKit",
                "HeadingPorts",
                "HeadingKitTesting",
                "NMEA2000",
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: openCombinePlatforms)),
            ],
            // Unoptimised in the release build, as the daemon's tests are (below): 5,000 lines of
            // tests took 80 s on one core whole and optimised. HeadingKit itself stays optimised.
            swiftSettings: testsUnoptimisedInRelease
        ),
        // The allocation budget, in a target of its own because it is the one test whose own code
        // must be optimised: it counts every allocation between a line's bytes and the observer,
        // the test's loop included, against the optimised build's figures.
        .testTarget(
            name: "HeadingKitAllocationTests",
            dependencies: [
                "CAllocationCounter",
                "HeadingKit",
                "HeadingKitTesting",
                "NMEA2000",
                .product(name: "Clocks", package: "swift-clocks"),
            ]
        ),
        .testTarget(
            name: "NMEA2000Tests",
            dependencies: [
                "NMEA2000",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "HeadingOutputsTests",
            dependencies: [
                "HeadingOutputs", "HeadingKit",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "HeadingKitGPSDTests",
            dependencies: ["HeadingKitGPSD", "HeadingKit", "HeadingKitTesting", "HeadingPorts"]
        ),
        // glibc's posix_spawn extensions (close every inherited descriptor, change directory) for
        // the daemon tests' child processes.
        .target(
            name: "CChildProcess",
            path: "Tests/CChildProcess"
        ),
        .testTarget(
            name: "HeadingDaemonTests",
            dependencies: [
                "CChildProcess", "HeadingDaemon", "HeadingKit", "HeadingKitTesting", "HeadingPorts", "NMEA2000",
                .product(name: "Clocks", package: "swift-clocks"),
            ],
            // The suite's release build (scripts/release-build) compiles the daemon's tests last and
            // alone: unoptimised and file by file, 8,000 lines of them take a minute on two cores
            // instead of three on one.
            swiftSettings: testsUnoptimisedInRelease
        ),
    ]
)

// Swift 6 language mode is the tools-version default (complete strict concurrency);
// these are set once for every target.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
