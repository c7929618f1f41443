/// The package's version, the one place it is written: `trace-view --version` prints it. Until
/// the first tag (CHANGELOG.md keeps everything under Unreleased) it is a development version.
package enum PackageVersion {
    package static let current = "0.1.0-dev"
}
