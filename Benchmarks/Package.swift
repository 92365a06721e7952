// swift-tools-version: 6.1
// headingd benchmarks: a package of its own, so that the main package and its CI never build
// the benchmark tooling. Run from this directory: swift package benchmark
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

let package = Package(
    name: "headingd-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "headingd", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "HeadingBenchmarks",
            dependencies: [
                .product(name: "HeadingKit", package: "headingd"),
                .product(name: "HeadingKitTesting", package: "headingd"),
                .product(name: "HeadingOutputs", package: "headingd"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            path: "Benchmarks/HeadingBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // scripts/bench-live's floor: gpsd's report decoded and posted to a center, nothing more.
        .executableTarget(
            name: "LiveFloor",
            dependencies: [
                .product(name: "HeadingKit", package: "headingd"),
                .product(name: "HeadingKitGPSD", package: "headingd"),
            ],
            path: "Benchmarks/LiveFloor"
        ),
    ]
)
