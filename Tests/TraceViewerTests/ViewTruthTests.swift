import Foundation
import Testing
import TraceTooling
import Transduce
import TransduceTestSupport

@testable import TransduceTrace

/// A transducer whose labels and task names hold what diagram languages reserve (`#`, `;`,
/// `:`), with more task instances than ten participants.
enum Reserved: Transducer {
    struct State: Sendable {}
    enum Event: Sendable {
        case start(Int)
        case done(Int)
    }
    typealias Response = Int

    static var initialState: State { State() }

    static func transduce(_ state: inout State, event: Event) -> Effect {
        switch event {
        case .start(let i):
            return .task(id: TaskIdentifier("#job\(i)")) { _, _ -> TaskReturn<Event> in .response(.done(i)) }
        case .done: return .none
        }
    }

    static func response(state: State, event: Event) -> Int {
        if case .done(let i) = event { return i }
        return 0
    }

    static func traceLabel(of event: Event) -> EventLabel {
        switch event {
        case .start: EventLabel("#start;a:b")
        case .done: "done"
        }
    }
}

/// Output formats, not concurrency: skipped under ThreadSanitizer, where its dozens of
/// trace-view children (themselves under TSan) blocked the test pool's threads long enough to
/// starve the runtime's own tests.
@Suite(.serialized, .disabled(if: underThreadSanitizer)) struct ViewTruthTests {
    let demo = fixtures + "/demo.jsonl"

    /// Every command, at every width asked for, draws no line wider than it.
    @Test func everyCommandHonoursTheWidth() async throws {
        let commands = [
            ["sequence"], ["sequence", "--request", "11"], ["sequence", "--ascii"], ["tasks"], ["contention"], ["summary"],
            ["check"], ["slow"],
        ]
        for width in [40, 60, 80, 200] {
            for command in commands {
                let arguments = command == ["check"] ? command + [demo] : command + ["--width", String(width), demo]
                let (status, out, err) = try await traceView(arguments, columns: width)
                #expect(status == 0, "\(command) at \(width): \(err)")
                let lines = out.split(separator: "\n")
                #expect(lines.count > 3)
                if let wide = lines.first(where: { $0.count > width }) {
                    Issue.record("\(command) at \(width): a line of \(wide.count): \(wide)")
                }
            }
            // COLUMNS alone, and the demo itself.
            let (_, out, _) = try await traceView(["tasks", demo], columns: width)
            #expect(out.split(separator: "\n").allSatisfy { $0.count <= width })
            let (status, demoOut, err) = try await traceView(["demo", "--width", String(width)])
            #expect(status == 0, "\(err)")
            #expect(demoOut.split(separator: "\n").allSatisfy { $0.count <= width }, "demo at \(width)")
        }
    }

    /// A long task name is cut with `…` inside its column, never run into the next.
    @Test func longNamesAreCutInTheirColumn() throws {
        let events = [
            TraceEvent.make(.runtimeStart, at: 0),
            TraceEvent.make(.dispatch, at: 1) {
                $0.dispatch = 1; $0.label = "go"
            },
            TraceEvent.make(.cycleEnter, at: 2) {
                $0.cycle = 1; $0.dispatch = 1
            },
            TraceEvent.make(.taskSpawn, at: 3) {
                $0.task = 42; $0.cycle = 1; $0.label = "loadNotificationsForTheWholeTeam"
            },
            TraceEvent.make(.cycleLeave, at: 4) {
                $0.cycle = 1; $0.code = 1
            },
            TraceEvent.make(.taskSettle, at: 5) { $0.task = 42 },
        ]
        let report = TaskReport(index: TraceIndex(events)).render(options: RenderOptions(width: 60))
        let row = try #require(report.first { $0.contains("loadNot") })
        #expect(row.count <= 60)
        #expect(row.contains("…  "), "the cut name ends with … and the column gap: \(row)")
        #expect(!row.contains("#42"), "the id is cut with the name, not run into the runtime column")
    }

    @Test func idsSayWhatTheyAre() async throws {
        let (_, out, _) = try await traceView(["tasks", demo], columns: 120)
        #expect(out.contains("replaced by task #3"))
        #expect(out.contains("joined by dispatch #8"))
        #expect(!out.contains("by #"))
    }

    /// Labels with `#`, `;` and `:`, and 12 task instances: both exports declare participants in
    /// lane order and escape what each language reserves; PlantUML itself renders the labels.
    @Test func mermaidAndPlantUMLKeepOrderAndEscape() async throws {
        let recording = TraceRecording()
        let host = BaseRuntime(of: Reserved.self, instrument: recording.instrument)
        for i in 1...12 { _ = try await host.input.request(.start(i)) }
        let dir = TemporaryDirectory()
        let path = dir.file("reserved.tdtrace")
        try TraceFileWriter.write(recording.trace(), to: path)

        let (status, mermaid, err) = try await traceView(["export", "--format", "mermaid", path])
        #expect(status == 0, "\(err)")
        let lines = mermaid.split(separator: "\n").map(String.init)
        let declared = lines.filter { $0.hasPrefix("    participant ") }.map { $0.split(separator: " ")[1] }
        #expect(declared.map(String.init) == (0..<16).map { "P\($0)" }, "participants in lane order: \(declared)")
        #expect(lines.contains("    participant P4 as #35;job1#35;1"))
        for line in lines.dropFirst() {
            // Outside entity codes no `#` or `;` is left, and `:` only separates a message.
            let plain = line.replacingOccurrences(of: #"#[0-9]+;"#, with: "", options: .regularExpression)
            #expect(!plain.contains("#") && !plain.contains(";"), "unescaped in \(line)")
            #expect(plain.filter { $0 == ":" }.count <= 1, "stray ':' in \(line)")
        }
        #expect(mermaid.contains("dispatch #35;1 request(#35;start#59;a#58;b)"))

        let (_, plantUML, _) = try await traceView(["export", "--format", "plantuml", path])
        let names = plantUML.split(separator: "\n").filter { $0.hasPrefix("participant ") }.map { $0.split(separator: " ").last! }
        #expect(names.map(String.init) == (0..<16).map { "P\($0)" })
        guard let plantuml = Subprocess.which("plantuml") else {
            // The package comes with scripts/bootstrap.sh; CI always has it.
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "plantuml is not installed")
            return
        }
        let source = dir.file("reserved.puml")
        try plantUML.write(toFile: source, atomically: true, encoding: .utf8)
        let (rendered, output) = try await run(plantuml, ["-tsvg", "-o", dir.path, source])
        #expect(rendered == 0, "\(output)")
        let svg = try String(contentsOfFile: dir.file("reserved.svg"), encoding: .utf8)
        let texts = Self.svgTexts(svg)
        // Labels read as written: no list numbers, nothing lost after `#`.
        #expect(texts.contains { $0.text == "dispatch #1 request(#start;a:b)" }, "\(texts.prefix(40))")
        #expect(!texts.contains { $0.text.hasSuffix("1.") || $0.text == "1." })
        // Participants left to right in lane order.
        let titles = ["caller", "gate", "transduce", "tasks"] + (1...12).map { "#job\($0)#\($0)" }
        let xs = titles.map { title in texts.first { $0.text == title }?.x }
        #expect(
            xs.allSatisfy { $0 != nil },
            "participant titles in the SVG: \(titles.filter { t in !texts.contains { $0.text == t } })")
        let positions = xs.compactMap { $0 }
        #expect(positions == positions.sorted(), "participants out of lane order: \(positions)")
    }

    /// A `"` in a participant's name reaches PlantUML's picture as `"` (it was `'`), and a
    /// diagram taller than a PlantUML PNG can be is said to be, with what to do.
    @Test func plantUMLKeepsQuotesAndWarnsOfItsPNGLimit() async throws {
        let dir = TemporaryDirectory()
        var spawn = TraceEvent(kind: .taskSpawn, time: 2_000, runtime: 1)
        spawn.task = 1
        spawn.label = #"say "hi""#
        spawn.cycle = 1
        var settle = TraceEvent(kind: .taskSettle, time: 3_000, runtime: 1)
        settle.task = 1
        let path = dir.file("quoted.tdtrace")
        try TraceFileWriter.write(Trace(events: [spawn, settle]), to: path)
        let (status, plantUML, err) = try await traceView(["export", "--format", "plantuml", path])
        #expect(status == 0 && err.isEmpty, "\(err)")
        let plantuml = try #require(Subprocess.which("plantuml"), "plantuml (scripts/bootstrap.sh)")
        let source = dir.file("quoted.puml")
        try plantUML.write(toFile: source, atomically: true, encoding: .utf8)
        let (rendered, output) = try await run(plantuml, ["-tsvg", "-o", dir.path, source])
        #expect(rendered == 0, "\(output)")
        let svg = try String(contentsOfFile: dir.file("quoted.svg"), encoding: .utf8)
        #expect(
            Self.svgTexts(svg).contains { $0.text == "say &quot;hi&quot;#1" || $0.text == ##"say "hi"#1"## },
            "\(Self.svgTexts(svg))")
        // The two-runtime trace whole is some 240 messages: past 4,096 px.
        let whole = try await traceView(["export", "--format", "plantuml", fixtures + "/two-runtimes.jsonl"])
        #expect(whole.status == 0 && whole.err.contains("PlantUML cuts a PNG at 4096 px"), "\(whole.err)")
        let one = try await traceView(["export", "--format", "plantuml", "--request", "1", demo])
        #expect(one.status == 0 && one.err.isEmpty, "\(one.err)")
    }

    static func svgTexts(_ svg: String) -> [(x: Double, text: String)] {
        let pattern = try! NSRegularExpression(pattern: #"<text[^>]*\bx="([0-9.]+)"[^>]*>([^<]*)</text>"#)
        let range = NSRange(svg.startIndex..., in: svg)
        return pattern.matches(in: svg, range: range).map { m in
            let x = Double(svg[Range(m.range(at: 1), in: svg)!]) ?? 0
            let text = String(svg[Range(m.range(at: 2), in: svg)!])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#35;", with: "#")
            return (x, text)
        }
    }

    @Test func aLongMermaidDiagramSaysSo() async throws {
        // The oracle's traces are small; repeat the demo's events under many runtimes instead.
        let one = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: demo)))).readAll().events
        var events: [TraceEvent] = []
        for r in 1...12 {
            events += one.map {
                var e = $0; e.runtime = UInt64(r); return e
            }
        }
        let dir = TemporaryDirectory()
        let path = dir.file("big.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let (status, out, err) = try await traceView(["export", "--format", "mermaid", path])
        #expect(status == 0)
        #expect(out.count > SequenceExport.mermaidLimit)
        #expect(err.contains("over Mermaid's default limit of 50000") && err.contains("--request"))
        let (_, small, quiet) = try await traceView(["export", "--format", "mermaid", "--request", "1", "--runtime", "1", path])
        #expect(small.count < SequenceExport.mermaidLimit && quiet.isEmpty)
    }

    @Test func aSelectionThatMatchesNothingExits66() async throws {
        for arguments in [
            ["sequence", "--request", "99999"], ["sequence", "--runtime", "9"], ["tasks", "--pid", "77"],
            ["contention", "--runtime", "9"], ["summary", "--runtime", "9"], ["export", "--format", "chrome", "--runtime", "9"],
            ["export", "--format", "mermaid", "--request", "99999"], ["check", "--runtime", "9"],
            ["slow", "--event", "nosuchevent"], ["slow", "--runtime", "9"],
        ] {
            let (status, out, err) = try await traceView(arguments + [demo])
            #expect(status == 66, "\(arguments): \(status) \(err)")
            #expect(err.hasPrefix("trace-view: no ") && err.split(separator: "\n").count == 1, "\(arguments): \(err)")
            #expect(!out.contains("(no events)"))
        }
        let (_, _, err) = try await traceView(["sequence", "--runtime", "9", demo])
        #expect(err.contains("it has runtime 1"))
        let (_, _, unknownEvent) = try await traceView(["slow", "--event", "nosuchevent", demo])
        #expect(unknownEvent.contains("it has") && unknownEvent.contains("load"), "\(unknownEvent)")
    }

    @Test func windowsTakeUnitsAndKeepTheTraceClock() async throws {
        let (_, nanos, _) = try await traceView(["sequence", "--from", "1000000", "--to", "2500000", demo])
        let (_, units, _) = try await traceView(["sequence", "--from", "1ms", "--to", "2.5ms", demo])
        let (_, micros, _) = try await traceView(["sequence", "--from", "1000us", "--to", "2500µs", demo])
        #expect(nanos == units && units == micros)
        // The time column counts from the trace's start, not the window's.
        let first = try #require(units.split(separator: "\n").dropFirst().first { $0.prefix(9).contains(where: \.isNumber) })
        let ms = try #require(Double(first.prefix(9).trimmingCharacters(in: .whitespaces)))
        #expect(ms >= 1.0 && ms <= 2.5)
        for bad in ["5 ms", "-3ms", "1e3ms", "5min", "ms"] {
            let (status, _, err) = try await traceView(["sequence", "--from", bad, demo])
            #expect(status == 64 && err.contains("needs a duration"), "\(bad)")
        }
        #expect(parseDuration("250us") == 250_000 && parseDuration("1.5s") == 1_500_000_000 && parseDuration("800") == 800)
        #expect(parseDuration("99999999999s") == nil && parseDuration("nan ms") == nil)
        let (status, out, _) = try await traceView(["contention", "--long-hold", "1ms", demo])
        #expect(status == 0 && out.contains("held the gate for 1.00ms or more"))
    }

    @Test func checkRunsTheInvariantsWithTraceTimes() async throws {
        var (status, out, err) = try await traceView(["check", demo])
        #expect(status == 0, "\(err)")
        #expect(out.contains("checked as a whole run") && out.contains("resumedExactlyOnce          ok"))
        // A resume written twice: the check names it, times from the trace's start.
        let text = try String(contentsOfFile: demo, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let resume = try #require(lines.first { $0.contains(#""kind":"requestResume""#) })
        let index = try #require(lines.firstIndex(of: resume))
        var doubled = lines
        doubled.insert(resume, at: index + 1)
        let dir = TemporaryDirectory()
        let path = dir.file("doubled.jsonl")
        try doubled.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        (status, out, err) = try await traceView(["check", path])
        #expect(status == 1)
        #expect(out.contains("resumedExactlyOnce          1 violation"))
        #expect(out.contains("was resumed 2 times"))
        #expect(out.contains("at 0.") && !out.contains("at 1000."), "times from the trace's start: \(out)")
        #expect(err.contains("breaks 1 runtime invariant"))
        (status, out, _) = try await traceView(["check", "--incomplete", demo])
        #expect(status == 0 && out.contains("as an incomplete trace"))
    }

    /// Long work shows progress on a terminal's standard error (through `script`, which gives
    /// the command a terminal), and never when standard error is not one.
    @Test func progressOnATerminalOnly() async throws {
        var events: [TraceEvent] = []
        for i in 0..<70_000 {
            events.append(
                TraceEvent.make(.dispatch, at: UInt64(1_000 + i)) {
                    $0.dispatch = UInt64(i + 1); $0.label = "x"
                })
        }
        let dir = TemporaryDirectory()
        let path = dir.file("many.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let tool = try #require(builtProduct("trace-view"))
        let (_, plain, err) = try await traceView(["summary", path], environment: ["TRANSDUCE_PROGRESS_AFTER_MS": "0"])
        #expect(!err.contains("read 65536 events") && plain.contains("70000"), "\(err)")
        guard let script = Subprocess.which("script") else { return }
        let (status, output) = try await run(
            script, ["-qec", "'\(tool)' summary '\(path)' > /dev/null", "/dev/null"],
            environment: ["TRANSDUCE_PROGRESS_AFTER_MS": "0"])
        #expect(status == 0, "\(output.suffix(300))")
        #expect(output.contains("trace-view: read 65536 events"), "\(output.suffix(300))")
        #expect(output.contains("\u{1B}[K"), "the progress line is erased")
    }

    /// In-order matching marks the expected event that found no match and, separately, the
    /// actual event the search stopped at.
    @Test func inOrderShapeFailureMarksBothSides() throws {
        let trace = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: demo)))).readAll()
        do {
            try trace.expectShape(
                [.dispatch(.request, "load"), .join("load")], in: .request("load"), exhaustive: false)
            Issue.record("expected a mismatch")
        } catch let error as TraceShapeError {
            let rows = error.message.split(separator: "\n").filter { $0.hasPrefix("> ") || $0.contains("  > ") }
            let expectedRow = try #require(rows.first { $0.hasPrefix("> ") })
            #expect(expectedRow.contains("join(load)"), "\(error.message)")
            let actualRow = try #require(rows.first { $0.dropFirst(2).contains("> ") })
            #expect(actualRow.contains("   2 "), "the search stopped after the first match: \(error.message)")
        }
    }
}

extension TraceEvent {
    static func make(_ kind: Kind, at time: UInt64, _ set: (inout TraceEvent) -> Void = { _ in }) -> TraceEvent {
        var e = TraceEvent(kind: kind, time: time, thread: 1, runtime: 1)
        set(&e)
        return e
    }
}
