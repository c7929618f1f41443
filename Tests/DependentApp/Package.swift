// swift-tools-version: 6.2
// An application that depends on Transduce by path, as a user's would: the test
// `LTTngTrustTests.dependentAppRecordsToLTTng` builds it and records it with `trace-view record`,
// checking that LTTng gets its events with no step beyond depending on `TransduceTrace`.
import PackageDescription

let package = Package(
    name: "DependentApp",
    dependencies: [.package(name: "Transduce", path: "../..")],
    targets: [
        .executableTarget(
            name: "DependentApp",
            dependencies: [
                .product(name: "Transduce", package: "Transduce"),
                .product(name: "TransduceTrace", package: "Transduce"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
