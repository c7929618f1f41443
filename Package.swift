// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Transduce",
    products: [
        .library(name: "Transduce", targets: ["Transduce"]),
        .library(name: "TransduceTrace", targets: ["TransduceTrace"]),
    ],
    targets: [
        // The runtime: no dependencies beyond the toolchain.
        .target(name: "Transduce"),
        // The LTTng-UST provider `transduce` and its C wrappers (no-ops without LTTng-UST).
        .target(
            name: "CLTTng",
            cSettings: [.headerSearchPath(".")],
            linkerSettings: [
                .linkedLibrary("lttng-ust", .when(platforms: [.linux])),
                .linkedLibrary("dl", .when(platforms: [.linux])),
            ]
        ),
        // Recorder, ring buffer, trace files, analyses and shape assertions.
        .target(name: "TransduceTrace", dependencies: ["Transduce", "CLTTng"]),
        // Reading LTTng CTF traces through libbabeltrace2 (kept apart so apps need not link it).
        .target(
            name: "CBabeltrace",
            linkerSettings: [.linkedLibrary("babeltrace2", .when(platforms: [.linux]))]
        ),
        .target(name: "TransduceTraceCTF", dependencies: ["TransduceTrace", "CBabeltrace"]),
        .executableTarget(name: "LoaderExample", dependencies: ["Transduce"], path: "Examples/LoaderExample"),
        .target(name: "DemoWorkload", dependencies: ["Transduce"], path: "Examples/DemoWorkload"),
        .executableTarget(
            name: "TracedExample", dependencies: ["DemoWorkload", "TransduceTrace"], path: "Examples/TracedExample"),
        .testTarget(name: "TransduceTests", dependencies: ["Transduce"]),
        .testTarget(
            name: "TransduceTraceTests", dependencies: ["Transduce", "TransduceTrace", "TransduceTraceCTF", "DemoWorkload", "TracedExample"]),
    ],
    swiftLanguageModes: [.v6]
)
