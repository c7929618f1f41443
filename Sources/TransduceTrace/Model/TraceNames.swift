import Transduce

/// The string names of kinds and codes, shared by the file formats, LTTng and renderers.
///
/// Every table is derived, not spelled: a kind's name is its case name (`TraceEvent.Kind`), its
/// LTTng name that name in snake case, and a code's name the case name of the runtime's enum
/// (``DispatchKind``, ``EffectKind``, …), in raw-value order. Which kind uses which table
/// (TraceNames+Codes.swift) and the C provider's copy are generated from Vocabulary/events.json;
/// the tests compare that copy with these tables.
package enum TraceNames {
    package static let kinds: [String] = TraceEvent.Kind.allCases.map(\.caseName)
    package static let lttngKinds: [String] = kinds.map(snakeCased)

    /// The name of `code` in `table`, or `unknown(N)` for a code this version has no name for.
    static func name(_ table: [String], _ code: UInt8) -> String {
        Int(code) < table.count ? table[Int(code)] : "unknown(\(code))"
    }

    /// The code written as `unknown(N)` (a code this version has no name for), so that such an
    /// event exported as JSON Lines reads back.
    static func unknownCode(_ name: String) -> UInt8? {
        guard name.hasPrefix("unknown("), name.hasSuffix(")") else { return nil }
        return UInt8(name.dropFirst(8).dropLast())
    }

    /// The name of `code` for `kind`, or "" when the kind has no code.
    package static func codeName(kind: TraceEvent.Kind, code: UInt8) -> String {
        let table = codes(of: kind)
        return table.isEmpty ? "" : name(table, code)
    }

    /// The code of `name` in `kind`'s table.
    package static func code(kind: TraceEvent.Kind, name: String) -> UInt8? {
        codes(of: kind).firstIndex(of: name).map(UInt8.init)
    }

    /// The case names of `E` in raw-value order. The raw values are the codes the trace stores,
    /// so they must run 0, 1, 2, … (checked here once, when the table is first used).
    static func names<E: CaseIterable & RawRepresentable>(of _: E.Type) -> [String] where E.RawValue == UInt8 {
        E.allCases.enumerated().map { index, value in
            precondition(Int(value.rawValue) == index, "\(E.self)'s raw values must be 0, 1, 2, …")
            return String(describing: value)
        }
    }

    /// `cycleEnter` → `cycle_enter`.
    static func snakeCased(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase {
                out += "_" + c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }
}

extension TraceEvent.Kind {
    /// The case's own name: `Kind` is deliberately not `CustomStringConvertible`, so that
    /// describing it yields the case name, which every table above derives from.
    fileprivate var caseName: String { String(describing: self) }
}
