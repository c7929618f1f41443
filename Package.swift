// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Transduce",
    products: [
        .library(name: "Transduce", targets: ["Transduce"]),
    ],
    targets: [
        .target(name: "Transduce"),
        .executableTarget(name: "LoaderExample", dependencies: ["Transduce"], path: "Examples/LoaderExample"),
        .testTarget(name: "TransduceTests", dependencies: ["Transduce"]),
    ],
    swiftLanguageModes: [.v6]
)
