import Foundation
import TraceInputs
import TransduceTrace

/// The formats of `trace-view export`. Each states the options it takes and how it writes, so
/// the command only checks a command line against its format and calls ``write(_:_:_:sending:to:)``.
enum ExportFormat: String, CaseIterable {
    case perfetto, chrome, otlp, mermaid, plantuml, svg, jsonl, csv

    /// The options only some formats take: each with the formats that take it, said in the error
    /// a misplaced one gets.
    static let ownOptions: [(options: [String], formats: [ExportFormat], error: String)] = [
        (["table"], [.csv], "--table goes with --format csv"),
        (
            ["request", "from", "to"], [.mermaid, .plantuml, .svg],
            "--request, --from and --to select a diagram: they go with --format mermaid, plantuml or svg"
        ),
        (["otlp-endpoint", "send"], [.otlp], "--otlp-endpoint and --send go with --format otlp"),
        (["all-runtimes"], [.chrome, .perfetto], "--all-runtimes goes with --format chrome or perfetto"),
    ]

    /// The events the requests' breakdowns (the CSV requests table, OTLP) keep at most in a pass
    /// (``ResumeBreakdowns``): `TRACE_VIEW_MAX_KEPT`, a test hook (a small bound gives a small
    /// trace the passes of requests that waited too long), else the default.
    static let maxKept = bound("TRACE_VIEW_MAX_KEPT", else: ResumeBreakdowns.defaultMaxKept)

    /// The requests a pass of those breakdowns names for later passes at most, past which it
    /// takes another round (``ResumeBreakdowns/resumesCovered``): `TRACE_VIEW_MAX_MISSED`, a test
    /// hook (a small number gives a small trace its rounds), else the default.
    static let maxMissed = bound("TRACE_VIEW_MAX_MISSED", else: ResumeBreakdowns.defaultMaxMissed)

    /// The runtimes open at once the breakdowns' passes follow at most, past which they go group
    /// by group (``BreakdownPasses``): `TRACE_VIEW_MAX_RUNTIMES`, a test hook, else the default.
    static let maxRuntimes = bound("TRACE_VIEW_MAX_RUNTIMES", else: BreakdownPasses.defaultMaxRuntimes)

    /// A positive bound from the environment variable `name` (a test hook), else `fallback`.
    private static func bound(_ name: String, else fallback: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.map { max(1, $0) } ?? fallback
    }

    /// Whether it draws a sequence diagram.
    var isDiagram: Bool { self == .mermaid || self == .plantuml || self == .svg }

    /// The format `--format` names; a usage error when it is missing or unknown.
    static func named(_ name: String?) throws -> ExportFormat {
        let names = allCases.map(\.rawValue)
        guard let name else { throw CLIError.usage("export needs --format " + names.joined(separator: "|")) }
        guard let format = ExportFormat(rawValue: name) else {
            throw CLIError.usage(
                "unknown format '\(name)' (\(names.dropLast().joined(separator: ", ")) or \(names.last!))")
        }
        return format
    }

    /// Refuses what `args` gives that this format does not take, and what it lacks; returns the
    /// sending settings of an OTLP export that sends (`--otlp-endpoint`, `--send`), else `nil`.
    func check(_ args: Arguments) throws -> OTLPSettings? {
        for own in Self.ownOptions where !own.formats.contains(self) {
            if own.options.contains(where: { args.options[$0] != nil || args.flag($0) }) { throw CLIError.usage(own.error) }
        }
        if self == .perfetto, args.options["output"] == nil, Terminal.outputIsTerminal {
            throw CLIError.usage("--format perfetto writes binary: give --output FILE, or redirect standard output")
        }
        if self == .csv, args.options["table"].map(ExportTables.names.contains) != true {
            throw CLIError.usage("--format csv needs --table " + ExportTables.names.joined(separator: "|"))
        }
        guard args.options["otlp-endpoint"] != nil || args.flag("send") else {
            // The sending options without sending.
            let given = (OTLPSettings.flags + ["resume-at"]).filter { args.options[$0] != nil }
            if let flag = given.first ?? (args.flag("allow-partial") ? "allow-partial" : nil) {
                throw CLIError.usage("--\(flag) goes with --otlp-endpoint or --send")
            }
            return nil
        }
        guard args.options["output"] == nil else {
            throw CLIError.usage("--otlp-endpoint and --send send the spans: they do not go with --output")
        }
        return try OTLPSettings.resolve(options: args.options, environment: ProcessInfo.processInfo.environment)
    }

    /// How the format reads its input: the requests table and OTLP in passes (a pass more for
    /// requests that waited very long), the others once.
    func access(_ args: Arguments) -> TraceSource.Access {
        switch self {
        case .otlp: .passes
        case .csv: args.options["table"] == "requests" ? .passes : .once
        default: .once
        }
    }

    /// Writes the events `source` selects to `output` (or, for an OTLP export with `sending`
    /// settings, to the collector).
    func write(_ source: TraceSource, _ args: Arguments, sending: OTLPSettings?, to output: OutputFile) throws {
        switch self {
        case .csv:
            try ExportTables.write(args.options["table"]!, source: source, output: output)
        case .chrome:
            let exporter = ChromeTraceExporter(allRuntimes: args.flag("all-runtimes")) { output.write($0) }
            try Self.stream(source, into: exporter)
        case .perfetto:
            let exporter = PerfettoTraceExporter(allRuntimes: args.flag("all-runtimes")) { output.write($0) }
            try Self.stream(source, into: exporter)
        case .otlp:
            let resumeAt = try args.integer("resume-at").map { Int(clamping: $0) } ?? 0
            try OTLPExport.run(source: source, args: args, settings: sending, from: resumeAt, output: output)
        case .jsonl: try Self.jsonLines(source, to: output)
        case .mermaid, .plantuml, .svg: try diagram(source, args, to: output)
        }
    }

    /// Streams the selected events of `source` into `exporter` and finishes it.
    private static func stream(_ source: TraceSource, into exporter: some StreamingTimelineExport) throws {
        var exporter = exporter
        try source.pass { exporter.consume($0) }
        exporter.finish(hosts: source.hosts)
    }

    /// One event a line, in 1 MiB writes; the hosts and losses, which a stream learns only at its
    /// end, follow the events.
    private static func jsonLines(_ source: TraceSource, to output: OutputFile) throws {
        var buffer: [UInt8] = []
        var written = 0
        var cut = 0
        try source.pass { event in
            if JSONLines.line(for: event, into: &buffer) { cut += 1 }
            written += 1
            if buffer.count > 1 << 20 {
                output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        JSONLines.processLines(source.hosts, into: &buffer)
        if let counts = source.counts { JSONLines.countsLine(counts, events: written, into: &buffer) }
        output.write(buffer)
        if cut > 0 {
            Terminal.error(
                "trace-view: warning: the texts of \(cut) event\(cut == 1 ? "" : "s") were cut to "
                    + "\(JSONLines.cutTextBytes >> 10) KiB (ending with …): whole, their lines were longer than a JSON "
                    + "Lines reader reads (\(JSONLines.maxLine >> 20) MiB)")
        }
    }

    /// The sequence diagram of the selection (narrowed by --request and --from/--to), a line at
    /// a time in 64 KiB writes, with a warning where its renderer would cut or refuse it.
    private func diagram(_ source: TraceSource, _ args: Arguments, to output: OutputFile) throws {
        let (trace, start) = try source.hold()
        let index = TraceIndex(trace.events)
        let window = try Window(args, start: start ?? 0)
        var indices = Array(index.events.indices)
        if let request = try args.integer("request") {
            let runtime = try source.selection.runtime(holding: request, in: index)
            indices = index.requestLifecycle(runtime: runtime, dispatch: request)
        }
        indices = indices.filter { window.contains(index.events[$0].time) }
        var buffer: [UInt8] = []
        var characters = 0
        var messages = 0
        let emit = { (line: String) in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            characters += line.count + 1
            if line.contains(" -> ") || line.hasPrefix("note right") || line.hasPrefix("== ") { messages += 1 }
            if buffer.count >= 1 << 16 {
                output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        switch self {
        case .mermaid: SequenceExport.mermaid(index: index, indices: indices, emit)
        case .svg: SequenceExport.svg(index: index, indices: indices, emit)
        default: SequenceExport.plantUML(index: index, indices: indices, emit)
        }
        output.write(buffer)
        let height = SequenceExport.plantUMLHeight(messages: messages)
        if self == .plantuml, height > SequenceExport.plantUMLPixelLimit {
            Terminal.error(
                "trace-view: warning: the diagram's \(messages) messages are about \(height) px tall; PlantUML cuts a PNG at "
                    + "\(SequenceExport.plantUMLPixelLimit) px without a word: render it as SVG (plantuml -tsvg), raise "
                    + "PLANTUML_LIMIT_SIZE, or narrow it with --request, --from/--to or --runtime")
        }
        if self == .mermaid, characters > SequenceExport.mermaidLimit {
            Terminal.error(
                "trace-view: warning: the diagram is \(characters) characters, over Mermaid's default limit of "
                    + "\(SequenceExport.mermaidLimit) (maxTextSize): a default Mermaid shows an error instead; narrow it "
                    + "with --request, --from/--to or --runtime, or raise maxTextSize where it is rendered")
        }
    }
}
