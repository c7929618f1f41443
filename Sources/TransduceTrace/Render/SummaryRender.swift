extension SummaryReport {
    /// The report as text: counts per kind, runtimes, span, losses and notes.
    package func render(options: RenderOptions = RenderOptions()) -> [String] {
        var lines: [String] = []
        let runtimes = self.runtimes
        let span = total == 0 ? 0 : last - first
        lines.append(options.paint("Trace summary", .bold))
        lines.append("  events      \(total)")
        lines.append("  time span   \(formatDuration(span, ascii: options.ascii))")
        lines.append(
            "  runtimes    \(runtimes.count)"
                + (unlistedEvents > 0 ? " listed; \(unlistedEvents) events of further runtimes not itemized" : ""))
        if let recorder {
            lines.append(
                "  lost        \(recorder.overwritten) overwritten, \(recorder.discarded) discarded, \(recorder.lost) unreadable")
        } else {
            lines.append("  lost        unknown (no recorder counts in this input)")
        }
        if let recorder, recorder.slowRequests > 0 || recorder.slowDumps > 0 {
            lines.append(
                "  recorder    saw \(counted(recorder.slowRequests, "slow request")), had written \(counted(recorder.slowDumps, "slow-request dump"))"
            )
        }
        if let slowThreshold {
            let resumed = counts[Int(TraceEvent.Kind.requestResume.rawValue)]
            lines.append(
                "  slow        \(slowRequests) of \(resumed) resumed requests took \(formatDuration(slowThreshold, ascii: options.ascii)) or more"
            )
        }
        for note in notes { lines.append(options.paint("  warning: \(note)", .error)) }
        lines.append("")
        lines.append(options.paint("Events by kind", .bold))
        // A trace context is what a caller may set, not something the runtime does: a trace
        // without one does not list it.
        for kind in TraceEvent.Kind.allCases where kind != .traceContext || counts[Int(kind.rawValue)] > 0 {
            lines.append("  " + pad(kind.description, 18) + pad(String(counts[Int(kind.rawValue)]), 10, right: true))
        }
        lines.append("")
        let hostNames = processHosts.sorted { $0.key < $1.key }.filter { !$0.value.isEmpty }
        if !hostNames.isEmpty {
            lines.append(options.paint("Processes", .bold))
            for (pid, host) in hostNames { lines.append("  pid \(pid) on \(host)") }
            lines.append("")
        }
        lines.append(options.paint("Runtimes", .bold))
        // Columns widen to their longest name (a fixed width cut them without a mark).
        let idWidth = max(6, (runtimeOrder.lazy.map { $0.name.count }.max() ?? 0) + 2)
        let transducerWidth = max(22, (runtimes.values.lazy.map(\.transducer.count).max() ?? 0) + 2)
        let hostWidth = max(18, (runtimes.values.lazy.map(\.host.count).max() ?? 0) + 2)
        lines.append(
            "  " + pad("id", idWidth) + pad("transducer", transducerWidth) + pad("host", hostWidth)
                + pad("events", 9, right: true) + "  " + pad("span", 10) + "stop")
        for id in runtimeOrder {
            let r = runtimes[id]!
            lines.append(
                "  " + pad(id.name, idWidth) + pad(r.transducer.isEmpty ? "?" : r.transducer, transducerWidth)
                    + pad(r.host.isEmpty ? "?" : r.host, hostWidth)
                    + pad(String(r.events), 9, right: true) + "  "
                    + pad(formatDuration(r.last - r.first, ascii: options.ascii), 10)
                    + (r.stop.isEmpty ? "running" : r.stop))
        }
        return lines.map(options.fit)
    }
}
