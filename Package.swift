// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Transduce",
    products: [
        .executable(name: "trace-view", targets: ["trace-view"]),
        .library(name: "Transduce", targets: ["Transduce"]),
        .library(name: "TransduceTrace", targets: ["TransduceTrace"]),
        .library(name: "TransduceTesting", targets: ["TransduceTesting"]),
    ],
    targets: [
        // The runtime: no dependencies beyond the toolchain and its clock.
        .target(name: "Transduce", dependencies: ["CTransduceClock"]),
        // The runtime's clock: CLOCK_MONOTONIC from the time-stamp counter where that is safe.
        .target(name: "CTransduceClock"),
        // The binary format C and Swift share (slot words, file records, codes and their names),
        // the ring buffer's slot protocol, CRC32, and the async-signal-safe crash dump.
        .target(name: "CTraceRing"),
        // The `transduce` tracepoints, their probes and their C wrappers (no-ops without
        // LTTng-UST). Nothing links liblttng-ust: the recorder loads it at run time
        // (clttng_probes.c says how), so every app that depends on TransduceTrace has the provider
        // and only a recorder brings liblttng-ust in.
        .target(
            name: "CLTTng",
            dependencies: ["CTraceRing"],
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // What tests of an app's features link: the test store, clocks the test moves, replay.
        .target(name: "TransduceTesting", dependencies: ["Transduce", "TransduceTrace"]),
        // Recorder, ring buffer, trace files, analyses and shape assertions.
        .target(name: "TransduceTrace", dependencies: ["Transduce", "CTraceRing", "CLTTng"]),
        // What only the tools run (child processes, loopback ports, `lttng` sessions): not a
        // product, so no app that links TransduceTrace compiles it.
        .target(name: "TraceTooling", dependencies: ["Transduce"]),
        // What the tools read a trace through (files, pipes, CTF through a reader child, copies,
        // indexes, passes, the selection): trace-view's views are folds over its TraceSource.
        .target(
            name: "TraceInputs", dependencies: ["TransduceTrace", "TransduceTraceCTF", "TraceTooling", "CTraceRing"]),
        // The built-in workload of `trace-view demo` and the examples: public runtime API only.
        .target(name: "TransduceDemo", dependencies: ["Transduce"]),
        // Reading LTTng CTF traces through libbabeltrace2 (kept apart so apps need not link it).
        .target(
            name: "CBabeltrace",
            linkerSettings: [.linkedLibrary("babeltrace2", .when(platforms: [.linux]))]
        ),
        .target(name: "TransduceTraceCTF", dependencies: ["TransduceTrace", "CBabeltrace"]),
        // OTLP/HTTP's transport for `export --otlp-endpoint`: libcurl (TLS, keep-alive, proxies)
        // and zlib's gzip, from the system (scripts/bootstrap.sh installs their headers). Only
        // trace-view links them.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl"), .linkedLibrary("z")]
        ),
        .executableTarget(
            name: "trace-view",
            dependencies: [
                "TransduceTrace", "TransduceTraceCTF", "TransduceDemo", "Transduce", "CTraceRing", "TraceTooling", "CCurl",
                "TraceInputs",
            ],
            // The report's script, a JavaScript file of its own, compiled in as a string (EmbedText).
            exclude: ["Report/report.js"],
            plugins: ["EmbedText"]),
        .executableTarget(name: "embed-text", path: "Plugins/embed-text"),
        .plugin(name: "EmbedText", capability: .buildTool(), dependencies: ["embed-text"]),
        .executableTarget(name: "LoaderExample", dependencies: ["Transduce"], path: "Examples/LoaderExample"),
        .executableTarget(
            name: "TracedExample", dependencies: ["TransduceDemo", "TransduceTrace"], path: "Examples/TracedExample"),
        // Benchmarks: `swift run -c release transduce-bench` (Benchmarks/README.md).
        .target(name: "CBenchFloor", dependencies: ["CTransduceClock", "CTraceRing"], path: "Benchmarks/CBenchFloor"),
        // The transducer and the actor both benchmark programs measure.
        .target(name: "BenchWorkload", dependencies: ["Transduce"], path: "Benchmarks/BenchWorkload"),
        // Realistic traces of any size from one recorded run: the benchmark's scale figures and
        // the tests' 1M-event goldens.
        .target(name: "TraceGenerator", dependencies: ["TransduceTrace"], path: "Benchmarks/TraceGenerator"),
        .executableTarget(
            name: "transduce-bench",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceDemo", "CLTTng", "CBenchFloor", "BenchWorkload", "TraceGenerator",
                "TraceTooling",
            ],
            path: "Benchmarks/transduce-bench"),
        // The loops Benchmarks/callgrind.sh counts instructions of (a synchronous main: valgrind
        // 3.19 crashes on the main thread's sigsuspend under an async main).
        // What the fuzz targets (Fuzz/, scripts/fuzz.sh) run on an input; the tests replay every
        // crash input through it.
        .target(name: "TraceFuzzHarness", dependencies: ["TransduceTrace"], path: "Fuzz/Harness"),
        // The ring buffer's stress oracle, shared by the tests and `transduce-stress` (release).
        .target(name: "RingStress", dependencies: ["TransduceTrace"], path: "Benchmarks/RingStress"),
        .executableTarget(
            name: "transduce-stress", dependencies: ["RingStress", "TransduceTrace"], path: "Benchmarks/transduce-stress"),
        .executableTarget(
            name: "transduce-callgrind", dependencies: ["Transduce", "TransduceTrace", "BenchWorkload"],
            path: "Benchmarks/transduce-callgrind"),
        // What every test target shares, defined once: a latch, timeouts scaled to the machine's
        // load, a recording instrument, `Boom`, the `Shop` transducer, the fixtures' place, the
        // helpers that run trace-view, LTTng sessions, Chromium and a fake relay daemon
        // (`package` declarations: the suites' targets are this package's).
        .target(
            name: "TransduceTestSupport",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceTraceCTF", "TransduceDemo", "TraceTooling", "CLTTng",
            ],
            path: "Tests/TransduceTestSupport"),
        .testTarget(name: "TransduceTests", dependencies: ["Transduce", "TransduceTestSupport"]),
        // The README's "Testing a feature" examples and the DocC guides' Swift, extracted at every
        // build into sources of TransduceTestingTests (the ReadmeExamples plugin): the tests run
        // what the README and the guides show.
        .executableTarget(name: "readme-extract", path: "Plugins/readme-extract"),
        // The event vocabulary's generator: from Vocabulary/events.json, the LTTng provider, its C
        // wrappers, the kind constants, code tables, LTTng sink, schema table and the contract's
        // table (scripts/vocabulary.sh; the tests fail when a generated file is stale).
        .target(name: "VocabularyGenerator", path: "Tools/VocabularyGenerator"),
        .executableTarget(name: "vocabulary-gen", dependencies: ["VocabularyGenerator"], path: "Tools/vocabulary-gen"),
        .testTarget(name: "VocabularyGeneratorTests", dependencies: ["VocabularyGenerator"]),
        .plugin(name: "ReadmeExamples", capability: .buildTool(), dependencies: ["readme-extract"]),
        .testTarget(
            name: "TransduceTestingTests",
            dependencies: ["Transduce", "TransduceTesting", "TransduceTrace", "TransduceTestSupport"],
            plugins: ["ReadmeExamples"]),
        // The trace library's tests by concern, one target each: `swift test --filter TARGET` is
        // the split that scripts/test-runs.sh runs (Tests/Fixtures holds what they read).
        // In process: the recorder, rings, files, shapes, vocabulary and analyses (a few then read
        // what they recorded back through trace-view).
        .testTarget(
            name: "TraceAnalysisTests",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceDemo", "TracedExample", "trace-view", "TransduceTestSupport",
                "TraceTooling", "RingStress", "TraceGenerator", "CTraceRing",
            ]),
        // The oracle: seeded workloads whose callers know what happened, checked against the trace;
        // in process, in child processes and across real processes under LTTng.
        .testTarget(
            name: "TraceOracleTests",
            dependencies: ["Transduce", "TransduceTrace", "TransduceTraceCTF", "TransduceTestSupport", "TraceTooling"]),
        // trace-view as a user runs it: child processes, goldens, tmux, Chromium, Python readers.
        .testTarget(
            name: "TraceViewerTests",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceTraceCTF", "TransduceDemo", "TracedExample", "trace-view",
                "TraceFuzzHarness", "CTraceRing", "TransduceTestSupport", "TraceTooling", "TraceInputs",
            ]),
        // LTTng-UST: sessions, babeltrace2, record, live and the relay daemon (skipped without them).
        .testTarget(
            name: "TraceLTTngTests",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceTraceCTF", "TransduceDemo", "TracedExample", "trace-view",
                "CLTTng", "TransduceTestSupport", "TraceTooling", "TraceInputs",
            ]),
        // Bounded memory: millions of events through every view, each keeping a core busy for
        // seconds (run alone by scripts/test-runs.sh).
        .testTarget(
            name: "TraceBoundsTests",
            dependencies: [
                "Transduce", "TransduceTrace", "TransduceDemo", "trace-view", "TransduceTestSupport", "TraceTooling",
                "TraceGenerator",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// Warnings fail every build of this package (CI's first build included). SwiftPM applies warning
// control only to the root package, so an app that depends on Transduce never fails on them.
for target in package.targets where target.type != .plugin {
    if ["CTraceRing", "CLTTng", "CBabeltrace", "CBenchFloor", "CTransduceClock", "CCurl"].contains(target.name) {
        target.cSettings = (target.cSettings ?? []) + [.treatAllWarnings(as: .error)]
    } else {
        target.swiftSettings = (target.swiftSettings ?? []) + [.treatAllWarnings(as: .error)]
    }
}
