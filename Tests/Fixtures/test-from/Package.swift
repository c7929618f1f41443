// swift-tools-version: 6.2
// The package the tests of `trace-view test-from` compile written tests in (TestFromTests), made
// under .build/test-from/package with @ROOT@ this repository: the feature in Sources/Feature, the
// written tests in Tests/FeatureTests, as a user's package would hold them.
import PackageDescription

let package = Package(
    name: "FromTrace",
    dependencies: [.package(name: "Transduce", path: "@ROOT@")],
    targets: [
        .target(name: "Feature", dependencies: [.product(name: "Transduce", package: "Transduce")]),
        .testTarget(
            name: "FeatureTests",
            dependencies: ["Feature", .product(name: "TransduceTesting", package: "Transduce")]),
    ],
    swiftLanguageModes: [.v6]
)
