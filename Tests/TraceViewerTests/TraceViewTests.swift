import Foundation
import Testing
import TraceTooling
import TransduceTestSupport

@testable import TransduceTrace

@Suite struct TraceViewTests {
    let demo = fixtures + "/demo.jsonl"

    @Test(arguments: [
        ("sequence-request.txt", ["sequence", "--request", "1"]),
        // Whole lifecycles of a post (through the task it started, to its cancellation), a send,
        // and a uniqueRequest (with the cancellation it caused).
        ("request-post.txt", ["sequence", "--request", "10", "--width", "120"]),
        ("request-send.txt", ["sequence", "--request", "2", "--width", "120"]),
        ("request-unique.txt", ["sequence", "--request", "11", "--width", "120"]),
        ("slow-80.txt", ["slow", "--width", "80"]),
        ("slow-160.txt", ["slow", "--width", "160"]),
        ("sequence-ascii.txt", ["sequence", "--ascii", "--request", "4", "--width", "80"]),
        ("sequence-window.txt", ["sequence", "--from", "1ms", "--to", "2.5ms"]),
        ("contention.txt", ["contention"]),
        ("tasks.txt", ["tasks"]),
        ("summary.txt", ["summary"]),
        ("mermaid.txt", ["export", "--format", "mermaid", "--request", "1"]),
        ("plantuml.txt", ["export", "--format", "plantuml", "--request", "1"]),
    ])
    func goldenOutputs(_ golden: String, _ arguments: [String]) async throws {
        let (status, out, err) = try await traceView(arguments + [demo])
        #expect(status == 0, "\(err)")
        #expect(err.isEmpty)
        try expectGolden(out, golden)
    }

    /// `--version` prints the package's one version constant and the trace format's version.
    @Test func versionIsThePackagesConstant() async throws {
        let (status, out, err) = try await traceView(["--version"])
        #expect(status == 0, "\(err)")
        #expect(out == "trace-view \(PackageVersion.current) (trace format \(TraceFileFormat.version))\n")
    }

    /// In a pipe with no width asked for (no terminal, no `COLUMNS`, no `--width`) nothing is
    /// cut, so `tasks | grep` and `slow | grep` find whole cells; a width given still cuts.
    @Test func pipedOutputIsNeverCut() async throws {
        var whole: [String: String] = [:]
        for command in [["tasks"], ["slow"], ["summary"], ["sequence"], ["sequence", "--request", "11"]] {
            let (status, out, err) = try await traceView(command + [demo], columns: nil)
            #expect(status == 0, "\(err)")
            whole[command.joined(separator: " ")] = out
        }
        // The tables as at the widest width asked for; the diagrams with no cut label.
        for command in ["tasks", "slow", "summary"] {
            #expect(whole[command] == (try await traceView([command, "--width", "1000", demo])).out, "\(command)")
        }
        for command in ["sequence", "sequence --request 11"] {
            let cut = whole[command]!.split(separator: "\n").first { $0.hasSuffix("…") || $0.contains("… ") }
            #expect(cut == nil, "\(command) cut a label: \(cut ?? "")")
        }
        let tasks = whole["tasks"]!.split(separator: "\n")
        #expect(tasks.contains { $0.contains("refresh #5") && $0.contains("cancelled (uniqueRequest)") })
        #expect(tasks.contains { $0.contains("catalogue #4") && $0.contains("joined by dispatch #8") })
        let slow = whole["slow"]!.split(separator: "\n")
        #expect(
            slow.contains { $0.contains("uniqueRequest(refresh) dispatch #11") && $0.contains("cycle #11 refresh 106µs (35.6%)") }
        )
        #expect(slow.contains { $0.contains("98% waiting behind syncPrices (async action)") })
        #expect(whole["sequence --request 11"]!.contains("dispatch #12 taskResponse(loaded)"))
        let (_, demoOut, _) = try await traceView(["demo"], columns: nil)
        #expect(
            demoOut.contains(
                "(save the trace with --save FILE, then: trace-view tui|report|slow|sequence|contention|tasks|summary|check|export FILE)"
            ))
        // The same at a width: cut, with the mark.
        let (_, narrow, _) = try await traceView(["slow", demo], columns: 80)
        #expect(narrow.contains("…") && !narrow.contains("uniqueRequest(refresh) dispatch #11"))
        let (_, given, _) = try await traceView(["tasks", "--width", "60", demo], columns: nil)
        #expect(given.split(separator: "\n").allSatisfy { $0.count <= 60 })
    }

    /// A recorded trace of two runtimes of one process (`TracedExample --repeat 2`), whose
    /// dispatch ids, cycle ids and labels repeat: every row says whose runtime it is.
    @Test(arguments: [
        ("two-sequence.txt", ["sequence", "--width", "120"]),
        ("two-slow.txt", ["slow", "--width", "120"]),
        ("two-tasks.txt", ["tasks", "--width", "120"]),
        ("two-mermaid.txt", ["export", "--format", "mermaid"]),
        ("two-plantuml.txt", ["export", "--format", "plantuml"]),
        ("two-contention.txt", ["contention", "--width", "120"]),
        ("two-contention-pooled.txt", ["contention", "--pooled", "--width", "120"]),
    ])
    func twoRuntimeGoldens(_ golden: String, _ arguments: [String]) async throws {
        let (status, out, err) = try await traceView(arguments + [fixtures + "/two-runtimes.jsonl"])
        // (The whole trace is too tall for a PlantUML PNG, which is said.)
        #expect(status == 0 && (err.isEmpty || golden == "two-plantuml.txt"), "\(err)")
        try expectGolden(out, golden)
        let lines = out.split(separator: "\n").map(String.init)
        switch arguments[0] {
        case "sequence":
            // Every timed row names its runtime and process.
            let rows = lines.filter { $0.wholeMatch(of: /\s+\d+\.\d{3}  .*/) != nil }
            #expect(rows.count > 200 && rows.allSatisfy { $0.contains(/[12] \(pid \d+\)/) })
        case "contention":
            // A section per runtime, each naming its own; or the total over both, said so.
            let headings = lines.filter { $0.hasPrefix("== ") }
            if arguments.contains("--pooled") {
                #expect(headings == ["== all 2 runtimes together (each has its own gate) =="], "\(headings)")
            } else {
                #expect(headings.count == 2 && headings.allSatisfy { $0.contains(/runtime [12] \(pid \d+\): 18 cycles/) })
                #expect(lines.filter { $0 == "Gate wait (admission to entry)" }.count == 2)
            }
        case "slow", "tasks":
            let table = lines.drop { !$0.contains("runtime") }.dropFirst().prefix { !$0.isEmpty && !$0.hasPrefix("By event") }
            #expect(table.count >= 10 && table.allSatisfy { $0.contains(/\s[12] \(pid \d+\)/) }, "\(table)")
        default:
            // A gate and a transduce lane per runtime, each named with it.
            let gates = lines.filter { $0.contains("participant") && $0.contains("gate (runtime ") }
            #expect(gates.count == 2, "\(gates)")
        }
    }

    /// `--format json` and `--format tsv` of `tasks`, `slow`, `summary`, `contention` and `check`,
    /// read by Python's own `json` and `csv` modules and checked against what Python computes
    /// from the trace itself (Fixtures/scripts/check_tables.py).
    @Test func tablesReadByPythonAgreeWithTheTrace() async throws {
        let python = try #require(Subprocess.which("python3"), "python3 (scripts/bootstrap.sh installs it)")
        let tool = try #require(builtProduct("trace-view"))
        let dir = TemporaryDirectory()
        let (status, output) = try await run(
            python, [fixtures + "/scripts/check_tables.py", tool, fixtures + "/two-runtimes.jsonl", dir.path])
        #expect(status == 0 && output.contains("tables ok:"), "\(output)")
        // A wrong format is a usage error.
        #expect(try await traceView(["tasks", "--format", "xml", demo]).status == 64)
    }

    /// A dispatch id that many runtimes hold is ambiguous: the error names ten and counts them,
    /// on one short line.
    @Test func anAmbiguousRequestNamesAFewRuntimes() async throws {
        let dir = TemporaryDirectory()
        var events: [TraceEvent] = []
        for runtime in UInt64(1)...25 {
            var d = TraceEvent(kind: .dispatch, time: 1_000 + runtime, runtime: runtime)
            d.dispatch = 5
            d.label = "load"
            events.append(d)
        }
        let path = dir.file("many.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let (status, _, err) = try await traceView(["sequence", "--request", "5", path])
        #expect(
            status == 64 && err.contains("dispatch #5 exists in runtimes 1, 2, 3,") && err.contains("… (25 runtimes)"), "\(err)")
        #expect(!err.contains(" 11,") && err.count < 300, "\(err)")
    }

    /// Contention keeps to its bounds on a trace of many runtimes: the 8 busiest gates, a line
    /// for the quieter ones, and past the first 64 runtimes one section for the rest, said so;
    /// its table has the 64 runtimes' rows and one row of the rest together.
    @Test func contentionOfManyRuntimesIsBoundedAndSaysSo() async throws {
        let dir = TemporaryDirectory()
        var events: [TraceEvent] = []
        // Runtime r's one cycle holds its gate r µs: the busiest of the first 64 are 64…57.
        for runtime in UInt64(1)...70 {
            let start = runtime * 1_000_000
            var d = TraceEvent(kind: .dispatch, time: start, runtime: runtime)
            d.dispatch = 1
            d.label = "load"
            var enter = TraceEvent(kind: .cycleEnter, time: start + 1_000, runtime: runtime)
            enter.dispatch = 1
            enter.cycle = 1
            var leave = TraceEvent(kind: .cycleLeave, time: start + 1_000 + runtime * 1_000, runtime: runtime)
            leave.cycle = 1
            events += [d, enter, leave]
        }
        let path = dir.file("many.tdtrace")
        try TraceFileWriter.write(Trace(events: events), to: path)
        let (status, out, err) = try await traceView(["contention", "--width", "120", path])
        #expect(status == 0, "\(err)")
        let headings = out.split(separator: "\n").filter { $0.hasPrefix("== ") }
        #expect(
            headings.prefix(8).map { $0.firstMatch(of: /runtime (\d+):/).map { Int($0.1)! } }
                == Array((57...64).reversed()), "\(headings)")
        #expect(headings.count == 9 && headings.last!.contains("6 more runtimes, together (past the first 64"))
        #expect(out.contains("56 more runtimes with quieter gates: --runtime ID"))
        let (_, json, _) = try await traceView(["contention", "--format", "json", path])
        let rows = try json.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.count == 65 && rows.filter { $0["runtime"] is NSNull }.count == 1)
        #expect(rows.first?["runtime"] as? Int == 64 && rows.last?["cycles"] as? Int == 6)
    }

    /// The runtime column takes only what the lanes leave: at every width a diagram of several
    /// runtimes fits (the fuzzer found a lifeline drawn past the line at 40 columns).
    @Test(arguments: [40, 41, 47, 52, 60, 80]) func severalRuntimesFitEveryWidth(_ width: Int) async throws {
        let (status, out, err) = try await traceView(["sequence", "--width", String(width), fixtures + "/two-runtimes.jsonl"])
        #expect(status == 0, "\(err)")
        let widest = out.split(separator: "\n").map(\.count).max() ?? 0
        #expect(widest <= width && out.contains("dispatch #1"), "a line of \(widest) at --width \(width)")
        // From 60 columns on, every row keeps its runtime (narrower, the lanes need the room).
        if width >= 60 {
            let rows = out.split(separator: "\n").filter { $0.wholeMatch(of: /\s+\d+\.\d{3}  .*/) != nil }
            #expect(!rows.isEmpty && rows.allSatisfy { $0.contains(/[12] \(pi/) })
        }
    }

    /// `switchToLatest` churn is told per runtime: one runtime's instances replaced and never
    /// completed, the other's (same name) completing.
    @Test func churnNamesItsRuntime() {
        var events: [TraceEvent] = []
        var time: UInt64 = 1_000
        let policy = UInt8(TraceNames.policies.firstIndex(of: "switchToLatest")!)
        let replaced = UInt8(TraceNames.cancelReasons.firstIndex(of: "replaced")!)
        let settled = UInt8(TraceNames.taskOutcomes.firstIndex(of: "settle")!)
        for runtime in UInt64(1)...2 {
            for task in UInt64(1)...6 {
                time += 10
                var spawn = TraceEvent(kind: .taskSpawn, time: time, runtime: runtime)
                spawn.task = task
                spawn.label = "search"
                spawn.code = policy
                spawn.otherTask = task - 1
                events.append(spawn)
                if task > 1 {
                    var cancel = TraceEvent(kind: .taskCancel, time: time, runtime: runtime)
                    cancel.task = task - 1
                    cancel.code = replaced
                    events.append(cancel)
                }
            }
            var end = TraceEvent(kind: runtime == 1 ? .taskCancel : .taskSettle, time: time + 5, runtime: runtime)
            end.task = 6
            end.code = runtime == 1 ? replaced : settled
            events.append(end)
        }
        let warnings = TaskReport(index: TraceIndex(events)).warnings.filter { $0.check == .switchToLatestChurn }
        #expect(warnings.map(\.finding) == [.switchToLatestChurn(runtime: 1, name: "search", replaced: 5, spawned: 6)])
        #expect(
            warnings.map(\.message) == [
                "switchToLatest churn: 5 of 6 'search' instances of runtime 1 were replaced and none completed"
            ])
    }

    /// A task without an end is a finding with its ids and run time, whatever the trace lost;
    /// what the trace lost decides which, and the views word it from those data.
    @Test func aTaskWithoutAnEndIsAFindingWithItsData() {
        var dispatch = TraceEvent(kind: .dispatch, time: 900, runtime: 2)
        dispatch.dispatch = 5
        dispatch.label = "load"
        var enter = TraceEvent(kind: .cycleEnter, time: 1_000, runtime: 2)
        enter.cycle = 4
        enter.dispatch = 5
        var spawn = TraceEvent(kind: .taskSpawn, time: 1_500, runtime: 2)
        spawn.cycle = 4
        spawn.task = 9
        spawn.label = "fetch"
        spawn.code = UInt8(TraceNames.policies.firstIndex(of: "shareable")!)
        var leave = TraceEvent(kind: .cycleLeave, time: 2_000, runtime: 2)
        leave.cycle = 4
        let last = TraceEvent(kind: .dispatch, time: 3_001_500, runtime: 2)
        let index = TraceIndex([dispatch, enter, spawn, leave, last])
        let task = AnalysisWarning.Task(runtime: 2, task: 9, name: "fetch", spawnedBy: "load", running: 3_000_000)
        let cases: [(lost: UInt64, unknown: Bool, AnalysisWarning.Finding, String)] = [
            (0, false, .neverSettled(task), "never settled: fetch#9 (runtime 2) spawned by load, running 3.00ms"),
            (3, false, .noEndRecorded(task, lost: 3), "no end recorded: fetch#9 (runtime 2) spawned by load, running 3.00ms"),
            (0, true, .noEndRecorded(task, lost: nil), "the trace lost events in unknown number, which may hold its end"),
        ]
        for (lost, unknown, finding, words) in cases {
            let warnings = TaskReport(index: index, lost: lost, lossesUnknown: unknown).warnings
            #expect(warnings.map(\.finding) == [finding])
            #expect(warnings.first?.message.contains(words) == true, "\(warnings.map(\.message))")
            #expect(warnings.first?.check == (lost == 0 && !unknown ? .neverSettled : .noEndRecorded))
        }
    }

    /// Usage and help are generated from one registry: every command the tool lists has a help
    /// whose usage line and OPTIONS section name the same options, and each of them parses.
    @Test func everyCommandHasHelp() async throws {
        let (status, out, _) = try await traceView(["--help"])
        #expect(status == 0 && out.contains("COMMANDS:"))
        let listed = out.split(separator: "\n").drop { !$0.hasPrefix("COMMANDS:") }.dropFirst()
            .prefix { $0.hasPrefix("  ") }.map { String($0.split(separator: " ")[0]) }
        #expect(
            listed == [
                "demo", "sequence", "contention", "tasks", "summary", "slow", "check", "diff", "test-from", "export", "record",
                "live", "tui", "report", "completion", "man",
            ])
        for command in listed {
            let (status, help, _) = try await traceView([command, "--help"])
            #expect(status == 0)
            #expect(help.hasPrefix("USAGE: trace-view \(command)"))
            let usage = String(help.split(separator: "\n\n")[0])
            // `[--top N]`, `[--json]`, `--format chrome|…`: each option, and whether it takes a value.
            let options = usage.matches(of: /--([a-z-]+)( [A-Za-z|]+)?(?=[\]\s]|$)/).map {
                (String($0.output.1), $0.output.2 != nil)
            }
            let described = help.split(separator: "\n").filter { $0.hasPrefix("  --") }
                .map { String($0.dropFirst(4).prefix { $0 != " " }) }
            #expect(options.map(\.0) == described, "\(command)")
            // Every option it lists is one the parser takes, with a value or without as listed:
            // all of them at once, then `--help`, which shows the help before anything runs (one
            // child per command: many blocking children starve the other suites' tasks).
            let all = options.map { $0.1 ? "--\($0.0)=1" : "--\($0.0)" }
            let (parsed, _, err) = try await traceView([command] + all + ["--help"])
            #expect(parsed == 0, "\(command) \(all): \(err)")
        }
    }

    @Test func usageErrorsExit64WithOneLine() async throws {
        let cases: [([String], String)] = [
            ([], "missing command"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["summary"], "missing TRACE"),
            (["summary", "--bogus", demo], "unknown option --bogus"),
            (["sequence", "--width", "abc", demo], "--width needs a non-negative integer"),
            (["sequence", "--width", "10", demo], "--width must be between 40 and 1000"),
            (["sequence", "--from", "9", "--to", "3", demo], "--from is after --to"),
            (["export", demo], "export needs --format"),
            (["export", "--format", "png", demo], "unknown format 'png'"),
            (["record"], "record needs a command after --"),
            (["summary", demo, demo], "unexpected argument"),
        ]
        for (arguments, message) in cases {
            let (status, _, err) = try await traceView(arguments)
            #expect(status == 64, "\(arguments)")
            #expect(err.hasPrefix("trace-view: \(message)"), "\(arguments): \(err)")
        }
    }

    @Test func badDataExits65WithAClearLine() async throws {
        let dir = TemporaryDirectory()
        let garbage = dir.file("garbage.bin")
        try Data("this is not a trace at all".utf8).write(to: URL(fileURLWithPath: garbage))
        var (status, _, err) = try await traceView(["summary", garbage])
        #expect(status == 65)
        #expect(err.contains("not a Transduce trace file (bad magic number) (at byte offset 0)"))

        // A missing input is sysexits' EX_NOINPUT (66), not bad data.
        (status, _, err) = try await traceView(["summary", dir.file("missing.tdtrace")])
        #expect(status == 66 && err.contains("cannot read"))
        let unreadable = dir.file("unreadable.tdtrace")
        try Data().write(to: URL(fileURLWithPath: unreadable))
        if getuid() != 0 {  // root reads a file whatever its mode
            chmod(unreadable, 0)
            (status, _, err) = try await traceView(["summary", unreadable])
            #expect(status == 66 && err.contains("cannot open"), "\(err)")
        }

        (status, _, err) = try await traceView(["summary", dir.path])
        #expect(status == 65 && err.contains("without an LTTng CTF trace"))

        let bad = dir.file("bad.jsonl")
        try Data("{\"kind\": nope}\n{broken\n".utf8).write(to: URL(fileURLWithPath: bad))
        (status, _, err) = try await traceView(["tasks", bad])
        #expect(status == 65 && err.contains("not a trace"))
    }

    @Test func damagedTraceReportsWhatCouldBeReadAndExits65() async throws {
        let dir = TemporaryDirectory()
        let whole = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: demo)))).readAll()
        var bytes: [UInt8] = []
        TraceFileWriter.encodeBinary(whole) { bytes += $0 }
        let cut = dir.file("cut.tdtrace")
        try Data(bytes.prefix(bytes.count - 100)).write(to: URL(fileURLWithPath: cut))
        let (status, out, err) = try await traceView(["summary", cut])
        #expect(status == 65)
        #expect(out.contains("events      "))
        #expect(err.contains("warning:") && err.contains("byte offset"))
    }

    @Test func chromeExportFollowsTheFormatRules() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("trace.json")
        let (status, _, err) = try await traceView(["export", "--format", "chrome", "--output", path, demo])
        #expect(status == 0, "\(err)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let object = try #require(json as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        let other = try #require(object["otherData"] as? [String: Any])
        #expect(other["clock"] as? String == "CLOCK_MONOTONIC" && other["origin_ns"] is String)
        var slices: [String: [(Double, Double)]] = [:]
        var flows: [Int: [String]] = [:]
        var requests = 0
        let pids = Set(events.compactMap { $0["pid"] as? Int })
        for e in events {
            let ph = try #require(e["ph"] as? String)
            #expect(["X", "M", "C", "s", "t", "f", "i"].contains(ph))
            #expect(e["pid"] is Int)
            // Perfetto takes tids as the system's: none may be a process's own id (its main thread).
            if let tid = e["tid"] as? Int { #expect(!pids.contains(tid)) }
            if ph == "M" {
                if e["name"] as? String == "thread_name" {
                    let name = (e["args"] as? [String: Any])?["name"] as? String ?? ""
                    #expect(name.hasPrefix("runtime 1 · "), "track '\(name)' does not say its runtime")
                }
                continue
            }
            if ph == "C" {
                #expect((e["args"] as? [String: Any])?["depth"] is Int, "a queue-depth counter's value")
                continue
            }
            let args = try #require(e["args"] as? [String: Any], "every event keeps its absolute time and thread")
            #expect(UInt64(args["time_ns"] as? String ?? "") != nil && args["thread"] is Int)
            let ts = try #require(e["ts"] as? Double, "ts must be a number of microseconds")
            #expect(ts >= 0)
            let tid = try #require(e["tid"] as? Int)
            switch ph {
            case "X":
                let dur = try #require(e["dur"] as? Double)
                #expect(dur >= 0)
                slices["\(e["pid"]!)/\(tid)", default: []].append((ts, ts + dur))
                if e["cat"] as? String == "request" {
                    requests += 1
                    #expect(args["dispatch"] is Int && args["outcome"] is String)
                }
            case "s", "t", "f":
                flows[try #require(e["id"] as? Int), default: []].append(ph)
            default: break
            }
        }
        // Complete events nest per track: no partial overlap.
        #expect(overlappingSlices(slices).isEmpty, "\(overlappingSlices(slices))")
        // Every flow starts once, ends once; every awaited request is one slice.
        #expect(!flows.isEmpty)
        for (id, phases) in flows {
            #expect(phases.first == "s" && phases.last == "f" && phases.filter { $0 == "s" }.count == 1, "flow \(id): \(phases)")
            #expect(phases.contains("t"), "flow \(id) links no cycle")
        }
        #expect(requests == 12)
        #expect(events.contains { ($0["name"] as? String)?.hasPrefix("cycle #1 request(load)") == true })
    }

    @Test func mermaidAndPlantUMLAreWellFormed() async throws {
        let (_, mermaid, _) = try await traceView(["export", "--format", "mermaid", demo])
        let lines = mermaid.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequenceDiagram")
        let participants = Set(
            lines.compactMap { $0.hasPrefix("    participant ") ? $0.split(separator: " ")[1] : nil }.map(String.init))
        for line in lines.dropFirst() {
            if line.contains("->>") {
                let ends = line.trimmingCharacters(in: .whitespaces).split(separator: ":")[0].components(separatedBy: "->>")
                #expect(ends.count == 2 && participants.contains(ends[0]) && participants.contains(ends[1]), "\(line)")
            } else {
                #expect(line.hasPrefix("    participant ") || line.hasPrefix("    Note "), "\(line)")
            }
            #expect(line.split(separator: ":").count == 2 || line.hasPrefix("    participant"), "stray ':' in \(line)")
        }
        let (_, plant, _) = try await traceView(["export", "--format", "plantuml", demo])
        let p = plant.split(separator: "\n").map(String.init)
        #expect(p.first == "@startuml" && p.last == "@enduml")
        for line in p.dropFirst().dropLast() {
            #expect(
                line.hasPrefix("participant \"") || line.hasPrefix("note right of ") || line.hasPrefix("== ")
                    || line.range(of: #"^P\d+ -> P\d+ : "#, options: .regularExpression) != nil, "\(line)")
        }
    }

    @Test func jsonLinesExportRoundTrips() async throws {
        let (status, out, _) = try await traceView(["export", "--format", "jsonl", demo])
        #expect(status == 0)
        let again = JSONLinesReader(bytes: Array(out.utf8)).readAll()
        let original = JSONLinesReader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: demo)))).readAll()
        #expect(again.events == original.events)
    }

    @Test func demoRunsAndSaves() async throws {
        let dir = TemporaryDirectory()
        let path = dir.file("demo.tdtrace")
        let (status, out, err) = try await traceView(["demo", "--save", path])
        #expect(status == 0, "\(err)")
        #expect(out.contains("The request-lifecycle chart: request(load) #1"))
        // The chart itself: the request's lifecycle and the other cycle that got through the gate.
        for step in [
            "dispatch #1 request(load)", "leave cycle #1 (handedOff)", "dispatch #2 send(ping)", "resume dispatch #1: response",
        ] {
            #expect(out.contains(step), "the chart lacks \(step)")
        }
        #expect(out.contains("Gate wait (admission to entry)"))
        #expect(out.contains("asyncAction"))
        let trace = try TraceFileReader(path: path).readAll()
        // Every kind but a caller's trace context, which the demo does not set.
        #expect(Set(trace.events.map(\.kind)) == Set(TraceEvent.Kind.allCases).subtracting([.traceContext]))
    }
}

/// `export`'s formats each take their own options: every option some other format owns is a
/// usage error naming where it goes, and what a format needs is asked for.
@Suite struct ExportFormatOptionTests {
    static let demo = fixtures + "/demo.jsonl"

    @Test(arguments: ["perfetto", "chrome", "otlp", "mermaid", "plantuml", "svg", "jsonl", "csv"])
    func aFormatRefusesTheOptionsOfOthers(_ format: String) async throws {
        let misplaced: [(arguments: [String], says: String, owners: [String])] = [
            (["--table", "tasks"], "--table goes with --format csv", ["csv"]),
            (["--request", "2"], "they go with --format mermaid, plantuml or svg", ["mermaid", "plantuml", "svg"]),
            (["--from", "0"], "they go with --format mermaid, plantuml or svg", ["mermaid", "plantuml", "svg"]),
            (["--send"], "--otlp-endpoint and --send go with --format otlp", ["otlp"]),
            (["--otlp-endpoint", "http://127.0.0.1:9"], "--otlp-endpoint and --send go with --format otlp", ["otlp"]),
            (["--resume-at", "3"], "--resume-at goes with --otlp-endpoint or --send", []),
            (["--allow-partial"], "--allow-partial goes with --otlp-endpoint or --send", []),
        ]
        let directory = TemporaryDirectory()
        let output = directory.file("out")
        let needs = format == "csv" ? ["--table", "tasks"] : []
        for (arguments, says, owners) in misplaced where !owners.contains(format) {
            let run = try await traceView(["export", "--format", format, "--output", output] + needs + arguments + [Self.demo])
            #expect(run.status == 64 && run.err.contains(says), "\(format) \(arguments): \(run.err)")
        }
        // With only what it needs, the format writes.
        let plain = try await traceView(["export", "--format", format, "--output", output] + needs + [Self.demo])
        #expect(plain.status == 0, "\(format): \(plain.err)")
    }

    @Test func whatAFormatNeedsIsAskedFor() async throws {
        let csv = try await traceView(["export", "--format", "csv", Self.demo])
        #expect(csv.status == 64 && csv.err.contains("--format csv needs --table requests|tasks|cycles|events"), "\(csv.err)")
        let none = try await traceView(["export", Self.demo])
        #expect(none.status == 64 && none.err.contains("--format"), "\(none.err)")
        let sendingToAFile = try await traceView(["export", "--format", "otlp", "--send", "--output", "x", Self.demo])
        #expect(sendingToAFile.status == 64 && sendingToAFile.err.contains("do not go with --output"), "\(sendingToAFile.err)")
    }
}
