import TraceInputs
import TransduceTrace

/// Hand-written argument parsing in the shape of swift-argument-parser: options with values,
/// flags, positionals, `--` to end options, and `--help`.
struct Arguments {
    private(set) var options: [String: String] = [:]
    /// Every value of each option, in order (``options`` holds the last): for an option that
    /// may be given more than once (`diff --fail-on`).
    private(set) var repeated: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []
    /// Everything after `--`.
    private(set) var rest: [String] = []

    /// - Parameters:
    ///   - valued: options that take a value (`--width 80` or `--width=80`).
    ///   - flags: options without a value.
    init(_ arguments: [String], valued: Set<String>, flags allowed: Set<String>) throws {
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" {
                rest = Array(arguments[(i + 1)...])
                break
            }
            if a.hasPrefix("--") && a.count > 2 {
                var name = String(a.dropFirst(2))
                var value: String?
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                if valued.contains(name) {
                    if value == nil {
                        i += 1
                        guard i < arguments.count else { throw CLIError.usage("option --\(name) needs a value") }
                        value = arguments[i]
                    }
                    options[name] = value
                    repeated[name, default: []].append(value!)
                } else if allowed.contains(name) {
                    guard value == nil else { throw CLIError.usage("flag --\(name) takes no value") }
                    flags.insert(name)
                } else {
                    let hint = Suggestion.hint(for: name, among: (valued.union(allowed)).sorted(), prefix: "--")
                    throw CLIError.usage("unknown option --\(name)\(hint)")
                }
            } else if a.hasPrefix("-") && a != "-" {
                if a == "-h" { flags.insert("help") } else { throw CLIError.usage("unknown option \(a)") }
            } else {
                positionals.append(a)
            }
            i += 1
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    func integer(_ name: String) throws -> UInt64? {
        guard let text = options[name] else { return nil }
        guard let value = UInt64(text) else { throw CLIError.usage("--\(name) needs a non-negative integer, got '\(text)'") }
        return value
    }

    /// A duration option (`250us`, `5ms`, `1.5s`; a bare number is nanoseconds).
    func duration(_ name: String) throws -> UInt64? {
        guard let text = options[name] else { return nil }
        guard let value = parseDuration(text) else {
            throw CLIError.usage("--\(name) needs a duration such as 250us, 5ms or 1.5s, got '\(text)'")
        }
        return value
    }

    /// The positional arguments named `names` (`BASE`, `NEW`), exactly as many.
    func inputs(_ names: [String]) throws -> [String] {
        guard positionals.count >= names.count else {
            throw CLIError.usage(
                "missing \(names[positionals.count...].joined(separator: " and ")) (a trace file, a JSON Lines file or an LTTng CTF directory)"
            )
        }
        guard positionals.count == names.count else {
            throw CLIError.usage("unexpected argument '\(positionals[names.count])'")
        }
        return positionals
    }

    /// The single positional TRACE argument.
    func trace() throws -> String {
        guard let path = positionals.first else {
            throw CLIError.usage("missing TRACE (a trace file, a JSON Lines file or an LTTng CTF directory)")
        }
        guard positionals.count == 1 else { throw CLIError.usage("unexpected argument '\(positionals[1])'") }
        return path
    }
}
