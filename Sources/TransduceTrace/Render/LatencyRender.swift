/// Text and JSON views of ``LatencyBreakdown``s: the breakdown table of one request, the one-line
/// summary of the slowest, and the JSON objects scripts read.
extension LatencyBreakdown.Part {
    /// What the part is, for people: `admission wait`, `cycle #4 refresh: async action`, `task load #1`.
    package var title: String {
        switch kind {
        case .admissionWait: "admission wait"
        case .reentryWait: "re-entry wait (dispatch #\(dispatch))"
        case .transduce: "cycle #\(cycle) \(label)"
        case .action: "cycle #\(cycle) \(label): action"
        case .asyncAction: "cycle #\(cycle) \(label): async action"
        case .task: "task \(label)"
        case .sharedTask: "shared task \(label) (joined)"
        case .replacedTask: "task \(label) until replaced"
        case .cancelledTask: "task \(label) until cancelled"
        case .resume: "resume"
        }
    }
}

extension LatencyBreakdown.Part.Kind {
    /// The kind as every view names it (`async action`, `admission wait`, `shared task`): the one
    /// vocabulary of `slow`, the TUI and the report (the raw value is the JSON's and CSV's).
    package var name: String {
        switch self {
        case .admissionWait: "admission wait"
        case .reentryWait: "re-entry wait"
        case .transduce: "transduce"
        case .action: "action"
        case .asyncAction: "async action"
        case .task: "task"
        case .sharedTask: "shared task"
        case .replacedTask: "replaced task"
        case .cancelledTask: "cancelled task"
        case .resume: "resume"
        }
    }
}

extension LatencyBreakdown {
    /// `request(load) dispatch #1`.
    package var title: String { "\(styleName)(\(label)) dispatch #\(dispatch)" }

    /// Parts from the largest down.
    package var largest: [Part] { parts.sorted { $0.nanos > $1.nanos } }

    func share(_ nanos: UInt64) -> String {
        total == 0 ? "-" : format(Double(nanos) * 100 / Double(total), decimals: 1) + "%"
    }

    /// One line: total, request, and its two biggest parts.
    package func summaryLine(options: RenderOptions) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        let biggest = largest.prefix(2).map { "\($0.title) \(d($0.nanos)) (\(share($0.nanos)))" }
        return [d(total), title, outcomeName, biggest.joined(separator: ", ")]
    }

    /// The breakdown as a table, with what held the gate during each wait.
    package func render(options: RenderOptions) -> [String] {
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        var lines = [
            options.paint(
                options.fit(
                    "Latency of \(title): \(d(total)) (\(outcomeName)), runtime \(runtime.name)"
                        + (traceContext.map { ", trace \($0.traceID)" } ?? "")), .bold)
        ]
        var table = TextTable([
            .init("part", minimum: 10), .init("time", minimum: 6, alignRight: true), .init("share", minimum: 5, alignRight: true),
            .init("held by / detail", minimum: 8),
        ])
        for p in parts {
            var detail = ""
            if !p.heldBy.isEmpty {
                let held = p.heldBy.sorted { $0.nanos > $1.nanos }.prefix(3).map { h -> String in
                    let work = LatencyBreakdown.holdingWork(action: h.actionNanos, asyncAction: h.asyncActionNanos)
                    let how = work.isEmpty ? "" : " " + work
                    return h.cycle == 0 ? "\(h.label) \(d(h.nanos))" : "\(h.label) cycle #\(h.cycle)\(how) \(d(h.nanos))"
                }
                detail = "gate held by " + held.joined(separator: ", ") + (p.heldBy.count > 3 ? ", …" : "")
            }
            table.append(["  " + p.title, d(p.nanos), share(p.nanos), detail])
        }
        lines += table.render(options: options)
        if !offPath.isEmpty {
            lines.append(options.fit("  off the path: " + offPath.map { "task #\($0)" }.joined(separator: ", ")))
        }
        return lines
    }

    /// One JSON object: `dispatch`, `label`, `style`, `outcome`, `total_ns`, `parts`, whose `ns`
    /// add up to `total_ns`, and `trace_id` and `parent_span_id` (hex) when the caller's trace
    /// context was recorded.
    package func json() -> String {
        var bytes: [UInt8] = []
        func string(_ s: String) -> String {
            bytes.removeAll(keepingCapacity: true)
            Escaping.appendJSON(s, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        let pid = runtime.process
        return
            #"{"runtime":\#(runtime.runtime),"pid":\#(pid),"dispatch":\#(dispatch),"label":\#(string(label)),"style":\#(string(styleName)),"outcome":\#(string(outcomeName)),"total_ns":\#(total),"parts":\#(partsJSON())\#(contextJSON)}"#
    }

    /// `,"trace_id":…,"parent_span_id":…` when the caller's context was recorded, else nothing.
    private var contextJSON: String {
        guard let c = traceContext else { return "" }
        return #","trace_id":"\#(c.traceID)","parent_span_id":"\#(c.spanIDHex)""#
    }

    /// The parts as a JSON array of `{name, title, ns, cycle, task, dispatch, held_by}`.
    package func partsJSON() -> String {
        var bytes: [UInt8] = []
        func string(_ s: String) -> String {
            bytes.removeAll(keepingCapacity: true)
            Escaping.appendJSON(s, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        let items = parts.map { p -> String in
            var fields = [#""name":\#(string(p.kind.rawValue))"#, #""title":\#(string(p.title))"#, #""ns":\#(p.nanos)"#]
            if p.cycle != 0 { fields.append(#""cycle":\#(p.cycle)"#) }
            if p.task != 0 { fields.append(#""task":\#(p.task)"#) }
            if p.dispatch != 0 { fields.append(#""dispatch":\#(p.dispatch)"#) }
            if !p.heldBy.isEmpty {
                let held = p.heldBy.map {
                    #"{"cycle":\#($0.cycle),"label":\#(string($0.label)),"ns":\#($0.nanos),"action_ns":\#($0.actionNanos),"async_action_ns":\#($0.asyncActionNanos)}"#
                }
                fields.append(#""held_by":[\#(held.joined(separator: ","))]"#)
            }
            return "{" + fields.joined(separator: ",") + "}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }
}
