#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `--fail-on` rule of `trace-view diff`: a change that fails a CI run when it holds.
///
/// ```
/// regression                     a request key the tests call slower (whole, tail, or paired)
/// new-warnings                   a warning the base did not have
/// STAT(request(LABEL)) > +10%    STAT: p50 p90 p99 max mean count; LABEL: an event, or *
/// STAT(request(LABEL)) > +2ms    by a duration (ns, us, ms, s)
/// part(KIND) > +1ms              KIND: a latency part (admissionWait, task, ...): its p50 a request
/// part(KIND, LABEL) > +5%        of one event's requests only
/// mean(part(KIND)) > +1ms        STAT of a part (p50 p90 p99 max mean)
/// ```
///
/// A measure is compared per request key (runtime name and label) that both runs have.
package struct DiffRule: Sendable, Equatable {
    package enum Statistic: String, Sendable, CaseIterable {
        case p50, p90, p99, max, mean, count
    }

    package enum Measure: Sendable, Equatable {
        case request(Statistic, label: String?)
        /// A part's statistic a request (`part(KIND)` alone: its p50, which the stalls of a busy
        /// machine do not move as they move a mean).
        case part(Statistic, LatencyBreakdown.Part.Kind, label: String?)
    }

    package enum Threshold: Sendable, Equatable {
        /// More than this many percent over the base.
        case percent(Double)
        /// More than this many nanoseconds (or requests, for `count`) over the base.
        case amount(UInt64)
    }

    package enum Kind: Sendable, Equatable {
        case regression
        case newWarnings
        case increase(Measure, Threshold)
    }

    /// The rule as written.
    package var text: String
    package var kind: Kind

    /// Parses one rule; the error says what is wrong and what is expected.
    package init(_ text: String) throws(DiffRuleError) {
        self.text = text
        let compact = text.filter { !$0.isWhitespace }
        switch compact {
        case "regression":
            kind = .regression
            return
        case "new-warnings":
            kind = .newWarnings
            return
        default: break
        }
        guard let gt = compact.firstIndex(of: ">") else {
            throw DiffRuleError(rule: text, problem: "expected regression, new-warnings or MEASURE > +CHANGE")
        }
        let measure = try Self.measure(String(compact[..<gt]), rule: text)
        let change = compact[compact.index(after: gt)...]
        guard change.first == "+" else {
            throw DiffRuleError(rule: text, problem: "a change is an increase: write it +10% or +2ms")
        }
        let amount = change.dropFirst()
        let threshold: Threshold
        if amount.hasSuffix("%") {
            guard let value = Double(amount.dropLast()), value >= 0, value.isFinite else {
                throw DiffRuleError(rule: text, problem: "'\(change)' is not a percentage such as +10%")
            }
            threshold = .percent(value)
        } else if case .request(.count, _) = measure {
            guard let value = UInt64(amount) else {
                throw DiffRuleError(rule: text, problem: "'\(change)' is not a count or a percentage such as +10%")
            }
            threshold = .amount(value)
        } else {
            guard let value = parseDuration(String(amount)) else {
                throw DiffRuleError(rule: text, problem: "'\(change)' is not a duration (+250us, +2ms, +1.5s) or a percentage")
            }
            threshold = .amount(value)
        }
        kind = .increase(measure, threshold)
    }

    private static func measure(_ text: String, rule: String) throws(DiffRuleError) -> Measure {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            throw DiffRuleError(rule: rule, problem: "expected STAT(request(LABEL)) or part(KIND) before '>'")
        }
        let head = String(text[..<open])
        let inner = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        if head == "part" { return try part(.p50, inner, rule: rule) }
        guard let statistic = Statistic(rawValue: head) else {
            let names = Statistic.allCases.map(\.rawValue).joined(separator: ", ")
            throw DiffRuleError(rule: rule, problem: "no statistic '\(head)' (part, or one of \(names))")
        }
        if inner.hasPrefix("part("), inner.hasSuffix(")") {
            guard statistic != .count else {
                throw DiffRuleError(rule: rule, problem: "a part has no count: p50, p90, p99, max or mean")
            }
            return try part(statistic, String(inner.dropFirst("part(".count).dropLast()), rule: rule)
        }
        guard inner.hasPrefix("request("), inner.hasSuffix(")"), inner.count > "request()".count else {
            throw DiffRuleError(
                rule: rule, problem: "expected \(head)(request(LABEL)) or \(head)(part(KIND)), LABEL an event or *")
        }
        return .request(statistic, label: label(inner.dropFirst("request(".count).dropLast()))
    }

    /// `KIND` or `KIND, LABEL`, of a part rule.
    private static func part(_ statistic: Statistic, _ inner: String, rule: String) throws(DiffRuleError) -> Measure {
        let fields = inner.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        guard let kind = LatencyBreakdown.Part.Kind(rawValue: String(fields[0])) else {
            let kinds = LatencyBreakdown.Part.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw DiffRuleError(rule: rule, problem: "no latency part '\(fields[0])' (one of \(kinds))")
        }
        return .part(statistic, kind, label: fields.count > 1 ? label(fields[1]) : nil)
    }

    private static func label(_ text: Substring) -> String? { text == "*" ? nil : String(text) }

    /// Where the rule holds in `diff`: one line of evidence each (empty: it does not hold).
    package func evidence(in diff: TraceDiff) -> [String] {
        switch kind {
        case .regression:
            return diff.requests.compactMap { r in
                let whole = r.latency.verdict == .slower
                let tail = r.latency.tail == .slower
                guard whole || tail else { return nil }
                let (b, n) = (r.latency.base, r.latency.new)
                let what = whole && tail ? "slower, and its tail" : whole ? "slower" : "its tail slower"
                let test = r.latency.shift.map { " (Mann-Whitney p \(Self.pValue($0.p)))" } ?? ""
                let p50 = "p50 \(formatDuration(b.p50)) → \(formatDuration(n.p50))"
                let p99 = "p99 \(formatDuration(b.p99)) → \(formatDuration(n.p99))"
                return "\(Self.name(r.key)): \(what): \(p50), \(p99)\(test)"
            }
                + (diff.pairing?.keys ?? []).filter { $0.verdict == .slower }.map { k in
                    "\(Self.name(k.key)): slower request by request: \(k.slower) of \(k.pairs) pairs, median "
                        + "+\(formatDuration(UInt64(max(0, k.medianChange)))) (sign test p \(Self.pValue(k.p ?? 1)))"
                }
        case .newWarnings:
            return diff.warnings.filter { $0.base == 0 && $0.new > 0 }.map { "\($0.warning): \($0.new) in new, none in base" }
        case .increase(let measure, let threshold):
            return diff.requests.compactMap { r in
                guard r.latency.base.count > 0, r.latency.new.count > 0 else { return nil }
                let (b, n, name): (UInt64, UInt64, String)
                switch measure {
                case .request(let statistic, let label):
                    guard label == nil || label == r.key.label else { return nil }
                    (b, n) = (Self.value(statistic, r.latency.base), Self.value(statistic, r.latency.new))
                    name = statistic.rawValue
                case .part(let statistic, let kind, let label):
                    guard label == nil || label == r.key.label,
                        let part = r.parts.first(where: { $0.kind == kind })
                    else { return nil }
                    (b, n) = (Self.value(statistic, part.base), Self.value(statistic, part.new))
                    name = "\(kind.rawValue) \(statistic.rawValue) a request"
                }
                guard n > b else { return nil }
                let holds: Bool
                switch threshold {
                case .percent(let p): holds = b == 0 || Double(n - b) > Double(b) * p / 100
                case .amount(let a): holds = n - b > a
                }
                guard holds else { return nil }
                let show = { (v: UInt64) in
                    if case .request(.count, _) = measure { return "\(v)" }
                    return formatDuration(v)
                }
                let percent = b == 0 ? "" : " (+\(format(Double(n - b) / Double(b) * 100, decimals: 1))%)"
                return "\(Self.name(r.key)): \(name) \(show(b)) → \(show(n))\(percent)"
            }
        }
    }

    private static func value(_ statistic: Statistic, _ f: TraceDiff.Figures) -> UInt64 {
        switch statistic {
        case .p50: f.p50
        case .p90: f.p90
        case .p99: f.p99
        case .max: f.max
        case .mean: f.mean
        case .count: f.count
        }
    }

    /// A request key as the diff names it: `load (Loader)`.
    package static func name(_ key: TraceProfile.RequestKey) -> String { "\(key.label) (\(key.runtime))" }

    /// A p-value as printed after "p": three decimals down to 0.001, then its power of ten
    /// (`2e-7`), and `< 1e-300` at the bottom of the doubles.
    package static func pValue(_ p: Double) -> String {
        if p >= 0.001 { return format(p, decimals: 3) }
        if p < 1e-300 { return "< 1e-300" }
        let exponent = Int(log10(p).rounded(.down))
        let mantissa = Int((p / pow(10, Double(exponent))).rounded())
        return mantissa >= 10 ? "1e\(exponent + 1)" : "\(mantissa)e\(exponent)"
    }
}

/// A `--fail-on` rule that cannot be read.
package struct DiffRuleError: Error, Sendable {
    package var rule: String
    package var problem: String

    package var message: String { "--fail-on '\(rule)': \(problem)" }
}
