// headingd benchmarks
// SPDX-License-Identifier: Apache-2.0
//
// Each group has a baseline measured in the same run (splitting a sentence without reading it; a
// bare NotificationCenter post), so results read as ratios, not as absolute times on a shared
// machine. One iteration is one sentence, report or heading: `throughput` is per second,
// `mallocCountTotal` is allocations per heading, and `wallClock` percentiles of the latency
// benchmark are bytes in → observer callback.

import Benchmark
import Foundation
import HeadingKit
import HeadingKitTesting
import HeadingOutputs
import Synchronization

#if canImport(Combine)
import Combine
#else
@preconcurrency import OpenCombine
#endif

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .instructions]
    Benchmark.defaultConfiguration = .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(2))

    let sentences: [(String, String)] = [
        ("HDT", "$GPHDT,274.07,T*03"),
        ("HDG", "$HCHDG,46.5,1.2,W,2.5,E*63"),
        ("THS", "$GPTHS,47.77,A*34"),
        ("RMC", "$GPRMC,000000.00,A,5530.000,N,01230.000,E,6.0,47.8,010126,2.5,E,A*08"),
        ("PASHR", "$PASHR,204132.000,010.51,T,+00.39,-00.79,-00.84,0.151,0.075,0.555,1,0*03"),
    ]

    // MARK: NMEA parsing, per sentence type

    let hdt = Array(sentences[0].1.utf8)
    Benchmark("baseline: split HDT into fields") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(hdt.split(separator: UInt8(ascii: ",")).count) }
    }
    for (type, sentence) in sentences {
        let bytes = Array(sentence.utf8)
        Benchmark("NMEA parse \(type)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try? NMEADecoder.decode(bytes)) }
        }
    }

    // MARK: NMEA 0183 encoding, per sentence type

    let encoded = Heading(
        trueHeading: 274.07, magneticHeading: 276.5, timestamp: Date(timeIntervalSince1970: 1_800_000_000), source: "gpsd://127.0.0.1:2947",
        kind: .gnssCompass, magneticVariation: -2.43, deviation: 1.2, variationOrigin: .device
    )
    Benchmark("baseline: a bare String of an HDT sentence, by interpolation") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(Array("$IIHDT,\(Int(encoded.trueHeading! * 10)),T*00\r\n".utf8))
        }
    }
    let encoder = NMEA0183Encoder()!
    for sentence in [NMEA0183Encoder.Sentence.hdt, .hdg, .ths] {
        Benchmark("NMEA 0183 encode \(sentence.rawValue)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(encoder.encode(sentence, heading: encoded)) }
        }
    }

    // MARK: Signal K deltas

    /// The same delta as Codable types, for the JSONEncoder baseline.
    struct Delta: Encodable {
        struct Update: Encodable {
            struct Value: Encodable {
                let path: String
                let value: Double
            }
            let source: String
            let timestamp: Date
            let values: [Value]
            enum CodingKeys: String, CodingKey {
                case source = "$source"
                case timestamp, values
            }
        }
        let context: String
        let updates: [Update]
    }
    let jsonEncoder = JSONEncoder()
    jsonEncoder.dateEncodingStrategy = .iso8601
    let signalK = SignalKDeltaEncoder(selfURN: "urn:mrn:signalk:uuid:6b0e776f-811a-4b35-980e-b93405371bc5")
    Benchmark("baseline: JSONEncoder, the same Signal K delta as Codable") { benchmark in
        for _ in benchmark.scaledIterations {
            let delta = Delta(
                context: signalK.context,
                updates: [.init(
                    source: SignalKDeltaEncoder.sourceReference(for: encoded.source), timestamp: encoded.timestamp,
                    values: [
                        .init(path: "navigation.headingTrue", value: encoded.trueHeading! * .pi / 180),
                        .init(path: "navigation.headingMagnetic", value: encoded.magneticHeading! * .pi / 180),
                        .init(path: "navigation.magneticVariation", value: encoded.magneticVariation! * .pi / 180),
                        .init(path: "navigation.magneticDeviation", value: encoded.deviation! * .pi / 180),
                    ]
                )]
            )
            blackHole(try? jsonEncoder.encode(delta))
        }
    }
    Benchmark("Signal K delta encode") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(signalK.delta(for: encoded)) }
    }

    // MARK: gpsd JSON

    let reports: [(String, String)] = [
        ("ATT", #"{"class":"ATT","device":"/dev/pts/1","heading":274.070}"#),
        ("TPV", #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2033-10-05T20:41:32.200Z","lat":42.09,"lon":-88.03,"track":21.404,"magvar":-3.8,"speed":4.698}"#),
    ]
    for (type, report) in reports {
        let bytes = Array(report.utf8)
        Benchmark("gpsd JSON decode \(type)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try? GPSDReportDecoder.decode(bytes)) }
        }
    }

    // MARK: Fan-out: proxy → publisher → NotificationCenter → observers

    Benchmark("baseline: bare NotificationCenter post, 1 observer") { benchmark in
        let center = NotificationCenter()
        let name = Notification.Name("baseline")
        let received = Counter()
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { _ in received.increment() }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations { center.post(name: name, object: nil, userInfo: ["value": 1]) }
        benchmark.stopMeasurement()
        center.removeObserver(observer)
        blackHole(received.value)
    }
    for observers in [1, 4, 16] {
        Benchmark("fan-out proxy → center, \(observers) observers") { benchmark in
            let source = ScriptedHeadingSource()
            let pipeline = Pipeline(source: source, observers: observers)
            pipeline.proxy.enable()
            let heading = Heading(trueHeading: 274.07, magneticHeading: nil, timestamp: Date(), source: "benchmark")
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { source.send(.heading(heading)) }
            benchmark.stopMeasurement()
            pipeline.tearDown()
        }
    }

    // MARK: The pipeline, one line at a time: bytes in → decoder → proxy → center → observer

    Benchmark(
        "latency bytes in → observer (HDT)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, .instructions], scalingFactor: .one)
    ) { benchmark in
        let source = ScriptedHeadingSource()
        let pipeline = Pipeline(source: source)
        pipeline.proxy.enable()
        var decoder = HeadingLineDecoder(path: "benchmark", sourceName: "benchmark", timestamping: .reception)
        let now = Date()
        benchmark.startMeasurement()
        for number in benchmark.scaledIterations {
            if let report = decoder.decode(hdt, number: number, receivedAt: now).report { source.send(report) }
        }
        benchmark.stopMeasurement()
        pipeline.tearDown()
    }

    // The same at a live rate: one line after each 100 ms asleep, as a 10 Hz sensor wakes headingd,
    // so the caches are as cold as they are live (the loop above keeps them warm). One pipeline
    // for every iteration, as a running headingd has.
    let liveSource = ScriptedHeadingSource()
    let livePipeline = Pipeline(source: liveSource)
    livePipeline.proxy.enable()
    coldBytesInBenchmark("latency bytes in → observer (HDT)", line: hdt, to: liveSource, keeping: livePipeline)

    // Its stages alone at the same rate, to see which the cold path's time is: the decoder, the
    // split of a line alone, and a bare post of a heading notification to one observer (no proxy,
    // no bridge); and two baselines as cold: reading the clock, one allocation and its free.
    coldBenchmark("latency stage: decode HDT", prepare: { HeadingLineDecoder(path: "benchmark", sourceName: "benchmark", timestamping: .reception) }) { decoder in
        blackHole(decoder.decode(hdt, number: 1, receivedAt: Date()).report)
    }
    coldBenchmark("latency stage: split HDT into an NMEASentence") { blackHole(try? NMEASentence(hdt[...])) }
    coldBenchmark("latency baseline: Date()") { blackHole(Date()) }
    coldBenchmark("latency baseline: an array of 64 bytes made and freed") {
        let bytes = [UInt8](repeating: 1, count: 64)
        blackHole(bytes)
    }
    // The same heading to a subscriber of the proxy's publisher instead of an observer of a
    // center: what a path without swift-foundation's post would cost cold.
    let subscribedSource = ScriptedHeadingSource()
    let subscribedProxy = HeadingProxy(source: subscribedSource, delivery: .immediate)
    let subscribedCount = Counter()
    let subscription = subscribedProxy.publisher.sink { _ in subscribedCount.increment() }
    subscribedProxy.enable()
    coldBytesInBenchmark(
        "latency stage: bytes in → a subscriber of the proxy's publisher (no center)", line: hdt, to: subscribedSource,
        keeping: subscription
    )
    let coldCenter = NotificationCenter()
    let coldReceived = Counter()
    let coldToken = coldCenter.addHeadingEventObserver { _ in coldReceived.increment() }
    let coldHeading = Heading(trueHeading: 274.07, magneticHeading: nil, timestamp: Date(), source: "benchmark")
    coldBenchmark("latency stage: post a heading notification", prepare: { withExtendedLifetime(coldToken) {} }) { _ in
        coldCenter.post(Notification.heading(.heading(coldHeading), object: nil))
    }

    // headingd's own path, at the same rate (issue 38): bytes in → decoder → proxy → processor,
    // then to the stdout log's place (an observer of the center, through the bridge) and to the
    // typed fan-out's place (a stage of the processor: no notification). One pipeline each, as a
    // running headingd has; the bare post above is the floor the first is measured against.
    for (name, typed) in [("the stdout log's place (a center observer)", false), ("a typed consumer (the fan-out's place)", true)] {
        let source = ScriptedHeadingSource()
        let pipeline = ProcessorPipeline(source: source, typed: typed)
        coldBytesInBenchmark("latency bytes in → processor → \(name)", line: hdt, to: source, keeping: pipeline)
    }

    // MARK: The whole replay source, flat out, over a generated file

    Benchmark(
        "replay flat out, 100 k mixed sentences",
        configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident], scalingFactor: .one, maxIterations: 5)
    ) { benchmark in
        let path = try generatedRecording(sentences: 100_000)
        let source = ReplayHeadingSource(configuration: .init(path: path, speed: .flatOut))
        let pipeline = Pipeline(source: source)
        benchmark.startMeasurement()
        pipeline.proxy.enable()
        _ = await source.waitUntilFinished()
        benchmark.stopMeasurement()
        pipeline.tearDown()
    }
}

/// A source behind a proxy, bridged to a center of its own with counting observers: the
/// pipeline every delivery benchmark measures.
struct Pipeline {
    let proxy: HeadingProxy
    let center = NotificationCenter()
    let bridge: HeadingNotificationBridge
    let received = Counter()
    let tokens: [HeadingObservation]

    init(source: any HeadingSource, observers: Int = 1) {
        proxy = HeadingProxy(source: source, delivery: .immediate)
        bridge = HeadingNotificationBridge(proxy: proxy, center: center)
        let received = received
        tokens = (0..<observers).map { [center] _ in center.addHeadingEventObserver { _ in received.increment() } }
    }

    func tearDown() {
        proxy.disable()
        tokens.forEach { $0.cancel() }
        bridge.cancel()
        blackHole(received.value)
    }
}

/// headingd's pipeline: a source behind a proxy, a processor over it, and one consumer — an
/// observer of a center of its own through the bridge (the stdout log's place), or a stage of the
/// processor (the typed fan-out's place: a lock and a list of consumers, as headingd's has).
final class ProcessorPipeline: Sendable {
    let proxy: HeadingProxy
    let processor: HeadingProcessor
    let center = NotificationCenter()
    let bridge: HeadingNotificationBridge?
    let received = Counter()
    let token: HeadingObservation?
    let stage: AnyCancellable?

    init(source: any HeadingSource, typed: Bool = false) {
        proxy = HeadingProxy(source: source, delivery: .immediate)
        processor = HeadingProcessor(inputs: [(proxy, HeadingProcessor.Installation())], delivery: .immediate)
        let received = received
        if typed {
            let consumers = Mutex([{ @Sendable (_: HeadingEvent) in received.increment() }])
            stage = processor.addTestingStage { event in
                for consumer in consumers.withLock({ $0 }) { consumer(event) }
            }
            bridge = nil
            token = nil
        } else {
            bridge = HeadingNotificationBridge(processor: processor, center: center)
            token = center.addHeadingEventObserver { _ in received.increment() }
            stage = nil
        }
        processor.start()
        proxy.enable()
    }
}

/// A counter an observer can bump from the posting thread.
final class Counter: @unchecked Sendable {
    // Safety: only touched from the one thread that posts (the benchmark's own), under `lock` anyway.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Writes (once) a seeded mix of HDT, HDG, THS and RMC like scripts/generate-nmea's, and returns its path.
func generatedRecording(sentences: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("headingd-benchmark-\(sentences).nmea").path
    if FileManager.default.fileExists(atPath: path) { return path }
    func checksummed(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        let hex = String(checksum, radix: 16, uppercase: true)
        return "$\(body)*\(hex.count == 1 ? "0" : "")\(hex)\n"
    }
    var text = ""
    var heading = 10.0
    var tick = 0
    while tick * 4 < sentences {
        heading = (heading + 0.3).truncatingRemainder(dividingBy: 360)
        let seconds = tick / 10
        let time = String(format: "%02d%02d%02d.%d0", seconds / 3600 % 24, seconds / 60 % 60, seconds % 60, tick % 10)
        text += checksummed(String(format: "GPRMC,%@,A,5530.000,N,01230.000,E,6.0,%.1f,010126,2.5,E,A", time, heading))
        text += checksummed(String(format: "GPHDT,%.2f,T", heading))
        text += checksummed(String(format: "HCHDG,%.1f,1.2,W,2.5,E", (heading + 358.7).truncatingRemainder(dividingBy: 360)))
        text += checksummed(String(format: "GPTHS,%.2f,A", heading))
        tick += 1
    }
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

/// `name` + ", one every 100 ms": `measured` timed once after each 100 ms asleep, as a 10 Hz
/// sensor wakes headingd, so that the caches are as cold as they are live (a loop keeps them
/// warm). `prepare` runs before the sleep, untimed, and gives `measured` what it works on.
func coldBenchmark<Prepared>(_ name: String, prepare: @escaping () -> Prepared, _ measured: @escaping (inout Prepared) -> Void) {
    Benchmark(
        name + ", one every 100 ms",
        configuration: .init(metrics: [.wallClock], scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 200)
    ) { benchmark in
        var prepared = prepare()
        try await Task.sleep(for: .milliseconds(100))
        benchmark.startMeasurement()
        measured(&prepared)
        benchmark.stopMeasurement()
    }
}

/// ``coldBenchmark(_:prepare:_:)`` of one line decoded and its heading sent to `source`, from a
/// fresh decoder each time, with `kept` (the pipeline or subscription behind the source) alive.
func coldBytesInBenchmark(_ name: String, line: [UInt8], to source: ScriptedHeadingSource, keeping kept: some Sendable) {
    coldBenchmark(
        name,
        prepare: { () -> HeadingLineDecoder in
            withExtendedLifetime(kept) {}
            return HeadingLineDecoder(path: "benchmark", sourceName: "benchmark", timestamping: .reception)
        }
    ) { decoder in
        if let report = decoder.decode(line, number: 1, receivedAt: Date()).report { source.send(report) }
    }
}

/// ``coldBenchmark(_:prepare:_:)`` for work that needs nothing prepared.
func coldBenchmark(_ name: String, _ measured: @escaping () -> Void) {
    coldBenchmark(name, prepare: {}) { _ in measured() }
}
