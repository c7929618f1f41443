import Foundation

/// The targets the figures are held to, read from `Benchmarks/Thresholds/transduce-bench.tsv`:
/// one file that says every target, beside the callgrind limits in the same folder.
struct Thresholds {
    /// A figure's target: how it compares with its bound, and how the table says it.
    struct Target {
        enum Limit: String { case max, min, equal }
        var pattern: String
        var limit: Limit
        var bound: Double
        var shown: String

        func matches(_ key: String) -> Bool {
            guard let star = pattern.firstIndex(of: "*") else { return key == pattern }
            let prefix = pattern[..<star]
            let suffix = pattern[pattern.index(after: star)...]
            return key.count > prefix.count + suffix.count && key.hasPrefix(prefix) && key.hasSuffix(suffix)
        }

        func met(by value: Double) -> Bool {
            switch limit {
            case .max: value <= bound
            case .min: value >= bound
            case .equal: value == bound
            }
        }
    }

    /// A line of the file that is not a target.
    struct Malformed: Error, CustomStringConvertible { var description: String }

    var targets: [Target]

    /// The file beside this program's sources.
    static let path = BenchRun.package + "/Benchmarks/Thresholds/transduce-bench.tsv"

    /// Reads `path`: tab-separated `key limit bound [shown]` lines, `#` comments.
    init(path: String = Thresholds.path) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        targets = try text.split(separator: "\n").enumerated().compactMap { number, line in
            if line.hasPrefix("#") || line.allSatisfy(\.isWhitespace) { return nil }
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count >= 3, let limit = Target.Limit(rawValue: fields[1]), let bound = Double(fields[2]) else {
                throw Malformed(description: "\(path):\(number + 1): expected KEY max|min|equal BOUND [SHOWN], got \(line)")
            }
            let symbol = ["max": "≤", "min": "≥", "equal": "="][fields[1]]!
            let shown = fields.count > 3 ? fields[3] : "\(symbol) \(fields[2])"
            return Target(pattern: fields[0], limit: limit, bound: bound, shown: shown)
        }
    }

    /// The first target that matches `key`, if any.
    func target(of key: String) -> Target? { targets.first { $0.matches(key) } }
}
