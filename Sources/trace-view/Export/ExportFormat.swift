import Foundation
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

    /// Writes the events of `input` that `selection` keeps to `output` (or, for an OTLP export
    /// with `sending` settings, to the collector); returns the input's notes.
    func write(
        _ input: TraceInput, _ selection: inout Selection, _ args: Arguments, sending: OTLPSettings?, to output: OutputFile
    ) throws -> [String] {
        switch self {
        case .csv:
            let notes = try ExportTables.write(
                args.options["table"]!, input: input, selection: &selection, args: args, output: output)
            try selection.check()
            return notes
        case .chrome:
            let exporter = ChromeTraceExporter(allRuntimes: args.flag("all-runtimes")) { output.write($0) }
            return try Self.stream(input, &selection, into: exporter)
        case .perfetto:
            let exporter = PerfettoTraceExporter(allRuntimes: args.flag("all-runtimes")) { output.write($0) }
            return try Self.stream(input, &selection, into: exporter)
        case .otlp:
            let resumeAt = try args.integer("resume-at").map { Int(clamping: $0) } ?? 0
            return try OTLPExport.run(
                input: input, selection: &selection, args: args, settings: sending, from: resumeAt, output: output)
        case .jsonl: return try Self.jsonLines(input, &selection, to: output)
        case .mermaid, .plantuml, .svg: return try diagram(input, &selection, args, to: output)
        }
    }

    /// Streams the selected events of `input` into `exporter` and finishes it.
    private static func stream(
        _ input: TraceInput, _ selection: inout Selection, into exporter: some StreamingTimelineExport
    ) throws -> [String] {
        var exporter = exporter
        let (notes, _) = try input.forEach(progress: Progress()) { if selection.keep($0) { exporter.consume($0) } }
        exporter.finish(hosts: input.hosts)
        try selection.check()
        return notes
    }

    /// One event a line, in 1 MiB writes; the hosts and losses, which a stream learns only at its
    /// end, follow the events.
    private static func jsonLines(_ input: TraceInput, _ selection: inout Selection, to output: OutputFile) throws -> [String] {
        var buffer: [UInt8] = []
        var written = 0
        var cut = 0
        let (notes, counts) = try input.forEach(progress: Progress()) { event in
            guard selection.keep(event) else { return }
            if JSONLines.line(for: event, into: &buffer) { cut += 1 }
            written += 1
            if buffer.count > 1 << 20 {
                output.write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        JSONLines.processLines(input.hosts, into: &buffer)
        if let counts { JSONLines.countsLine(counts, events: written, into: &buffer) }
        output.write(buffer)
        if cut > 0 {
            Terminal.error(
                "trace-view: warning: the texts of \(cut) event\(cut == 1 ? "" : "s") were cut to "
                    + "\(JSONLines.cutTextBytes >> 10) KiB (ending with …): whole, their lines were longer than a JSON "
                    + "Lines reader reads (\(JSONLines.maxLine >> 20) MiB)")
        }
        try selection.check()
        return notes
    }

    /// The sequence diagram of the selection (narrowed by --request and --from/--to), a line at
    /// a time in 64 KiB writes, with a warning where its renderer would cut or refuse it.
    private func diagram(
        _ input: TraceInput, _ selection: inout Selection, _ args: Arguments, to output: OutputFile
    ) throws -> [String] {
        let (trace, start) = try input.load(progress: Progress()) { selection.keep($0) }
        let index = TraceIndex(trace.events)
        try selection.check()
        let window = try Window(args, start: start ?? 0)
        var indices = Array(index.events.indices)
        if let request = try args.integer("request") {
            let runtime = try selection.runtime(holding: request, in: index)
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
        return trace.notes
    }
}
