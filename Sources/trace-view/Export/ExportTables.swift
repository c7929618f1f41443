import TraceInputs
import TransduceTrace

/// `export --format csv --table requests|tasks|cycles|events`: a trace as tables for pandas,
/// DuckDB or a spreadsheet, each written as it is read (one pass; for `requests`, a second over
/// a file for requests whose windows reached back past what the first could keep), in memory
/// that follows what is open, not the trace.
enum ExportTables {
    static let names = ["requests", "tasks", "cycles", "events"]

    static let requests = TableSchema(
        // slow's columns (the parts as columns of their own, not a JSON array; the trace context
        // is slow's, which holds only the requests it shows).
        columns: SlowCommand.table.columns.filter { !["parts", "trace_id", "parent_span_id"].contains($0.name) }
            + LatencyBreakdown.Part.Kind.allCases.map { Column(column($0), "time in \($0.rawValue) parts (see slow)", .integer) }
            + [Column("slowest_holder", "the cycle that held the gate longest while it waited (its event label)")],
        row:
            "resumed awaited request, in resume order; then those whose windows reached back past what the first pass keeps (a second pass reads them), batch by batch, each in resume order"
    )

    static let cycles = TableSchema(
        columns: [
            Column("runtime", "the runtime's id within its process"),
            Column("pid", "its process (empty when the trace has none)"),
            Column("cycle", "the cycle's id"), Column("dispatch", "the dispatch it ran"),
            Column("label", "that dispatch's event"),
            Column("style", "its style"), Column("enter_ns", "when it entered the gate (CLOCK_MONOTONIC ns)"),
            Column("waited_ns", "dispatch to enter (empty when the dispatch is not in the trace)"),
            Column("leave_ns", "when it left (empty while open at the end)"), Column("held_ns", "enter to leave"),
            Column("steps", "transduce steps"), Column("outcome", "settled, handedOff, ..."), Column("effects", "effects it ran"),
            Column("spawned", "tasks it spawned"),
        ], row: "cycle, in the order they left (open ones last)")

    static let events = TableSchema(
        columns: [
            Column("time_ns", "CLOCK_MONOTONIC ns"), Column("pid", "the recording process (empty when the trace has none)"),
            Column("thread", "the recording thread"), Column("runtime", "the runtime's id within its process"),
            Column("kind", "the event kind"),
            Column("dispatch", "dispatch id (0: none)"), Column("cycle", "cycle id"), Column("task", "task id"),
            Column("other_task", "origin task (dispatch), replaced task (taskSpawn)"), Column("step", "step in its cycle"),
            Column("code", "style, outcome, reason, policy or effect kind, by kind"), Column("code2", "a rejection's reason"),
            Column("count", "queue capacity or depth, or waiters"), Column("nanos", "waited, held, duration, ran or latency"),
            Column("label", "event, task name, error or transducer"), Column("label2", "host kind (runtimeStart)"),
            Column("payload", "the redacted payload, when captured"),
        ], row: "event, in trace order")

    static func column(_ kind: LatencyBreakdown.Part.Kind) -> String {
        kind.rawValue.reduce(into: "") { out, c in
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        } + "_ns"
    }

    /// The help's COLUMNS section of every table.
    static var help: String {
        [("requests", requests), ("tasks", TasksCommand.table), ("cycles", cycles), ("events", events)].map { name, schema in
            "--table \(name): " + schema.help
        }.joined(separator: "\n\n")
    }

    static func cells(_ b: LatencyBreakdown) -> [TableCell] {
        var byKind: [LatencyBreakdown.Part.Kind: UInt64] = [:]
        var holder: (nanos: UInt64, label: String)?
        for p in b.parts {
            byKind[p.kind, default: 0] = byKind[p.kind, default: 0].plus(p.nanos)
            for h in p.heldBy where h.cycle != 0 && h.nanos > (holder?.nanos ?? 0) { holder = (h.nanos, h.label) }
        }
        return TableCell.runtime(b.runtime) + [
            .number(b.dispatch), .string(b.styleName), .string(b.label), .string(b.outcomeName), .number(b.start),
            .number(b.total),
        ] + LatencyBreakdown.Part.Kind.allCases.map { .number(byKind[$0] ?? 0) } + [holder.map { .string($0.label) } ?? .null]
    }

    static func cells(_ c: CycleRows.Row) -> [TableCell] {
        TableCell.runtime(c.runtime) + [
            .number(c.cycle), .number(c.dispatch), .string(c.label), .string(c.style), .number(c.enter),
            c.waited.map(TableCell.number) ?? .null, c.leave.map(TableCell.number) ?? .null,
            c.held.map(TableCell.number) ?? .null, c.steps.map { .number(UInt64($0)) } ?? .null,
            c.outcome.map(TableCell.string) ?? .null, .number(UInt64(c.effects)), .number(UInt64(c.spawned)),
        ]
    }

    static func cells(_ e: TraceEvent) -> [TableCell] {
        [
            .number(e.time), e.process == 0 ? .null : .number(UInt64(e.process)), .number(UInt64(e.thread)),
            .number(e.runtime), .string(TraceNames.kinds[Int(e.kind.rawValue)]), .number(e.dispatch), .number(e.cycle),
            .number(e.task),
            .number(e.otherTask), .number(UInt64(e.step)), .string(e.codeName), .string(e.code2Name),
            .number(UInt64(e.count)), .number(e.nanos), .string(e.label), .string(e.label2), .string(e.payload),
        ]
    }

    /// Writes `table` of what `source` selects as CSV to `output`.
    static func write(_ table: String, source: TraceSource, output: OutputFile) throws {
        var pending: [[TableCell]] = []
        var header = true
        func flush(_ schema: TableSchema, force: Bool = false) {
            guard force || pending.count >= 1_024 else { return }
            var text = ""
            for line in schema.lines(pending, format: .csv, header: header) {
                text += line
                text += "\n"
            }
            header = false
            pending.removeAll(keepingCapacity: true)
            output.write(Array(text.utf8))
        }
        switch table {
        case "events":
            try source.pass {
                pending.append(cells($0))
                flush(events)
            }
            flush(events, force: true)
        case "cycles":
            var rows = CycleRows()
            try source.pass {
                rows.consume($0)
                guard rows.readyCount >= 1_024 else { return }
                pending += rows.take().map(cells)
                flush(cycles)
            }
            pending += rows.finish().map(cells)
            flush(cycles, force: true)
        case "tasks":
            var rows = TaskRows()
            try source.pass {
                rows.consume($0)
                guard rows.readyCount >= 1_024 else { return }
                pending += rows.take().map(TasksCommand.cells)
                flush(TasksCommand.table)
            }
            let c = source.counts ?? TraceCounts()
            let (rest, warnings) = rows.finish(
                lost: c.overwritten.plus(c.discarded).plus(c.lost), lossesUnknown: source.lossesUnknown)
            pending += rest.map(TasksCommand.cells)
            flush(TasksCommand.table, force: true)
            for w in warnings { Terminal.error("trace-view: warning: " + w.message) }
        default:
            // requests: every request broken down from its window, in passes of bounded memory.
            try source.breakdowns {
                pending += $0.map(cells)
                flush(requests)
            }
            flush(requests, force: true)
        }
    }
}
