/// Finds values no runtime can have written: a trace that holds them was damaged or made by
/// hand. Analyses still run on such a trace (they saturate, see `TraceArithmetic.swift`); its
/// reader reports these as warnings and trace-view exits 65 after the report.
///
/// What is *not* flagged, because ordinary traces have it: events a few hundred microseconds out
/// of order, a wrapped ring that starts mid-cycle, settles whose spawn was overwritten.
package struct TraceSanity: TraceConsumer, Sendable {
    package private(set) var warnings: [String] = []
    package private(set) var count = 0
    static let keep = 5
    /// How many codes each kind has (0: it has none), by raw value: read per event, so looked
    /// up once, and held in place (an array's was a load more an event, a third of the check's
    /// samples).
    private let codeCounts: InlineArray<32, UInt8> = {
        precondition(TraceEvent.Kind.allCases.count <= 32, "a code count for every kind")
        var counts = InlineArray<32, UInt8>(repeating: 0)
        for kind in TraceEvent.Kind.allCases {
            counts[Int(kind.rawValue)] = UInt8(clamping: TraceNames.codes(of: kind).count)
        }
        return counts
    }()

    package init() {}

    package mutating func consume(_ e: TraceEvent) {
        // Durations are measured on the same monotonic clock as the timestamp, so one cannot
        // exceed the time at which it ended.
        let measured: Bool
        switch e.kind {
        case .cycleEnter, .cycleLeave, .effect, .taskSettle, .requestResume: measured = true
        default: measured = false
        }
        if measured && e.nanos > e.time {
            flag("\(e.kind) at \(e.time)ns (runtime \(e.runtime)) lasted \(e.nanos)ns, longer than the clock had run")
        }
        if e.time == 0 { flag("\(e.kind) (runtime \(e.runtime)) has no timestamp") }
        let codes = Int(codeCounts[Int(e.kind.rawValue)])
        if codes > 0 && Int(e.code) >= codes {
            flag("\(e.kind) at \(e.time)ns (runtime \(e.runtime)) has an unknown code \(e.code)")
        }
    }

    private mutating func flag(_ message: String) {
        count += 1
        if warnings.count < Self.keep { warnings.append("impossible value: " + message) }
    }

    /// The warnings, with a count of those left out.
    package var notes: [String] {
        warnings + (count > warnings.count ? [counted(count - warnings.count, "more impossible value")] : [])
    }
}
