import TraceInputs
import TransduceTrace

/// The `--from`/`--to` window, either bound open.
struct Window {
    var from: UInt64?
    var to: UInt64?

    /// `--from`/`--to`: a duration from the trace's start (`250us`, `5ms`, `1.5s`; a bare number
    /// is nanoseconds), or a bare absolute CLOCK_MONOTONIC time at or after the start.
    init(_ args: Arguments, start: UInt64) throws {
        func bound(_ name: String) throws -> UInt64? {
            guard let value = try args.duration(name) else { return nil }
            let absolute = UInt64(args.options[name]!) != nil && value >= start
            return absolute ? value : start.plus(value)
        }
        from = try bound("from")
        to = try bound("to")
        if let from, let to, from > to { throw CLIError.usage("--from is after --to") }
    }

    var isOpen: Bool { from == nil && to == nil }
    func contains(_ time: UInt64) -> Bool { (from.map { time >= $0 } ?? true) && (to.map { time <= $0 } ?? true) }
}
