import DemoWorkload
import Foundation
import Transduce
import TransduceTrace
import TransduceTraceCTF

enum TraceViewCommand {
    static func run(_ all: [String]) async throws {
        guard let command = all.first else {
            Terminal.print(Help.tool.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            throw CLIError.usage("missing command")
        }
        let rest = Array(all.dropFirst())
        if command == CTFChild.command { CTFChild.run(rest) }
        if command == "--help" || command == "-h" || command == "help" {
            if let topic = rest.first, let text = Help.commands[topic] { return printHelp(text) }
            return printHelp(Help.tool)
        }
        if command == "--version" { return Terminal.print(["trace-view 1.0 (trace format \(TraceFileFormat.version))"]) }
        guard let help = Help.commands[command] else { throw CLIError.usage("unknown command '\(command)'") }
        let display: Set<String> = ["ascii", "no-color", "help", "all-processes"]
        switch command {
        case "demo":
            let args = try Arguments(rest, valued: ["save", "width"], flags: display)
            if args.flag("help") { return printHelp(help) }
            guard args.positionals.isEmpty else { throw CLIError.usage("demo takes no TRACE") }
            try await demo(args)
        case "sequence":
            let args = try Arguments(rest, valued: ["runtime", "pid", "request", "from", "to", "width"], flags: display)
            if args.flag("help") { return printHelp(help) }
            try sequence(args)
        case "slow":
            let args = try Arguments(
                rest, valued: ["runtime", "pid", "top", "over", "event", "width"], flags: display.union(["json"]))
            if args.flag("help") { return printHelp(help) }
            try slow(args)
        case "check":
            let args = try Arguments(rest, valued: ["runtime", "pid", "width"], flags: display.union(["incomplete"]))
            if args.flag("help") { return printHelp(help) }
            try check(args)
        case "contention":
            let args = try Arguments(rest, valued: ["runtime", "pid", "width", "long-hold"], flags: display)
            if args.flag("help") { return printHelp(help) }
            try contention(args)
        case "tasks":
            let args = try Arguments(rest, valued: ["runtime", "pid", "width"], flags: display)
            if args.flag("help") { return printHelp(help) }
            try tasks(args)
        case "summary":
            let args = try Arguments(rest, valued: ["runtime", "pid", "width", "over"], flags: display)
            if args.flag("help") { return printHelp(help) }
            try summary(args)
        case "export":
            let args = try Arguments(
                rest, valued: ["format", "output", "runtime", "pid", "request", "from", "to"], flags: ["help", "all-processes"])
            if args.flag("help") { return printHelp(help) }
            try export(args)
        case "record":
            let args = try Arguments(rest, valued: ["output"], flags: ["help"])
            if args.flag("help") { return printHelp(help) }
            try record(args)
        default:
            throw CLIError.usage("unknown command '\(command)'")
        }
    }

    static func printHelp(_ text: String) {
        Terminal.print(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// Prints reader notes as warnings; damaged input exits 65 after the report.
    static func finish(notes: [String]) throws {
        guard !notes.isEmpty else { return }
        for note in notes.prefix(20) { Terminal.error("trace-view: warning: \(note)") }
        throw CLIError.data("the input is damaged; the report above shows what could be read")
    }

    /// `trace-view`'s exit status when the trace holds nothing of what was asked for (a runtime,
    /// a process or a dispatch it does not have).
    static let nothingSelected: Int32 = 66

    /// `--runtime ID` (the id within its process) and `--pid PID`, together or alone: which
    /// events a command looks at, and what the trace had when none matched.
    struct Selection {
        let runtime: UInt64?
        let pid: UInt64?
        private(set) var matched = 0
        private(set) var total = 0
        /// Runtimes seen, for the error (a few: a hostile trace may name millions).
        private(set) var seen: [UInt64] = []

        init(_ args: Arguments) throws {
            runtime = try args.integer("runtime")
            pid = try args.integer("pid")
            if let pid, pid > UInt64(UInt32.max) { throw CLIError.usage("--pid \(pid) is not a process id") }
        }

        var isNarrowed: Bool { runtime != nil || pid != nil }

        mutating func keep(_ e: TraceEvent) -> Bool {
            total += 1
            if seen.count < 10, !seen.contains(e.runtimeKey) { seen.append(e.runtimeKey) }
            let kept = (runtime == nil || e.runtime == runtime) && (pid == nil || UInt64(e.process) == pid)
            if kept { matched += 1 }
            return kept
        }

        /// Throws (status 66) when a narrowed selection matched none of a non-empty trace.
        func check() throws {
            guard isNarrowed, matched == 0, total > 0 else { return }
            let asked = [runtime.map { "runtime \($0)" }, pid.map { "pid \($0)" }].compactMap { $0 }.joined(separator: ", ")
            throw CLIError(
                message:
                    "no events of \(asked) in this trace; it has runtime(s) \(seen.map(RuntimeKey.name).joined(separator: ", "))"
                    + (seen.count == 10 ? ", …" : ""), status: nothingSelected)
        }
    }

    /// `--from`/`--to`: a duration from the trace's start (`250us`, `5ms`, `1.5s`; a bare number
    /// is nanoseconds), or a bare absolute CLOCK_MONOTONIC time at or after the start.
    static func window(_ args: Arguments, start: UInt64) throws -> Window {
        func bound(_ name: String) throws -> UInt64? {
            guard let value = try args.duration(name) else { return nil }
            let absolute = UInt64(args.options[name]!) != nil && value >= start
            return absolute ? value : start.plus(value)
        }
        let window = Window(from: try bound("from"), to: try bound("to"))
        if let from = window.from, let to = window.to, from > to { throw CLIError.usage("--from is after --to") }
        return window
    }

    /// The `--from`/`--to` window, either bound open.
    struct Window {
        var from: UInt64?
        var to: UInt64?
        var isOpen: Bool { from == nil && to == nil }
        func contains(_ time: UInt64) -> Bool { (from.map { time >= $0 } ?? true) && (to.map { time <= $0 } ?? true) }
    }

    /// The runtime holding dispatch `request` (66 when none does; 64 when several do).
    static func runtime(of request: UInt64, in index: TraceIndex, narrowed: Bool) throws -> UInt64 {
        let runtimes = index.runtimes.filter { index.dispatches[TraceIndex.Key(runtime: $0, id: request)] != nil }
        guard let runtime = runtimes.first else {
            let highest = index.dispatches.keys.lazy.map(\.id).max()
            throw CLIError(
                message: "no dispatch #\(request) in this trace" + (narrowed ? " for the runtime and process asked for" : "")
                    + (highest.map { " (its dispatches go up to #\($0))" } ?? " (it has no dispatches)"),
                status: nothingSelected)
        }
        if runtimes.count > 1 {
            let names = runtimes.map(RuntimeKey.name).joined(separator: ", ")
            throw CLIError.usage(
                "dispatch #\(request) exists in runtimes \(names); pick one with --runtime"
                    + (Set(runtimes.map(RuntimeKey.process)).count > 1 ? " and --pid" : ""))
        }
        return runtime
    }

    // MARK: demo

    static func demo(_ args: Arguments) async throws {
        let options = try Terminal.options(args)
        let recorder = TraceRecorder(capacity: 1 << 14)
        let runtime = try await DemoWorkload.run(instrument: recorder)
        let trace = recorder.snapshot()
        let index = TraceIndex(trace.events)
        var lines = [
            options.paint("trace-view demo", .bold)
                + ": \(trace.events.count) events from runtime \(runtime) recorded in the ring buffer"
                + " (\(trace.counts.overwritten) overwritten)",
            "",
        ]
        if let load = trace.events.first(where: { $0.kind == .dispatch && $0.label == "load" && $0.runtime == runtime.rawValue })
        {
            lines.append(options.paint("The request-lifecycle chart: request(load) #\(load.dispatch)", .bold))
            lines.append("(its task holds the waiter while send(ping) gets through the gate)")
            let start = trace.start
            lines += SequenceDiagram(index: index, options: options, origin: start).render(
                withOtherCycles(index: index, runtime: load.runtimeKey, dispatch: load.dispatch))
            lines.append("")
        }
        var report = ContentionReport()
        trace.feed(&report)
        lines += report.render(options: options)
        if let path = args.options["save"] {
            do { try recorder.write(to: path) } catch { throw CLIError.data("\(error)") }
            lines.append("")
            lines.append("trace saved to \(path); try: trace-view sequence \(path)")
        } else {
            lines.append("")
            lines.append(
                "(save the trace with --save FILE, then: trace-view sequence|contention|tasks|summary|check|export FILE)")
        }
        Terminal.print(lines.map(options.fit))
    }

    /// A request's lifecycle plus the cycles of other dispatches that ran while it was in flight,
    /// which show that the gate was released.
    static func withOtherCycles(index: TraceIndex, runtime: UInt64, dispatch: UInt64) -> [Int] {
        let own = index.requestLifecycle(runtime: runtime, dispatch: dispatch)
        guard let first = own.first, let last = own.last else { return own }
        var all = Set(own)
        for (key, cycle) in index.cycles where key.runtime == runtime && cycle.enter > first && cycle.enter < last {
            guard let dispatchRecord = index.dispatches[TraceIndex.Key(runtime: runtime, id: cycle.dispatch)] else { continue }
            all.insert(dispatchRecord.event)
            all.insert(cycle.enter)
            if let leave = cycle.leave { all.insert(leave) }
            all.formUnion(cycle.events.filter { index.events[$0].kind == .transduce })
            all.formUnion(dispatchRecord.resumes)
        }
        return all.sorted()
    }

    // MARK: sequence

    static func sequence(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        let progress = Progress()
        let trace = try input.load(progress: progress)
        let events = trace.events.filter { selection.keep($0) }
        try selection.check()
        // Times count from the trace's start, whatever is shown, so views of one trace agree.
        guard let start = trace.start else {
            Terminal.print(["(no events)"])
            return try finish(notes: trace.notes)
        }
        let window = try window(args, start: start)
        // Index the whole runtime selection, so names and links resolve outside the window too.
        let index = TraceIndex(events)
        var request: (runtime: UInt64, dispatch: UInt64)?
        if let id = try args.integer("request") {
            request = (try runtime(of: id, in: index, narrowed: selection.isNarrowed), id)
        }
        let indices =
            (request.map { index.requestLifecycle(runtime: $0.runtime, dispatch: $0.dispatch) }
            ?? Array(events.indices)).filter { window.contains(events[$0].time) }
        var out = OutputStream()
        // Progress while drawing only when the diagram is not going to the same terminal.
        let drawing = isatty(STDOUT_FILENO) == 0 ? progress : nil
        SequenceDiagram(index: index, options: options, origin: start).render(
            indices, progress: { drawing?.update("drew \($0) of \(indices.count) rows") }
        ) { out.line($0) }
        drawing?.done()
        // A request's chart ends with why it took as long as it did.
        if let request, window.isOpen,
            let breakdown = index.latencyBreakdown(runtime: request.runtime, dispatch: request.dispatch)
        {
            out.line("")
            for line in breakdown.render(options: options) { out.line(line) }
        }
        out.flush()
        try finish(notes: trace.notes)
    }

    // MARK: slow

    static func slow(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        let trace = try input.load(progress: Progress())
        let index = TraceIndex(trace.events.filter { selection.keep($0) })
        try selection.check()
        let top = try args.integer("top") ?? 10
        guard top >= 1 && top <= 100_000 else { throw CLIError.usage("--top must be between 1 and 100000") }
        let over = try args.duration("over")
        let event = args.options["event"]
        let awaited = index.latencyBreakdowns().filter { event == nil || $0.label == event }
        let slow = awaited.filter { over == nil || $0.total >= over! }.sorted { $0.total > $1.total }
        let shown = Array(slow.prefix(Int(top)))
        if args.flag("json") {
            Terminal.print(["["] + shown.enumerated().map { "  " + $1.json() + ($0 < shown.count - 1 ? "," : "") } + ["]"])
            return try finish(notes: trace.notes)
        }
        let d = { (n: UInt64) in formatDuration(n, ascii: options.ascii) }
        var lines = [
            options.paint(
                options.fit(
                    "Slowest requests: \(shown.count) of \(awaited.count) awaited" + (event.map { " '\($0)'" } ?? "")
                        + (over.map { ", \(slow.count) took \(d($0)) or more" } ?? "")), .bold)
        ]
        if shown.isEmpty {
            lines.append(awaited.isEmpty ? "  (no awaited request was resumed)" : "  (none took that long)")
        } else {
            var table = TextTable([
                .init("total", minimum: 6, alignRight: true), .init("request", minimum: 10), .init("outcome", minimum: 5),
                .init("biggest parts", minimum: 10),
            ])
            for b in shown { table.append(b.summaryLine(options: options)) }
            lines += table.render(options: options)
            lines.append("")
            lines.append(options.paint("By event", .bold))
            lines += LatencyByEvent(awaited).render(options: options)
            for b in shown.prefix(3) {
                lines.append("")
                lines += b.render(options: options)
            }
        }
        Terminal.print(lines)
        try finish(notes: trace.notes)
    }

    // MARK: check

    /// `check`'s exit status when the trace breaks an invariant.
    static let invariantsBroken: Int32 = 1

    static func check(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var trace = try input.load(progress: Progress())
        trace.events = trace.events.filter { selection.keep($0) }
        try selection.check()
        let complete = !args.flag("incomplete")
        let violations = TraceInvariants.check(trace, complete: complete)
        let lossy = trace.counts.overwritten > 0 || trace.counts.discarded > 0 || trace.counts.lost > 0
        var lines = [
            "\(trace.events.count) events, \(Set(trace.events.map(\.runtimeKey)).count) runtime(s); checked "
                + (complete && !lossy
                    ? "as a whole run"
                    : "as a partial trace (nothing twice, nothing out of order)"
                        + (lossy ? ": the recorder lost events" : ""))
        ]
        for rule in InvariantRule.allCases {
            let broken = violations.filter { $0.rule == rule }.count
            lines.append("  " + pad(rule.rawValue, 28) + (broken == 0 ? "ok" : "\(broken) violation(s)"))
        }
        if !violations.isEmpty {
            lines.append("")
            for v in violations.prefix(50) { lines += v.description.split(separator: "\n").map(String.init) }
            if violations.count > 50 { lines.append("… and \(violations.count - 50) more") }
        }
        Terminal.print(lines.map(options.fit))
        try finish(notes: trace.notes)
        if !violations.isEmpty {
            throw CLIError(message: "the trace breaks \(violations.count) runtime invariant(s)", status: invariantsBroken)
        }
    }

    // MARK: reports

    static func contention(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var report = ContentionReport()
        if let threshold = try args.duration("long-hold") { report.longHoldThreshold = threshold }
        let (notes, _) = try input.forEach(progress: Progress()) { if selection.keep($0) { report.consume($0) } }
        try selection.check()
        Terminal.print(report.render(options: options))
        try finish(notes: notes)
    }

    static func tasks(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        var events: [TraceEvent] = []
        let (notes, counts) = try input.forEach(progress: Progress()) { if selection.keep($0) { events.append($0) } }
        try selection.check()
        let c = counts ?? TraceCounts()
        let lost = c.overwritten.plus(c.discarded).plus(c.lost)
        Terminal.print(
            TaskReport(index: TraceIndex(events), lost: lost, lossesUnknown: input.lossesUnknown).render(options: options))
        try finish(notes: notes)
    }

    static func summary(_ args: Arguments) throws {
        let options = try Terminal.options(args)
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var report = SummaryReport()
        report.slowThreshold = try args.duration("over")
        var selection = try Selection(args)
        let (notes, counts) = try input.forEach(progress: Progress()) { if selection.keep($0) { report.consume($0) } }
        try selection.check()
        report.processHosts = input.hosts
        report.recorder = counts
        report.notes = notes
        Terminal.print(report.render(options: options) + ["", "input: \(input.kind.rawValue)"])
        try finish(notes: notes)
    }

    // MARK: export

    static func export(_ args: Arguments) throws {
        guard let format = args.options["format"] else {
            throw CLIError.usage("export needs --format chrome|mermaid|plantuml|jsonl")
        }
        guard ["chrome", "mermaid", "plantuml", "jsonl"].contains(format) else {
            throw CLIError.usage("unknown format '\(format)' (chrome, mermaid, plantuml or jsonl)")
        }
        let input = try TraceInput(path: try args.trace(), allProcesses: args.flag("all-processes"))
        var selection = try Selection(args)
        if format == "chrome" || format == "jsonl",
            args.options["request"] != nil || args.options["from"] != nil
                || args.options["to"] != nil
        {
            throw CLIError.usage("--request, --from and --to select a diagram: they go with --format mermaid or plantuml")
        }
        let output = try OutputFile(path: args.options["output"])
        var notes: [String] = []
        switch format {
        case "chrome":
            var exporter = ChromeTraceExporter { output.write($0) }
            (notes, _) = try input.forEach(progress: Progress()) { if selection.keep($0) { exporter.consume($0) } }
            exporter.finish()
            try selection.check()
        case "jsonl":
            var buffer: [UInt8] = []
            var written = 0
            let counts: TraceCounts?
            (notes, counts) = try input.forEach(progress: Progress()) { event in
                guard selection.keep(event) else { return }
                JSONLines.line(for: event, into: &buffer)
                written += 1
                if buffer.count > 1 << 20 {
                    output.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            // The losses travel with the events (hosts go first in `JSONLines.encode`; a stream
            // learns them only at its end, so they are not repeated here).
            if let counts { JSONLines.countsLine(counts, events: written, into: &buffer) }
            output.write(buffer)
            try selection.check()
        default:
            let trace = try input.load(progress: Progress())
            notes = trace.notes
            let index = TraceIndex(trace.events.filter { selection.keep($0) })
            try selection.check()
            let window = try window(args, start: trace.start ?? 0)
            var indices = Array(index.events.indices)
            if let request = try args.integer("request") {
                let runtime = try runtime(of: request, in: index, narrowed: selection.isNarrowed)
                indices = index.requestLifecycle(runtime: runtime, dispatch: request)
            }
            indices = indices.filter { window.contains(index.events[$0].time) }
            let lines =
                format == "mermaid"
                ? SequenceExport.mermaid(index: index, indices: indices)
                : SequenceExport.plantUML(index: index, indices: indices)
            let text = lines.joined(separator: "\n") + "\n"
            output.write(Array(text.utf8))
            if format == "mermaid", text.count > SequenceExport.mermaidLimit {
                Terminal.error(
                    "trace-view: warning: the diagram is \(text.count) characters, over Mermaid's default limit of "
                        + "\(SequenceExport.mermaidLimit) (maxTextSize): a default Mermaid shows an error instead; narrow it "
                        + "with --request, --from/--to or --runtime, or raise maxTextSize where it is rendered")
            }
        }
        try output.close()
        try finish(notes: notes)
    }

    // MARK: record

    /// `record`'s exit status when the command ran but its trace holds no `transduce` event.
    static let recordedNothing: Int32 = 69

    static func record(_ args: Arguments) throws {
        guard let command = args.rest.first else { throw CLIError.usage("record needs a command after --") }
        guard args.positionals.isEmpty else { throw CLIError.usage("put the command after --") }
        let stamp = Int(Date().timeIntervalSince1970)
        let output = args.options["output"] ?? "transduce-trace-\(stamp)-\(getpid())"
        let directory = output.hasPrefix("/") ? output : FileManager.default.currentDirectoryPath + "/" + output
        guard let executable = command.contains("/") ? command : Subprocess.which(command),
            access(executable, X_OK) == 0
        else { throw CLIError.usage("cannot run \(command): not an executable file") }
        if let missing = LTTngSession.toolsMissing { throw CLIError.data(missing) }
        // The directory is this run's alone: mkdir is atomic, so of two runs given one --output
        // only the first gets it.
        guard mkdir(directory, 0o755) == 0 else {
            if errno == EEXIST { throw CLIError.usage("\(output) exists already; choose another --output") }
            throw CLIError.data("\(output): cannot create: \(String(cString: strerror(errno)))")
        }
        for stale in RecordSessions.destroyStale() {
            Terminal.error("trace-view: destroyed the LTTng session \(stale), left active by a trace-view that was killed")
        }
        // The tag marks this command's processes (they inherit it), so the trace shows them alone.
        let tag = "\(getpid())-\(stamp)-\(UInt32.random(in: 0...UInt32.max))"
        let name = RecordSessions.name(stamp: stamp)
        let recordFile = directory + "/" + TraceInput.recordFile
        let session: LTTngSession
        do {
            try "tag=\(tag)\ncommand=\(args.rest.joined(separator: " "))\n".write(
                toFile: recordFile, atomically: true, encoding: .utf8)
            session = try LTTngSession(name: name, output: directory, events: ["transduce:*"], contexts: ["vtid", "vpid"])
        } catch {
            throw CLIError.data("\(error)")
        }
        // Destroys the session if trace-view itself is killed (even with SIGKILL).
        let guardian = RecordSessions.guardSession(name)
        defer {
            session.destroy()
            guardian.release()
        }
        // Like system(3): Ctrl-C ends the command, and trace-view stays to stop the session.
        let previousInterrupt = signal(SIGINT, SIG_IGN)
        let previousQuit = signal(SIGQUIT, SIG_IGN)
        defer {
            signal(SIGINT, previousInterrupt)
            signal(SIGQUIT, previousQuit)
        }
        let status: Int32
        do {
            try session.start()
            // TRANSDUCE_LTTNG=required: a recorder that cannot reach LTTng says why on stderr.
            status = try Subprocess.run(
                executable, Array(args.rest.dropFirst()),
                environment: ["TRANSDUCE_RECORD_TAG": tag, LTTngProvider.environmentVariable: "required"]
            ).status
            try session.stop()
        } catch {
            throw CLIError.data("\(error)")
        }
        var events = 0
        do {
            _ = try CTFChild.read(path: directory, recordTag: tag) { _ in events += 1 }
        } catch {
            // An empty LTTng output is not a readable trace: that is the case reported below.
        }
        guard events > 0 else {
            let ended = status == 0 ? "" : " (it exited with status \(status))"
            throw CLIError(
                message: "\(command) recorded no transduce events\(ended). Either it makes no TraceRecorder, or the "
                    + "recorder could not load LTTng-UST (see its error output), or TRANSDUCE_LTTNG=off is set; "
                    + "the trace directory \(output) holds nothing of it",
                status: status == 0 ? recordedNothing : status)
        }
        Terminal.error(
            "trace-view: LTTng trace of \(events) events kept in \(output); view it with: trace-view summary \(output)")
        if status != 0 { throw CLIError(message: "\(command) exited with status \(status)", status: status) }
    }
}

/// The LTTng sessions of `trace-view record`: named `trace-view-PID-STAMP`, so that a session
/// left behind by a killed trace-view is known by its dead PID.
enum RecordSessions {
    static let prefix = "trace-view-"

    static func name(stamp: Int) -> String { "\(prefix)\(getpid())-\(stamp)" }

    /// Destroys the sessions whose trace-view no longer runs; returns their names.
    static func destroyStale() -> [String] {
        guard let lttng = Subprocess.which("lttng"),
            let listing = try? Subprocess.run(lttng, ["list"], output: .capture, timeout: LTTngSession.callTimeout),
            listing.status == 0
        else { return [] }
        var destroyed: [String] = []
        // Lines like "  1) trace-view-4242-1764583200 [active]".
        for line in listing.output.split(separator: "\n") {
            guard let start = line.range(of: prefix) else { continue }
            let name = line[start.lowerBound...].prefix { !$0.isWhitespace }
            let parts = name.dropFirst(prefix.count).split(separator: "-")
            guard parts.count == 2, let pid = Int32(parts[0]), pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            if (try? Subprocess.run(
                lttng, ["destroy", "--no-wait", String(name)], output: .discard, timeout: LTTngSession.callTimeout))?
                .status
                == 0
            {
                destroyed.append(String(name))
            }
        }
        return destroyed
    }

    /// A watcher process that destroys session `name` once trace-view is gone, however it ends
    /// (even SIGKILL). It watches trace-view's pid rather than a pipe: a pipe's end can be held
    /// open by any process that inherited it, and then the watcher would never see the end.
    /// ``Guardian/release()`` stops it when trace-view destroyed the session itself.
    static func guardSession(_ name: String) -> Guardian {
        guard let lttng = Subprocess.which("lttng") else { return Guardian(pid: 0) }
        // `--no-wait`: a session whose trace-view is gone need not wait for its data to be
        // flushed, and once such a destroy waited on an LTTng consumer that never answered.
        let script =
            "trap '' INT QUIT; while kill -0 \"$2\" 2>/dev/null; do sleep 0.2; done; exec \"$0\" destroy --no-wait \"$1\""
        let watcher = try? Subprocess.startWatcher("/bin/sh", ["-c", script, lttng, name, String(getpid())])
        return Guardian(pid: watcher ?? 0)
    }

    struct Guardian {
        let pid: pid_t
        /// Stops the watcher (trace-view has destroyed the session) and reaps it.
        func release() {
            guard pid > 0 else { return }
            kill(pid, SIGTERM)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }
}

/// Standard output, or a file written atomically on `close()`.
final class OutputFile {
    private let path: String?
    private let temporary: String?
    private let file: UnsafeMutablePointer<FILE>?
    private var failed = false

    init(path: String?) throws {
        self.path = path
        guard let path else {
            temporary = nil
            file = nil
            return
        }
        let temporary = path + ".tmp-\(getpid())"
        guard let file = fopen(temporary, "wb") else {
            throw CLIError.data("\(path): cannot create: \(String(cString: strerror(errno)))")
        }
        self.temporary = temporary
        self.file = file
    }

    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if let file {
            if fwrite(bytes, 1, bytes.count, file) != bytes.count { failed = true }
        } else {
            Terminal.write(String(decoding: bytes, as: UTF8.self))
        }
    }

    private var closed = false

    /// A file never closed (the export failed) leaves nothing behind.
    deinit {
        if !closed, let file, let temporary {
            fclose(file)
            unlink(temporary)
        }
    }

    func close() throws {
        guard let file, let temporary, let path else { return }
        closed = true
        let closed = fclose(file) == 0
        guard closed && !failed && rename(temporary, path) == 0 else {
            unlink(temporary)
            throw CLIError.data("\(path): write failed")
        }
    }
}
