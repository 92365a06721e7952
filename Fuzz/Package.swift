// swift-tools-version: 6.1
// headingd — libFuzzer targets, a package of their own (built with --sanitize=fuzzer by scripts/fuzz).
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

let package = Package(
    name: "HeadingFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "headingd", path: ".."),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .executableTarget(
            name: "FuzzLineDecoder",
            dependencies: [.product(name: "HeadingKit", package: "headingd")],
            // libFuzzer brings main(): the target has none of its own.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzFramings",
            dependencies: [.product(name: "HeadingKit", package: "headingd")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzNMEA2000",
            dependencies: [.product(name: "HeadingKit", package: "headingd"), .product(name: "NMEA2000", package: "headingd")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzIIO",
            dependencies: [.product(name: "HeadingKit", package: "headingd")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        .executableTarget(
            name: "FuzzTOML",
            dependencies: [.product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
